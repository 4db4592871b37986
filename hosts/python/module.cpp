// SPDX-License-Identifier: Apache-2.0
// module.cpp: the `ndsearch._ndsearch` extension: the core's Planner in the
// Python process (no subprocess). Every answer is the JSON document the CLI
// prints, handed to Python's json module, so a dict has the CLI's keys and
// values exactly; a UserError becomes ndsearch.Error with its id.
#include <boost/dll/runtime_symbol_info.hpp>  // this_line_location
#include <ndsearch/core/planner.hpp>
#include <pybind11/pybind11.h>

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "hosts/python/settings_from_dict.hpp"

namespace py = pybind11;
namespace fs = std::filesystem;
using ndsearch::Planner;

namespace {

// The first of `relatives` (from this module's folder) that exists: the
// build tree's layout, then the installed one (hosts/python/CMakeLists.txt).
std::optional<fs::path> beside_module(std::initializer_list<const char*> relatives) {
  std::error_code ec;
  const fs::path here = boost::dll::this_line_location(ec).parent_path();
  if (ec) return std::nullopt;
  for (const char* relative : relatives) {
    const fs::path candidate = (here / relative).lexically_normal();
    if (fs::exists(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

Planner make_planner(const py::dict& settings) {
  ndsearch::PluginSettings s = ndsearch::python::plugin_settings(settings);
  // The shipped plugins and the vetting helper of this build or install,
  // found from this module (the program is python, not ndsearch).
  if (!s.shipped_dir) s.shipped_dir = beside_module({NDS_PYTHON_TO_PLUGINS_BUILD, NDS_PYTHON_TO_PLUGINS_INSTALL});
  if (!s.vet_helper) s.vet_helper = beside_module({NDS_PYTHON_TO_VET_BUILD, NDS_PYTHON_TO_VET_INSTALL});
  py::gil_scoped_release unlocked;
  return Planner(s);
}

py::object from_json_text(const std::string& text) {
  static const py::object loads = py::module_::import("json").attr("loads");
  return loads(text);
}

py::object to_python(const nlohmann::json& document) {
  return from_json_text(document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// The search document as the core streams it, read by Python once (not
// parsed into a tree and written out again first).
py::object search(const Planner& planner, const py::kwargs& kwargs) {
  const ndsearch::SearchSettings settings = ndsearch::python::search_settings(kwargs);
  std::ostringstream text;
  {
    py::gil_scoped_release unlocked;
    planner.write_search(settings, text);
  }
  return from_json_text(text.str());
}

// A method reading its settings from keyword arguments, run without the GIL.
template <class Settings, nlohmann::json (Planner::*Call)(const Settings&) const>
py::object call(const Planner& planner, Settings (*read)(const py::dict&), const py::kwargs& kwargs) {
  const Settings settings = read(kwargs);
  nlohmann::json answer;
  {
    py::gil_scoped_release unlocked;
    answer = (planner.*Call)(settings);
  }
  return to_python(answer);
}

}  // namespace

PYBIND11_MODULE(_ndsearch, m) {
  m.doc() = "ndsearch core, in process: see the ndsearch package";
  static py::exception<ndsearch::UserError> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ndsearch::UserError& e) {
      py::object raised = py::reinterpret_borrow<py::object>(error.ptr())(e.what());
      raised.attr("id") = e.id();
      raised.attr("exit_code") = e.exit_code();
      PyErr_SetObject(error.ptr(), raised.ptr());
    }
  });
  py::class_<Planner>(m, "Planner")
      .def(py::init([](const py::kwargs& kwargs) { return make_planner(kwargs); }))
      .def("plugins", [](const Planner& p) { return to_python(p.plugins()); })
      .def("hardware", [](const Planner& p) { return to_python(p.hardware()); })
      .def("device",
           [](const Planner& p, const std::string& id) { return to_python(p.device(id)); })
      .def("model",
           [](const Planner& p, const py::kwargs& kw) {
             return call<ndsearch::ModelSettings, &Planner::model>(
                 p, &ndsearch::python::model_settings, kw);
           })
      .def("evaluate",
           [](const Planner& p, const py::kwargs& kw) {
             return call<ndsearch::EvaluateSettings, &Planner::evaluate>(
                 p, &ndsearch::python::evaluate_settings, kw);
           })
      .def("compare",
           [](const Planner& p, const py::kwargs& kw) {
             return call<ndsearch::CompareSettings, &Planner::compare>(
                 p, &ndsearch::python::compare_settings, kw);
           })
      .def("search", &search)
      .def("explain",
           [](const Planner& p, const py::kwargs& kw) {
             return call<ndsearch::ExplainSettings, &Planner::explain>(
                 p, &ndsearch::python::explain_settings, kw);
           })
      .def("apply", [](const Planner& p, const py::kwargs& kw) {
        return call<ndsearch::ApplySettings, &Planner::apply>(p, &ndsearch::python::apply_settings,
                                                              kw);
      });
}
