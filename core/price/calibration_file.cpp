// SPDX-License-Identifier: Apache-2.0
#include "core/price/calibration_file.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/config_file.hpp>  // read_config_file: regular files only, bounded

#include <cmath>
#include <sstream>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

const char* const kFix = "see docs/cli.md, \"Calibration\"";

[[noreturn]] void fail(const std::filesystem::path& file, const toml::node* at,
                       const std::string& what) {
  std::string where = file.string();
  if (at != nullptr && at->source().begin.line != 0)
    where += fmt::format(":{}:{}", at->source().begin.line, at->source().begin.column);
  throw UserError(kCalibrationErrorId, fmt::format("{}: {}", where, what));
}

std::string known_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

void only_known(const std::filesystem::path& file, const toml::table& table,
                const std::string& prefix, const std::vector<std::string>& known) {
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    bool ok = false;
    for (const std::string& k : known) ok = ok || k == name;
    if (!ok)
      fail(file, &node,
           fmt::format("unknown key `{}{}`; the known keys {} are: {} ({})", prefix, name,
                       prefix.empty() ? std::string("at the top level")
                                      : "of [" + prefix.substr(0, prefix.size() - 1) + "]",
                       known_list(known), kFix));
  }
}

const toml::table* subtable(const std::filesystem::path& file, const toml::table& parent,
                            const std::string& key, const std::string& dotted) {
  const toml::node* node = parent.get(key);
  if (node == nullptr) return nullptr;
  if (!node->is_table())
    fail(file, node,
         fmt::format("`{}` must be a table: write [{}] on a line of its own, then "
                     "its keys",
                     dotted, dotted));
  return node->as_table();
}

std::string text_field(const std::filesystem::path& file, const toml::table& table,
                       const std::string& key) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return {};
  if (!node->is_string())
    fail(file, node,
         fmt::format("`calibration.{}` must be a string (e.g. {} = \"...\")", key, key));
  return std::string(*node->value<std::string_view>());
}

// The allocator share as a factor, for its checks and its comment (it has
// no neutral value: absent is the shipped fit).
CalibrationFactor allocator_factor() {
  CalibrationFactor f;
  f.key = kAllocatorFactorKey;
  f.words = "the allocator's share of the dynamic memory (absent: the shipped fit)";
  f.neutral = kAllocatorShareLower;
  f.lower = kAllocatorShareLower;
  f.upper = kAllocatorShareUpper;
  return f;
}

// The factor's value at `node`, checked: a number, finite, within its bounds.
double factor_value(const std::filesystem::path& file, const toml::node& node,
                    const CalibrationFactor& factor) {
  const std::string dotted = "factors." + factor.key;
  const std::string neutral = factor.key == kAllocatorFactorKey
                                  ? std::string("leave it out for the shipped fit")
                                  : fmt::format("{} is neutral", factor.neutral);
  if (!node.is_number())
    fail(file, &node, fmt::format("`{}` ({}) must be a number; {}", dotted, factor.words, kFix));
  const double value = *node.value<double>();
  if (!std::isfinite(value))
    fail(file, &node,
         fmt::format("`{}` ({}) = {} is not finite; give a number in [{}, {}] ({})", dotted,
                     factor.words, value, factor.lower, factor.upper, neutral));
  if (value < factor.lower || value > factor.upper)
    fail(file, &node,
         fmt::format("`{}` ({}) = {} is outside its bounds [{}, {}]; give a value within them "
                     "({}), or fit the calibration again",
                     dotted, factor.words, value, factor.lower, factor.upper, neutral));
  return value;
}

void read_bandwidth(const std::filesystem::path& file, const toml::node& node,
                    const std::vector<CalibrationFactor>& factors, const Device& device,
                    Calibration& out) {
  const size_t levels = device.levels.size();
  if (!node.is_array())
    fail(file, &node,
         fmt::format("`factors.bandwidth` must be an array of {} numbers, one per topology level "
                     "of {} (innermost first)",
                     levels, device.id));
  const toml::array& array = *node.as_array();
  if (array.size() != levels)
    fail(file, &node,
         fmt::format("`factors.bandwidth` has {} element{}; {} has {} topology levels, so give {} "
                     "(innermost first, 1.0 for neutral)",
                     array.size(), array.size() == 1 ? "" : "s", device.id, levels, levels));
  for (const CalibrationFactor& f : factors)
    if (f.is_level) f.set(out, factor_value(file, array[f.level], f));
}

toml::table parsed(const std::string& text, const std::filesystem::path& file) {
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    throw UserError(
        kCalibrationErrorId,
        fmt::format("{}:{}:{}: not valid TOML: {}; {}", file.string(), e.source().begin.line,
                    e.source().begin.column, e.description(), kFix));
  }
  return root;
}

// The [calibration] table: which device, trainer and runs.
CalibrationFile header(const toml::table& root, const std::filesystem::path& file,
                       const Device& device) {
  only_known(file, root, "", {"calibration", "factors"});
  CalibrationFile out;
  out.path = file;
  const toml::table* head = subtable(file, root, "calibration", "calibration");
  if (head != nullptr) {
    only_known(file, *head, "calibration.", {"device", "trainer", "fitted_on"});
    out.device = text_field(file, *head, "device");
    out.trainer = text_field(file, *head, "trainer");
    out.fitted_on = text_field(file, *head, "fitted_on");
  }
  if (out.device.empty())
    fail(file, nullptr,
         fmt::format("`calibration.device` is missing; a calibration names the device it was "
                     "fitted on: add [calibration] device = \"{}\" if it was fitted on {}",
                     device.id, device.id));
  return out;
}

