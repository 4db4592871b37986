// SPDX-License-Identifier: Apache-2.0
// test_text_edits.cpp: the line editor every writer of `apply` uses keeps
// what it does not edit byte for byte: line endings (CRLF too), a last line
// without a newline, comments, quotes and YAML anchors around a value.
#include <catch2/catch.hpp>

#include "plugins/common/parsing/text_edits.hpp"

using ndsearch::plugins::Span;
using ndsearch::plugins::TextEdits;
using ndsearch::plugins::value_after_key;

TEST_CASE("TextEdits keeps every byte it does not edit") {
  SECTION("CRLF endings stay, added lines take them") {
    TextEdits e("a: 1\r\nb: 2\r\n");
    e.replace_line(2, "b: 3");
    e.insert_after(1, "c: 4");
    CHECK(e.text() == "a: 1\r\nc: 4\r\nb: 3\r\n");
  }
  SECTION("a last line without a newline gets one only before an added line") {
    TextEdits e("x = 1\ny = 2");
    CHECK(e.text() == "x = 1\ny = 2");
    e.insert_after(2, "z = 3");
    CHECK(e.text() == "x = 1\ny = 2\nz = 3\n");
  }
  SECTION("removed lines go with their ending; lines added after them stay, in order") {
    TextEdits e("  --a 1 \\\n  --b \\\n  --c 3\n");
    e.remove_line(2);
    e.insert_after(2, "  --d 4 \\");
    e.insert_after(2, "  --e 5 \\");
    CHECK(e.text() == "  --a 1 \\\n  --d 4 \\\n  --e 5 \\\n  --c 3\n");
    CHECK(e.indentation(3) == "  ");
  }
  SECTION("a line outside the file is an error, not a write past the end") {
    TextEdits e("one\n");
    CHECK_THROWS(e.line(2));
    CHECK_THROWS(e.insert_after(5, "x"));
  }
}

TEST_CASE("value_after_key finds the value alone") {
  const auto value = [](const std::string& line, const std::string& key, char sep) {
    const Span s = value_after_key(line, key, sep);
    return s.found() ? line.substr(s.begin, s.end - s.begin) : std::string("<none>");
  };
  CHECK(value("  model_parallel: 8  # tp", "model_parallel", ':') == "8");
  CHECK(value("  data_parallel: &dp 32", "data_parallel", ':') == "32");  // the anchor stays
  CHECK(value("mode = \"full\"  # [\"none\", \"full\"]", "mode", '=') == "\"full\"");
  CHECK(value("recompute: [[1, 2], [3, 4]] # per stage", "recompute", ':') == "[[1, 2], [3, 4]]");
  CHECK(value("{tp: 2, pp: 4}", "pp", ':') == "4");
  // A key is matched whole: expert_model_parallel is not model_parallel.
  CHECK(value("  expert_model_parallel: 4", "model_parallel", ':') == "<none>");
}
