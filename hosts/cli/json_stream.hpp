// SPDX-License-Identifier: Apache-2.0
// json_stream.hpp: a JSON object written to a stream field by field, and an
// array field row by row, byte for byte as nlohmann's dump(2) writes the
// whole object, so that memory does not grow with the rows: each row is
// formatted (nlohmann), written and dropped. Fields must come in the order
// dump() sorts them (std::map: by key); the writer refuses any other.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>

namespace ndsearch::cli {

class JsonObjectStream {
 public:
  explicit JsonObjectStream(std::ostream& out);  // writes "{"
  JsonObjectStream(const JsonObjectStream&) = delete;
  JsonObjectStream& operator=(const JsonObjectStream&) = delete;

  void field(const std::string& key, const nlohmann::json& value);
  // An array of `rows` values, row(i) formatted when it is written.
  void array_field(const std::string& key, size_t rows,
                   const std::function<nlohmann::json(size_t)>& row);
  void close();  // writes "}" and a newline, as `std::cout << j.dump(2) << "\n"`

 private:
  void key(const std::string& name);
  // `value` dumped with indent 2, each line after the first indented by `depth` levels.
  void value(const nlohmann::json& value, int depth);

  std::ostream& out_;
  std::string last_key_;
  bool empty_ = true;
};

}  // namespace ndsearch::cli
