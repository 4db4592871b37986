// SPDX-License-Identifier: Apache-2.0
// test_json_stream.cpp: the streaming JSON writer (core/output/json_stream.*)
// writes, byte for byte, what nlohmann's dump(2) writes for the whole object,
// and a document cut short by an error stays valid JSON that names the error.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <stdexcept>

#include "core/output/json_stream.hpp"
#include "core/support/user_error.hpp"

using ndsearch::JsonObjectStream;
using ndsearch::UserError;
using ndsearch::write_json_object;
using nlohmann::json;

namespace {

// Rows with a nested object and a string holding a newline (written "\n",
// so it must not be indented as a line break).
json row(size_t i) {
  return {{"rank", i + 1}, {"parts", {{"a", 0.5 * i}}}, {"note", "x\ny"}};
}

}  // namespace

TEST_CASE("A streamed object is byte for byte the dump(2) of the whole object") {
  const json whole = {{"empty", json::array()},
                      {"name", "m"},
                      {"rows", {row(0), row(1), row(2)}},
                      {"z", {{"k", 1}}}};
  std::ostringstream streamed;
  write_json_object(streamed, [](JsonObjectStream& out) {
    out.array_field("empty", 0, row);
    out.field("name", "m");
    out.array_field("rows", 3, row);
    out.field("z", {{"k", 1}});
    out.close();
  });
  CHECK(streamed.str() == whole.dump(2) + "\n");
}

TEST_CASE("Keys out of dump()'s order are refused: the writer cannot differ from dump()") {
  std::ostringstream out;
  JsonObjectStream stream(out);
  stream.field("b", 1);
  CHECK_THROWS_AS(stream.field("a", 2), std::logic_error);
}

TEST_CASE("An error part-way through a row array ends the document with an error member") {
  std::ostringstream out;
  const auto failing_row = [](size_t i) -> json {
    if (i == 2) throw UserError("E-PLUGIN-HANG", "plugin \"p\" did not return");
    return row(i);
  };
  CHECK_THROWS_AS(write_json_object(out,
                                    [&](JsonObjectStream& s) {
                                      s.field("name", "m");
                                      s.array_field("rows", 5, failing_row);
                                      s.field("z", 1);
                                      s.close();
                                    }),
                  UserError);
  const json j = json::parse(out.str());  // throws if it is not one valid document
  CHECK(j["name"] == "m");
  REQUIRE(j["rows"].size() == 2);  // rows 0 and 1 were written before row 2 failed
  CHECK(j["rows"][1]["rank"] == 2);
  CHECK(j["error"]["id"] == "E-PLUGIN-HANG");
  CHECK(j["error"]["message"] == "plugin \"p\" did not return");
  CHECK_FALSE(j.contains("z"));
}

TEST_CASE("An error before any row, or outside arrays, also leaves valid JSON") {
  for (int where : {0, 1}) {
    INFO(where);
    std::ostringstream out;
    CHECK_THROWS_AS(write_json_object(out,
                                      [&](JsonObjectStream& s) {
                                        if (where == 1)
                                          s.array_field("rows", 3, [](size_t) -> json {
                                            throw std::runtime_error("bad_alloc-like");
                                          });
                                        throw std::runtime_error("bad_alloc-like");
                                      }),
                    std::runtime_error);
    const json j = json::parse(out.str());
    CHECK(j["error"]["id"] == "E-INTERNAL");
    if (where == 1) CHECK(j["rows"] == json::array());
  }
}
