// SPDX-License-Identifier: Apache-2.0
#include "hosts/python/settings_from_dict.hpp"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <set>
#include <string>

namespace ndsearch::python {
namespace py = pybind11;
namespace {

// Reads the keys of one dict, each once; what is left over is an error.
class Reader {
 public:
  Reader(const py::dict& given, const char* call) : given_(given), call_(call) {}

  template <class T>
  void read(const char* key, T& into) {
    seen_.insert(key);
    if (!given_.contains(key) || given_[key].is_none()) return;
    try {
      into = given_[key].template cast<T>();
    } catch (const py::cast_error&) {
      throw UserError("E-USAGE", std::string(call_) + "(): " + key + "=" +
                                     py::str(given_[key]).cast<std::string>() +
                                     " has the wrong type; see help(ndsearch." + call_ + ")");
    }
  }

  // Every key the call knows was read: any other is a misspelt keyword.
  void finish() const {
    for (const auto& [key, value] : given_) {
      const std::string name = py::str(key).cast<std::string>();
      if (seen_.count(name) == 0)
        throw UserError("E-USAGE", std::string(call_) + "(): unknown keyword " + name +
                                       "; see help(ndsearch." + call_ + ")");
    }
  }

 private:
  const py::dict& given_;
  const char* call_;
  std::set<std::string> seen_;
};

void read_model(Reader& r, ModelSettings& m) {
  r.read("config", m.config);
  r.read("framework", m.framework);
  r.read("strict", m.strict);
  r.read("any_trainer", m.any_trainer);
  r.read("seq_len", m.seq_len);
  r.read("global_batch", m.global_batch);
  r.read("micro_batch_size", m.micro_batch_size);
  r.read("vocab_size", m.vocab_size);
  r.read("image_tokens", m.image_tokens);
  r.read("images_per_sample", m.images_per_sample);
  r.read("dtype", m.dtype);
  r.read("fp8_recipe", m.fp8_recipe);
  r.read("overlap", m.overlap);
  r.read("recompute_modules", m.recompute_modules);
  r.read("routing", m.routing);
  r.read("model_config", m.model_config);
}

void read_recompute(Reader& r, RecomputeChoiceSettings& c) {
  r.read("auto_recompute", c.auto_recompute);
  r.read("offload", c.offload);
  r.read("recompute_strategy", c.recompute_strategy);
  r.read("host_link", c.host_link_gibps);
  r.read("host_link_overlap", c.host_link_overlap);
  r.read("host_memory", c.host_memory);
}

void read_space(Reader& r, SpaceSettings& s) {
  r.read("dimensions", s.dimensions);
  r.read("only", s.only);
  r.read("threads", s.threads);
  r.read("recompute_modes", s.recompute_modes);
  r.read("schedules", s.schedules);
}

// What eval and compare share: the model, the machine and the pricing (not the strategy).
void read_pricing(Reader& r, EvaluateSettings& e) {
  read_model(r, e.model);
  r.read("device", e.device);
  r.read("devices", e.devices);
  r.read("max_memory", e.max_memory);
  r.read("reserve_mem", e.reserve_mem);
  r.read("layers_from_config", e.layers_from_config);
  r.read("cp_algo", e.cp_algo);
  r.read("calibration", e.calibration);
  r.read("force_calibration", e.force_calibration);
}

void read_evaluate(Reader& r, EvaluateSettings& e) {
  read_pricing(r, e);
  r.read("strategy", e.strategy);
  r.read("recompute_mode", e.recompute_mode);
  read_recompute(r, e.recompute);
}

}  // namespace

PluginSettings plugin_settings(const py::dict& given) {
  PluginSettings s;
  Reader r(given, "Planner");
  r.read("plugin_files", s.plugin_files);
  r.read("plugin_dirs", s.plugin_dirs);
  r.read("use_environment", s.use_environment);
  r.read("device_file", s.device_file);
  r.read("allow_override", s.allow_override);
  r.read("plugin_timeout_s", s.plugin_timeout_s);
  r.read("options", s.options);
  r.finish();
  return s;
}

ModelSettings model_settings(const py::dict& given) {
  ModelSettings m;
  Reader r(given, "model");
  read_model(r, m);
  r.finish();
  return m;
}

EvaluateSettings evaluate_settings(const py::dict& given) {
  EvaluateSettings e;
  Reader r(given, "evaluate");
  read_evaluate(r, e);
  r.finish();
  return e;
}

// Each run states its strategy: a strategy keyword is unknown here.
CompareSettings compare_settings(const py::dict& given) {
  CompareSettings c;
  Reader r(given, "compare");
  read_pricing(r, c.evaluate);
  r.read("measured", c.measured);
  r.read("fit", c.fit);
  r.read("output_dir", c.output_dir);
  r.finish();
  return c;
}

SearchSettings search_settings(const py::dict& given) {
  SearchSettings s;
  Reader r(given, "search");
  read_model(r, s.model);
  r.read("device", s.device);
  r.read("devices", s.devices);
  read_space(r, s.space);
  r.read("top", s.top);
  r.read("max_memory", s.max_memory);
  r.read("reserve_mem", s.reserve_mem);
  r.read("cp_algo", s.cp_algo);
  r.read("all_misses", s.all_misses);
  r.read("misses", s.table.misses);
  r.read("wide", s.table.wide);
  r.read("columns", s.table.columns);
  r.read("pareto", s.table.pareto);
  r.read("balance_layers", s.balance_layers);
  r.read("ranking_csv", s.ranking_csv);
  r.read("output_dir", s.output_dir);
  r.read("priced_csv", s.priced_csv);
  r.read("report", s.report);
  r.read("ppb_rank", s.ppb_rank);
  r.read("emit_config", s.emit_config);
  r.read("emit_rank", s.emit_rank);
  r.read("calibration", s.calibration);
  r.read("force_calibration", s.force_calibration);
  read_recompute(r, s.recompute);
  r.finish();
  return s;
}

ExplainSettings explain_settings(const py::dict& given) {
  ExplainSettings x;
  Reader r(given, "explain");
  read_evaluate(r, x.evaluate);
  read_space(r, x.space);
  r.read("beaten_by", x.beaten_by);
  r.read("timeline", x.timeline);
  r.read("report", x.report);
  r.finish();
  return x;
}

ApplySettings apply_settings(const py::dict& given) {
  ApplySettings a;
  Reader r(given, "apply");
  read_model(r, a.model);
  r.read("strategy", a.strategy);
  r.read("devices", a.devices);
  r.read("output", a.output);
  r.finish();
  return a;
}

}  // namespace ndsearch::python
