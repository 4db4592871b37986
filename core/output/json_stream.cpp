// SPDX-License-Identifier: Apache-2.0
#include "core/output/json_stream.hpp"

#include <stdexcept>

#include "core/output/json_text.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

constexpr int kIndent = 2;  // dump(2)

JsonObjectStream::JsonObjectStream(std::ostream& out) : out_(out) {
  out_ << '{';
}

void JsonObjectStream::key(const std::string& name) {
  // dump() writes an object's keys sorted; any other order would differ
  // from it (a bug of the caller, not of the input).
  if (!empty_ && !(last_key_ < name))
    throw std::logic_error("JsonObjectStream: key \"" + name + "\" out of order after \"" +
                           last_key_ + "\"");
  out_ << (empty_ ? "\n" : ",\n") << std::string(kIndent, ' ') << json_text(nlohmann::json(name))
       << ": ";
  last_key_ = name;
  empty_ = false;
}

void JsonObjectStream::value(const nlohmann::json& value, int depth) {
  // A dumped value holds newlines only between its lines (a newline inside a
  // string is written "\n"): indent after each.
  const std::string text = json_text(value, kIndent);
  const std::string indent(static_cast<size_t>(depth * kIndent), ' ');
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out_ << std::string_view(text).substr(start, nl + 1 - start) << indent;
  out_ << std::string_view(text).substr(start);
}

void JsonObjectStream::field(const std::string& name, const nlohmann::json& v) {
  key(name);
  value(v, 1);
}

void JsonObjectStream::array_field(const std::string& name, size_t rows,
                                   const std::function<nlohmann::json(size_t)>& row) {
  key(name);
  if (rows == 0) {
    out_ << "[]";
    return;
  }
  out_ << '[';
  in_array_ = true;
  array_rows_ = 0;
  const std::string indent(2 * kIndent, ' ');
  for (size_t i = 0; i < rows; ++i) {
    const nlohmann::json formatted = row(i);  // may throw: nothing of the row written yet
    out_ << (i == 0 ? "\n" : ",\n") << indent;
    value(formatted, 2);
    ++array_rows_;
  }
  in_array_ = false;
  out_ << '\n' << std::string(kIndent, ' ') << ']';
}

void JsonObjectStream::close() {
  out_ << (empty_ ? "}" : "\n}") << '\n';
}

void JsonObjectStream::fail(const std::string& id, const std::string& message) {
  if (in_array_) {
    if (array_rows_ > 0) out_ << '\n' << std::string(kIndent, ' ');
    out_ << ']';
    in_array_ = false;
  }
  out_ << (empty_ ? "\n" : ",\n") << std::string(kIndent, ' ') << "\"error\": ";
  empty_ = false;
  value(nlohmann::json{{"id", id}, {"message", message}}, 1);
  close();
}

void write_json_object(std::ostream& out, const std::function<void(JsonObjectStream&)>& body) {
  JsonObjectStream stream(out);
  try {
    body(stream);
  } catch (const UserError& e) {
    stream.fail(e.id(), e.what());
    throw;
  } catch (const std::exception& e) {
    stream.fail("E-INTERNAL", e.what());
    throw;
  }
}

}  // namespace ndsearch
