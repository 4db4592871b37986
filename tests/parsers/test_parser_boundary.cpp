// SPDX-License-Identifier: Apache-2.0
// test_parser_boundary.cpp: what the SDK's parse trampoline makes of an
// exception a parser lets out (issue 11: "plugin threw: std::bad_alloc",
// naming no file), and the SDK's reading helpers on their edge cases.
#include <catch2/catch.hpp>
#include <ndsearch/sdk/parser.hpp>

#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>  // std::tie

#include "core/plugin_host/module_host.hpp"

namespace sdk = ndsearch::sdk;

namespace {

// Throws what it is told to from parse.
class ThrowingParser final : public sdk::ParserPlugin {
 public:
  ThrowingParser() : ParserPlugin("throws on purpose") {}
  double probe(const std::string&) override { return 0; }
  void parse(const std::string&, sdk::Builder&) override {
    if (throw_bad_alloc) throw std::bad_alloc();
    throw std::out_of_range("vector::_M_range_check");
  }
  bool throw_bad_alloc = true;
};

// The status a parse returns, as {host error id from the tag, message, code}.
struct Outcome {
  std::string id, message;
  nds_status_code code = NDS_OK;
};

Outcome parse_with(ThrowingParser& parser, const nds_host& host) {
  const auto* table = static_cast<const nds_parser_v1*>(parser.interface(NDS_PARSER_INTERFACE_ID));
  REQUIRE(table != nullptr);
  nds_builder_v1 unused{};  // the parser throws before any builder call
  nds_status* status = table->parse("/configs/model/config.json", &unused);
  REQUIRE(status != nullptr);
  const nds_str text = host.status_message(host.context, status);
  Outcome o;
  o.code = host.status_code(host.context, status);
  std::tie(o.id, o.message) = sdk::split_error_tag(std::string(text.data, text.size));
  host.release_status(host.context, status);
  return o;
}

}  // namespace

TEST_CASE(
    "Memory running out in a parser is E-PARSE-LIMIT naming the file, and another exception names "
    "it "
    "too") {
  ndsearch::ModuleHost module_host("throws", std::make_shared<const ndsearch::PluginOptions>());
  sdk::host().attach(module_host.host());
  ThrowingParser parser;
  const Outcome oom = parse_with(parser, *module_host.host());
  CHECK(oom.id == "E-PARSE-LIMIT");
  CHECK(oom.message ==
        "out of memory while reading /configs/model/config.json; the file is too large or too "
        "deeply nested to read on this machine");

  parser.throw_bad_alloc = false;
  const Outcome other = parse_with(parser, *module_host.host());
  CHECK(other.id.empty());
  CHECK(other.code == NDS_INTERNAL);  // the core reads it as E-PARSE-FAILED
  CHECK(other.message ==
        "/configs/model/config.json: the parser failed while reading it (vector::_M_range_check)");
  sdk::host().attach(nullptr);
}

TEST_CASE("UTF-8 is checked as RFC 3629 defines it") {
  CHECK_FALSE(sdk::invalid_utf8_offset("plain ascii, caf\xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80"));
  CHECK(sdk::invalid_utf8_offset("ab\xff") == 2u);            // never a UTF-8 byte
  CHECK(sdk::invalid_utf8_offset("\xc0\xaf") == 0u);          // overlong '/'
  CHECK(sdk::invalid_utf8_offset("x\xed\xa0\x80") == 1u);     // a UTF-16 surrogate, U+D800
  CHECK(sdk::invalid_utf8_offset("\xf4\x90\x80\x80") == 0u);  // above U+10FFFF
  CHECK(sdk::invalid_utf8_offset("\xe2\x82") == 0u);          // cut short
}

TEST_CASE("A value shown in a message is cut on a character boundary and says its size") {
  CHECK(sdk::shown("short") == "short");
  CHECK(sdk::shown(std::string(100, 'x'), 10) == "xxxxxxxxxx... (100 bytes)");
  // "é" is 2 bytes: a cut at byte 3 of "aéé" would split the second one.
  CHECK(sdk::shown("a\xc3\xa9\xc3\xa9", 4) == "a\xc3\xa9... (5 bytes)");
}
