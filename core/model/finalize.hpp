// SPDX-License-Identifier: Apache-2.0
// finalize.hpp: after a parser: the values every model has by construction
// (head_dim = hidden_size / heads, kv_heads = heads without GQA, no experts
// in a dense layer, ...), each recorded as derived; the precision recipe's
// unstated settings (fp8 recipe, activation dtype), each with its default's
// provenance; and the checks a model must pass (shapes that divide, experts
// that exist).
#pragma once

#include "core/model/model.hpp"

namespace ndsearch {

// Throws UserError E-MODEL-LIMIT (a value beyond model_limits.hpp's limits),
// E-PARSE-NO-MODEL (no decoder layer: the file describes no
// model) or E-MODEL-SHAPE (a contradiction), naming the file and the field.
void finalize_model(Model& model);

}  // namespace ndsearch