std::string file_text(const std::filesystem::path& file) {
  try {
    return sdk::read_config_file(file.string(), "calibration TOML");
  } catch (const sdk::Error& e) {
    throw UserError(kCalibrationErrorId, fmt::format("{}: {}", Setting("calibration").named(),
                                                     sdk::split_error_tag(e.what()).second));
  }
}

}  // namespace

CalibrationFile parse_calibration(const std::string& text, const std::filesystem::path& file,
                                  const Device& device) {
  const toml::table root = parsed(text, file);
  CalibrationFile out = header(root, file, device);
  const std::vector<CalibrationFactor> factors = calibration_factors(device);
  out.factors = identity_calibration(device);
  const toml::table* values = subtable(file, root, "factors", "factors");
  if (values == nullptr) return out;
  std::vector<std::string> scalar_keys{"bandwidth", "communication", kAllocatorFactorKey},
      comm_keys;
  for (const CalibrationFactor& f : factors) {
    if (f.is_comm)
      comm_keys.push_back(f.key.substr(f.key.find('.') + 1));
    else if (!f.is_level)
      scalar_keys.push_back(f.key);
  }
  only_known(file, *values, "factors.", scalar_keys);
  for (const CalibrationFactor& f : factors)
    if (!f.is_level && !f.is_comm)
      if (const toml::node* node = values->get(f.key))
        f.set(out.factors, factor_value(file, *node, f));
  if (const toml::node* node = values->get("bandwidth"))
    read_bandwidth(file, *node, factors, device, out.factors);
  if (const toml::node* node = values->get(kAllocatorFactorKey))
    out.factors.allocator_fraction = factor_value(file, *node, allocator_factor());
  if (const toml::table* comm = subtable(file, *values, "communication", "factors.communication")) {
    only_known(file, *comm, "factors.communication.", comm_keys);
    for (const CalibrationFactor& f : factors)
      if (f.is_comm)
        if (const toml::node* node = comm->get(f.key.substr(f.key.find('.') + 1)))
          f.set(out.factors, factor_value(file, *node, f));
  }
  return out;
}

CalibrationFile read_calibration(const std::filesystem::path& file, const Device& device) {
  return parse_calibration(file_text(file), file, device);
}

void check_calibration_device(const CalibrationFile& calibration, const Device& device,
                              bool force) {
  if (force || calibration.device == device.id) return;
  throw UserError(
      kCalibrationDeviceErrorId,
      fmt::format("{}: the calibration was fitted on {}, and {} is priced; its factors describe "
                  "that device's cluster. Fit one on {} (the fit of compare), or apply this one "
                  "anyway with {}",
                  calibration.path.string(), calibration.device, device.id, device.id,
                  Setting("force_calibration").named()));
}

std::string calibration_toml(const CalibrationFile& calibration, const Device& device,
                             const std::vector<std::string>& comment_lines) {
  std::ostringstream out;
  out << "# ndsearch calibration (docs/cli.md, \"Calibration\")\n";
  for (const std::string& line : comment_lines) out << "# " << line << "\n";
  auto quoted = [](const std::string& s) {
    return toml::value<std::string>(s);  // TOML's own escaping
  };
  out << "[calibration]\ndevice = " << quoted(calibration.device) << "\n";
  if (!calibration.trainer.empty()) out << "trainer = " << quoted(calibration.trainer) << "\n";
  if (!calibration.fitted_on.empty())
    out << "fitted_on = " << quoted(calibration.fitted_on) << "\n";
  const std::vector<CalibrationFactor> factors = calibration_factors(device);
  auto comment = [](const CalibrationFactor& f) {
    return fmt::format("  # {}, in [{}, {}]", f.words, f.lower, f.upper);
  };
  out << "\n[factors]\n";
  for (const CalibrationFactor& f : factors)
    if (!f.is_level && !f.is_comm)
      out << fmt::format("{} = {}{}\n", f.key, f.get(calibration.factors), comment(f));
  if (!device.levels.empty()) {
    std::string values;
    for (size_t i = 0; i < device.levels.size(); ++i)
      values += fmt::format("{}{}", i == 0 ? "" : ", ", calibration.factors.level_bandwidth(i));
    out << fmt::format("bandwidth = [{}]  # per topology level, innermost first\n", values);
    for (const CalibrationFactor& f : factors)
      if (f.is_level)
        out << fmt::format("# {}: {}, in [{}, {}]\n", f.key, f.words, f.lower, f.upper);
  }
  if (calibration.factors.allocator_fraction)
    out << fmt::format("{} = {}{}\n", kAllocatorFactorKey, *calibration.factors.allocator_fraction,
                       comment(allocator_factor()));
  out << "\n[factors.communication]\n";
  for (const CalibrationFactor& f : factors)
    if (f.is_comm)
      out << fmt::format("{} = {}{}\n", f.key.substr(f.key.find('.') + 1),
                         f.get(calibration.factors), comment(f));
  return out.str();
}

std::optional<AppliedCalibration> load_calibration(const std::filesystem::path& file,
                                                   const Device& device, bool force) {
  if (file.empty()) return std::nullopt;
  const std::string text = file_text(file);
  // The device first: a file fitted on another device says so, rather than
  // that its bandwidth array does not match this device's levels.
  check_calibration_device(header(parsed(text, file), file, device), device, force);
  AppliedCalibration applied{parse_calibration(text, file, device), false};
  applied.forced = applied.file.device != device.id;
  return applied;
}

Calibration calibration_factors_of(const std::optional<AppliedCalibration>& applied) {
  return applied ? applied->file.factors : Calibration{};
}

void apply_memory_calibration(Model& model, const std::optional<AppliedCalibration>& applied) {
  if (!applied || !applied->file.factors.allocator_fraction) return;
  model.allocator_fraction = applied->file.factors.allocator_fraction;
  model.allocator_fraction_source = "the calibration " + applied->file.path.string();
}

}  // namespace ndsearch
