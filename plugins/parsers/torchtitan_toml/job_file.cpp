// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/torchtitan_toml/job_file.hpp"

#include <sstream>

namespace ndsearch::plugins::torchtitan {

JobFile::JobFile(std::string path) : path_(std::move(path)) {
  // Regular file, size limit, never blocking; toml++ itself refuses nesting
  // deeper than TOML_MAX_NESTED_VALUES (256), duplicated keys and bad UTF-8.
  const std::string text = sdk::read_config_file(path_, "TorchTitan job TOML");
  try {
    root_ = toml::parse(text, path_);
  } catch (const toml::parse_error& e) {
    std::ostringstream message;
    message << path_ << ":" << e.source().begin.line << ":" << e.source().begin.column
            << ": not valid TOML: " << e.description() << "; fix the TOML syntax on that line";
    throw sdk::Error(NDS_INVALID_ARGUMENT, message.str());
  }
}

const toml::node* JobFile::find(std::string_view field) const {
  return root_.at_path(field).node();
}

sdk::Where JobFile::where(std::string_view field) const {
  const toml::node* node = find(field);
  const int64_t line =
      node != nullptr && node->source().begin.line > 0 ? node->source().begin.line : NDS_UNKNOWN;
  return sdk::Where{path_, line, std::string(field), ""};
}

sdk::Where JobFile::derived(std::string_view field, const std::string& what) const {
  sdk::Where w = where(field);
  w.field += " (" + what + ")";
  return w;
}

std::optional<int64_t> JobFile::integer(std::string_view field) const {
  const toml::node* node = find(field);
  if (node == nullptr) return std::nullopt;
  if (!node->is_integer())
    fail(field, "expected a whole number; write it without quotes or a decimal point",
         node->is_number() ? NDS_OUT_OF_RANGE : NDS_INVALID_ARGUMENT);
  return node->value<int64_t>();
}

std::optional<std::string> JobFile::text(std::string_view field) const {
  const toml::node* node = find(field);
  if (node == nullptr) return std::nullopt;
  if (!node->is_string()) fail(field, "expected a string; write it in quotes");
  return node->value<std::string>();
}

std::optional<bool> JobFile::flag(std::string_view field) const {
  const toml::node* node = find(field);
  if (node == nullptr) return std::nullopt;
  if (!node->is_boolean()) fail(field, "expected true or false");
  return node->value<bool>();
}

std::optional<std::vector<std::string>> JobFile::texts(std::string_view field) const {
  const toml::node* node = find(field);
  if (node == nullptr) return std::nullopt;
  std::vector<std::string> items;
  if (const toml::array* list = node->as_array()) {
    for (const toml::node& item : *list) {
      if (!item.is_string()) fail(field, "expected a list of strings, e.g. [\"float8\"]");
      items.push_back(*item.value<std::string>());
    }
    return items;
  }
  if (!node->is_string()) fail(field, "expected a list of strings, e.g. [\"float8\"]");
  const std::string joined = *node->value<std::string>();
  size_t start = 0;
  while (start <= joined.size()) {
    size_t end = joined.find(',', start);
    if (end == std::string::npos) end = joined.size();
    std::string item = joined.substr(start, end - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) items.push_back(item);
    start = end + 1;
  }
  return items;
}

std::string JobFile::described(std::string_view field, const std::string& what) const {
  const toml::node* node = find(field);
  std::ostringstream message;
  message << path_;
  if (node != nullptr && node->source().begin.line > 0) message << ":" << node->source().begin.line;
  message << ": " << field;
  if (node != nullptr) message << " = " << shown(*node);
  message << ": " << what;
  return message.str();
}

void JobFile::fail(std::string_view field, const std::string& what, nds_status_code code) const {
  throw sdk::Error(code, described(field, what));
}

sdk::Where torchtitan_default() {
  return sdk::Where{"", NDS_UNKNOWN, "", "torchtitan"};
}

std::string shown(const toml::node& node) {
  // Never a whole table or array: it may be large.
  if (const toml::array* list = node.as_array())
    return "(an array of " + std::to_string(list->size()) + " items)";
  if (node.is_table()) return "(a table)";
  std::ostringstream text;
  node.visit([&](const auto& value) { text << value; });
  return sdk::shown(text.str());
}

}  // namespace ndsearch::plugins::torchtitan
