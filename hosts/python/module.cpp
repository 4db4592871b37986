// SPDX-License-Identifier: Apache-2.0
// module.cpp: the `ndsearch._ndsearch` extension: the core's Planner in the
// Python process (no subprocess). Every answer is the result the CLI prints:
// its JSON document handed to Python's json module, so a dict has the CLI's
// keys and values exactly, or with format="text" its text; the files the
// keywords name are written as the CLI's flags write them. A UserError
// becomes ndsearch.Error with its id.
#include <pybind11/pybind11.h>
#include <boost/dll/runtime_symbol_info.hpp>  // this_line_location
#include <ndsearch/core/planner.hpp>
#include <ndsearch/core/results.hpp>

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
  if (!s.shipped_dir)
    s.shipped_dir = beside_module({NDS_PYTHON_TO_PLUGINS_BUILD, NDS_PYTHON_TO_PLUGINS_INSTALL});
  if (!s.vet_helper)
    s.vet_helper = beside_module({NDS_PYTHON_TO_VET_BUILD, NDS_PYTHON_TO_VET_INSTALL});
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

// What a call answers, as its `format` keyword asks (removed from the
// keywords): "json" (the default) the document as a dict, "text" the text
// the CLI prints (settings named by their keywords), "csv" the rows (search,
// compare).
enum class Format { json, text, csv };

Format format_of(py::dict& kwargs, bool has_csv) {
  if (!kwargs.contains("format")) return Format::json;
  const std::string f = py::str(kwargs["format"]).cast<std::string>();
  PyDict_DelItemString(kwargs.ptr(), "format");
  if (f == "json") return Format::json;
  if (f == "text") return Format::text;
  if (f == "csv" && has_csv) return Format::csv;
  throw ndsearch::UserError("E-USAGE", "format=" + f + ": give \"json\", \"text\"" +
                                           std::string(has_csv ? " or \"csv\"" : ""));
}

template <class Result>
py::object answer(const Result& r, Format format) {
  if (format == Format::json) return to_python(r.to_json());
  std::ostringstream text;
  r.write_text(text);
  return py::str(text.str());
}

// A written config the writer refused raises (the search's document would
// not say so); a refused strategy or a search where nothing fits answers
// with its document, which says it (valid false, counts.fit 0).
void raise_outcome(const std::optional<ndsearch::UserError>& failure) {
  if (failure) throw *failure;
}

// The search document as the core streams it, read by Python once (not
// parsed into a tree and written out again first).
py::object search(const Planner& planner, py::kwargs kwargs) {
  const Format format = format_of(kwargs, true);
  const ndsearch::SearchSettings settings = ndsearch::python::search_settings(kwargs);
  std::ostringstream text;
  {
    py::gil_scoped_release unlocked;
    const ndsearch::SearchReport r = planner.search(settings);
    raise_outcome(r.emit_failure);
    if (format == Format::json) r.write_json(text);
    if (format == Format::text) r.write_text(text);
    if (format == Format::csv) r.write_csv(text);
  }
  return format == Format::json ? from_json_text(text.str()) : py::str(text.str());
}

// A method reading its settings from keyword arguments, run without the GIL.
template <class Settings, class Result>
Result call(const Planner& planner, Result (Planner::*method)(const Settings&) const,
            Settings (*read)(const py::dict&), const py::kwargs& kwargs) {
  const Settings settings = read(kwargs);
  py::gil_scoped_release unlocked;
  return (planner.*method)(settings);
}

py::object evaluate(const Planner& p, py::kwargs kw) {
  const Format format = format_of(kw, false);
  const auto r = call(p, &Planner::evaluate, &ndsearch::python::evaluate_settings, kw);
  return answer(r, format);
}

py::object explain(const Planner& p, py::kwargs kw) {
  const Format format = format_of(kw, false);
  const auto r = call(p, &Planner::explain, &ndsearch::python::explain_settings, kw);
  return answer(r, format);
}

py::object compare(const Planner& p, py::kwargs kw) {
  const Format format = format_of(kw, true);
  const auto r = call(p, &Planner::compare, &ndsearch::python::compare_settings, kw);
  if (format == Format::csv) return py::str(r.csv);
  return answer(r, format);
}

py::object model(const Planner& p, py::kwargs kw) {
  const Format format = format_of(kw, false);
  return answer(call(p, &Planner::model, &ndsearch::python::model_settings, kw), format);
}

py::object apply(const Planner& p, const py::kwargs& kw) {
  return to_python(call(p, &Planner::apply, &ndsearch::python::apply_settings, kw).to_json());
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
      .def("plugins", [](const Planner& p) { return to_python(p.plugins().to_json()); })
      .def("hardware", [](const Planner& p) { return to_python(p.hardware().to_json()); })
      .def("device", [](const Planner& p,
                        const std::string& id) { return to_python(p.device(id).to_json()); })
      .def("model", &model)
      .def("evaluate", &evaluate)
      .def("compare", &compare)
      .def("search", &search)
      .def("explain", &explain)
      .def("apply", &apply);
}
