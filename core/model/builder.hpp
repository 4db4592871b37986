// SPDX-License-Identifier: Apache-2.0
// builder.hpp: the host side of nds_builder_v1: parsers fill a Model through
// it, one validated call at a time, each value with its provenance. The keys
// are those of abi/model-vocabulary.md.
#pragma once

#include <ndsearch/nds_parser.h>

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

// "<file>:<line>: <field>", "<file>: <field>" or "default:<trainer>".
std::string provenance_text(const nds_provenance* where);

// Whether `warning` is the builder's note that a parser could not know `key`
// (ModelBuilder::unknown), for a value another source gives after all.
bool is_unknown_note(const std::string& warning, std::string_view key);

class ModelBuilder {
 public:
  // `strict`: an unknown field is an error (--strict), not a warning.
  ModelBuilder(Model& model, std::string parser_id, bool strict);
  ModelBuilder(const ModelBuilder&) = delete;  // the C table points to this object
  ModelBuilder& operator=(const ModelBuilder&) = delete;

  const nds_builder_v1& table() const noexcept { return table_; }

  // The error id of the last refusal ("E-PARSE-VALUE", "E-PARSE-KEY",
  // "E-PARSE-UNKNOWN-FIELD", "E-PARSE-ORDER"), empty if none.
  const std::string& last_error_id() const noexcept { return last_error_id_; }
  // The status of that refusal (compare a parser's returned status with it:
  // the same pointer means the parser passed the refusal on).
  const nds_status* last_refusal() const noexcept { return last_refusal_; }

  // Sets one key as the C calls do; throws nothing, returns a status or NULL.
  using Value = std::variant<int64_t, double, std::string, std::vector<int64_t>>;
  nds_status* set(const char* key, const Value& value, const std::string& source);

  // Blocks and towers, as the C calls do.
  nds_status* begin_block(const char* kind, int64_t layers, const std::string& source);
  nds_status* end_block();
  nds_status* begin_submodel(const char* name, const std::string& source);
  nds_status* end_submodel();
  nds_status* unknown(const char* key, const char* why, const std::string& source);
  nds_status* unknown_field(const std::string& source);

 private:
  nds_status* refuse(const char* error_id, nds_status_code code, const std::string& message);
  ModelPart& part();

  Model& model_;
  std::string parser_id_;
  bool strict_;
  int submodel_ = -1;  // -1: the language model
  int block_ = -1;     // index in part().blocks of the open block, -1: none
  std::string last_error_id_;
  const nds_status* last_refusal_ = nullptr;
  nds_builder_v1 table_{};
};

}  // namespace ndsearch
