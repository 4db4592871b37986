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

namespace ndsearch {

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
  // Ends a document cut short by an error: the open array and the object are
  // closed and an "error" member {"id", "message"} is the last one (out of
  // key order), so what was written stays one valid JSON document.
  void fail(const std::string& id, const std::string& message);

 private:
  void key(const std::string& name);
  // `value` dumped with indent 2, each line after the first indented by `depth` levels.
  void value(const nlohmann::json& value, int depth);

  std::ostream& out_;
  std::string last_key_;
  bool empty_ = true;
  bool in_array_ = false;  // inside array_field, with this many rows written
  size_t array_rows_ = 0;
};

// Runs `body` on an object written to `out`; an exception thrown part-way
// ends the document with JsonObjectStream::fail (a UserError's id, else
// E-INTERNAL) and is rethrown for the caller to report and exit.
void write_json_object(std::ostream& out, const std::function<void(JsonObjectStream&)>& body);

}  // namespace ndsearch
