// SPDX-License-Identifier: Apache-2.0
// settings_from_dict.hpp: the binding's keyword arguments, as a dict, read
// into the core's settings. A key the core does not know is an error naming
// it (a misspelt keyword must not be ignored).
#pragma once

#include <pybind11/pybind11.h>
#include <ndsearch/core/planner.hpp>

namespace ndsearch::python {

PluginSettings plugin_settings(const pybind11::dict& given);
ModelSettings model_settings(const pybind11::dict& given);
EvaluateSettings evaluate_settings(const pybind11::dict& given);
CompareSettings compare_settings(const pybind11::dict& given);
SearchSettings search_settings(const pybind11::dict& given);
ExplainSettings explain_settings(const pybind11::dict& given);
ApplySettings apply_settings(const pybind11::dict& given);

}  // namespace ndsearch::python
