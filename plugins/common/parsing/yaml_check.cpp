// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/yaml_check.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>
#include <ndsearch/sdk/config_file.hpp>

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace ndsearch::plugins::yaml {
namespace {

struct Container {
  bool map = false;
  bool at_key = true;  // a map: the next node is a key
  YAML::anchor_t anchor = YAML::NullAnchor;
  uint64_t nodes_at_start = 0;
  std::unordered_map<std::string, int64_t> keys;  // a map's scalar keys and their lines
};

class Checker final : public YAML::EventHandler {
 public:
  explicit Checker(const std::string& file) : file_(file) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, 1); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = sizes_.find(anchor);
    const uint64_t size = it == sizes_.end() ? 1 : it->second;
    alias_nodes_ = std::min(alias_nodes_ + size, kMaxYamlAliasNodes + 1);
    if (alias_nodes_ > kMaxYamlAliasNodes)
      throw sdk::LimitError(
          file_ + ":" + std::to_string(mark.line + 1) +
          ": its aliases (*name) expand to more than " + std::to_string(kMaxYamlAliasNodes) +
          " values; a config's aliases repeat a few settings: write the values out or nest "
          "fewer aliases");
    leaf(mark, YAML::NullAnchor, size);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!open_.empty() && open_.back().map && open_.back().at_key && value != "<<") {
      const int64_t line = mark.line + 1;
      auto [it, fresh] = open_.back().keys.emplace(value, line);
      if (!fresh)
        throw sdk::DuplicateKeyError(
            file_ + ":" + std::to_string(line) + ": the key `" + sdk::shown(value) +
            "` is written twice in one mapping (lines " + std::to_string(it->second) + " and " +
            std::to_string(line) + "); only one of them would be read: delete the other");
    }
    leaf(mark, anchor, 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  // A node in the innermost container: in a map, keys and values alternate.
  void placed() {
    if (!open_.empty() && open_.back().map) open_.back().at_key = !open_.back().at_key;
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, uint64_t size) {
    count_written(mark);
    nodes_ = std::min(nodes_ + size, UINT64_MAX / 2);
    if (anchor != YAML::NullAnchor) sizes_[anchor] = size;
    placed();
  }
  // Every node the file writes (an alias counts once here; its expansion
  // is counted by OnAlias).
  void count_written(const YAML::Mark& mark) {
    if (++written_ <= kMaxYamlNodes) return;
    throw sdk::LimitError(file_ + ":" + std::to_string(mark.line + 1) + ": more than " +
                          std::to_string(kMaxYamlNodes) +
                          " YAML values; a training YAML holds a few hundred: give the framework's "
                          "config, not a data "
                          "file");
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    count_written(mark);
    if (static_cast<int>(open_.size()) >= kMaxYamlDepth)
      throw sdk::LimitError(
          file_ + ":" + std::to_string(mark.line + 1) + ": YAML nested more than " +
          std::to_string(kMaxYamlDepth) +
          " levels deep (mappings and lists inside each other); no config nests so deep: "
          "fix the file");
    Container c;
    c.map = map;
    c.anchor = anchor;
    c.nodes_at_start = nodes_;
    open_.push_back(std::move(c));
  }
  void close() {
    if (open_.empty()) return;
    const Container c = std::move(open_.back());
    open_.pop_back();
    nodes_ = std::min(nodes_ + 1, UINT64_MAX / 2);
    if (c.anchor != YAML::NullAnchor) sizes_[c.anchor] = nodes_ - c.nodes_at_start;
    placed();
  }

  const std::string& file_;
  std::vector<Container> open_;
  std::unordered_map<YAML::anchor_t, uint64_t> sizes_;  // nodes under each anchor, aliases expanded
  uint64_t nodes_ = 0;
  uint64_t alias_nodes_ = 0;
  uint64_t written_ = 0;
};

}  // namespace

void check_yaml(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  Checker checker(file);
  // A config is one document (a few at most). yaml-cpp 0.7 returns endless
  // empty documents for some malformed text (",g\v", found by the fuzzer),
  // each counted as a value: bounded here, well before the value limit.
  constexpr int kMaxYamlDocuments = 1024;
  int documents = 0;
  while (parser.HandleNextDocument(checker)) {
    if (++documents > kMaxYamlDocuments)
      throw sdk::LimitError(
          file + ": more than " + std::to_string(kMaxYamlDocuments) +
          " YAML documents; the YAML reader cannot get past the text it stops at: "
          "fix the file (a training config is one document)");
  }
}

}  // namespace ndsearch::plugins::yaml
