// SPDX-License-Identifier: Apache-2.0
#include "plugins/hardware/toml_device/device_file.hpp"

#include <toml++/toml.h>
#include <ndsearch/sdk/config_file.hpp>  // read_config_file: regular files only, bounded
#include <ndsearch/sdk/units.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "plugins/common/devices/shipped_devices.hpp"

namespace ndsearch::plugins::toml_device {
namespace {

// The shipped devices' ids, comma-separated, for an error that names them.
std::string shipped_ids_text() {
  std::string known;
  for (const std::string& id : shipped_device_ids()) known += (known.empty() ? "" : ", ") + id;
  return known;
}

constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB
// 1 PiB per device, the memory budget's own limit (core/price/memory/budget.cpp):
// above it llround(v * kGiB) leaves int64 and every model would "fit".
constexpr double kMaxMemoryGib = 1024.0 * 1024.0;
// Longer ids are not names; and std::regex recurses once per character.
constexpr size_t kMaxDeviceIdLength = 128;

// Reads one file, remembering its name for every message.
class Reader {
 public:
  explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::node* at, const std::string& what) const {
    std::ostringstream message;
    message << file_.string();
    if (at != nullptr && at->source().begin.line > 0) message << ":" << at->source().begin.line;
    message << ": " << what;
    throw DeviceFileError(message.str());
  }

  // Keys of `table` must be among `known`; `where` prefixes the key in messages.
  void only_known(const toml::table& table, const std::set<std::string>& known,
                  const std::string& where) const {
    for (const auto& [key, node] : table) {
      if (known.count(std::string(key.str())) == 0) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        fail(&node,
             "unknown key `" + where + std::string(key.str()) + "`; the keys here are: " + list);
      }
    }
  }

  std::optional<std::string> text(const toml::table& t, const char* key,
                                  const std::string& where) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_string()) fail(node, "`" + where + key + "` must be a string");
    return node->value<std::string>();
  }

  // A number (integer or float) > 0, or >= 0 when `zero_ok`, and at most `at_most`.
  std::optional<double> number(const toml::table& t, const char* key, const std::string& where,
                               const char* expected, bool zero_ok = false,
                               double at_most = std::numeric_limits<double>::infinity()) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    std::optional<double> value = node->value<double>();
    if (!value || !std::isfinite(*value) || *value < 0 || (*value == 0 && !zero_ok) ||
        *value > at_most)
      bad_value(node, where + key, expected);
    return value;
  }

  [[noreturn]] void bad_value(const toml::node* node, const std::string& key,
                              const char* expected) const {
    std::ostringstream shown;
    node->visit([&shown](const auto& v) { shown << v; });
    fail(node, "`" + key + "` = " + shown.str() + ": expected " + expected);
  }

  // A curve table: `x_key` (ascending, > 0) and `fraction` (each in (0, 1]).
  sdk::Curve curve(const toml::table& t, const std::string& where, const std::string& x_key) const {
    only_known(t, {x_key, "fraction"}, where);
    sdk::Curve c;
    for (const std::string& key : {x_key, std::string("fraction")}) {
      const toml::array* values = t.get_as<toml::array>(key);
      if (values == nullptr) fail(&t, "`" + where + key + "` must be an array of numbers");
      auto& out = key == x_key ? c.x : c.y;
      for (const toml::node& v : *values) {
        std::optional<double> x = v.value<double>();
        if (!x) fail(&v, "`" + where + key + "` holds a value that is not a number");
        out.push_back(*x);
      }
    }
    if (c.x.size() != c.y.size() || c.x.empty())
      fail(&t, "`" + where + x_key + "` and `" + where +
                   "fraction` must have the same number (> 0) of points");
    for (size_t i = 0; i < c.x.size(); ++i) {
      if (!(c.x[i] > 0) || !std::isfinite(c.x[i]))
        fail(&t, "`" + where + x_key + "` values must be > 0");
      if (i > 0 && !(c.x[i] > c.x[i - 1]))
        fail(&t, "`" + where + x_key + "` must be strictly ascending");
      if (!(c.y[i] > 0 && c.y[i] <= 1))
        fail(&t, "`" + where + "fraction` values must be in (0, 1]");
    }
    return c;
  }

  // [<name>.<dtype>] curve tables, each for a dtype of [peak_tflops] (or of the base).
  void dtype_curves(const toml::table& root, const char* name, const std::string& x_key,
                    sdk::Curve sdk::DtypePeak::*member, std::vector<sdk::DtypePeak>& peaks) const {
    const toml::node* node = root.get(name);
    if (node == nullptr) return;
    const toml::table* curves = node->as_table();
    if (curves == nullptr)
      fail(node, "`" + std::string(name) + "` must be a table of [" + name + ".<dtype>] tables");
    for (const auto& [dtype, value] : *curves) {
      const std::string key = std::string(name) + "." + std::string(dtype.str());
      // A named copy: lambdas capturing structured bindings are C++20 (clang 14 refuses them).
      const std::string_view dtype_name = dtype.str();
      auto it = std::find_if(peaks.begin(), peaks.end(),
                             [&](const auto& p) { return p.dtype == dtype_name; });
      if (it == peaks.end())
        fail(&value,
             "`" + key + "` has no peak: add `" + std::string(dtype.str()) + "` to [peak_tflops]");
      if (!value.is_table()) fail(&value, "`" + key + "` must be a table");
      (*it).*member = curve(*value.as_table(), key + ".", x_key);
    }
  }

  // An efficiency in (0, 1]: leaving the key out, not 0, asks for the default.
  std::optional<double> fraction(const toml::table& t, const char* key, const std::string& where,
                                 const char* expected) const {
    return number(t, key, where, expected, false, 1.0);
  }

  std::vector<sdk::TopologyLevel> levels(const toml::array& array) const {
    std::vector<sdk::TopologyLevel> levels;
    for (size_t i = 0; i < array.size(); ++i) {
      const std::string where = "levels[" + std::to_string(i) + "].";
      const toml::table* t = array.get(i)->as_table();
      if (t == nullptr) fail(array.get(i), "`levels` must be an array of tables ([[levels]])");
      only_known(*t,
                 {"devices", "kind", "link_gb_per_s", "device_gb_per_s", "latency_us", "name",
                  "bus_efficiency", "all_reduce_speedup", "half_bandwidth_bytes"},
                 where);
      sdk::TopologyLevel level;
      const std::optional<double> devices =
          number(*t, "devices", where, "a whole number of devices (0 = unbounded)", true);
      if (!devices || *devices != std::floor(*devices) || *devices > 1e9)
        fail(t, "`" + where +
                    "devices` is missing or not a whole number: the cumulative number of "
                    "devices this level joins (8 for an 8-device node, 0 = unbounded)");
      level.group_devices = static_cast<uint32_t>(*devices);
      const std::string kind = text(*t, "kind", where).value_or("");
      if (kind == "switch")
        level.link_kind = NDS_LINK_SWITCH;
      else if (kind == "mesh")
        level.link_kind = NDS_LINK_MESH;
      else
        fail(t, "`" + where + "kind` = \"" + kind + "\": expected \"switch\" or \"mesh\"");
      const auto link =
          number(*t, "link_gb_per_s", where, "a bandwidth in GB/s per direction, > 0");
      const auto device =
          number(*t, "device_gb_per_s", where, "a bandwidth in GB/s per direction, > 0");
      if (!link || !device)
        fail(t, "`" + where + "link_gb_per_s` and `" + where +
                    "device_gb_per_s` are both required (GB/s per direction)");
      level.link_bandwidth_bytes_per_s = *link * 1e9;
      level.device_bandwidth_bytes_per_s = *device * 1e9;
      level.latency_s =
          number(*t, "latency_us", where, "a latency in microseconds, >= 0", true).value_or(0) *
          1e-6;
      level.name = text(*t, "name", where).value_or("");
      static constexpr char kBusEfficiency[] =
          "the fraction of device_gb_per_s large collectives reach (nccl-tests busbw), in (0, 1]; "
          "leave it out for the default 0.8";
      level.bus_efficiency = fraction(*t, "bus_efficiency", where, kBusEfficiency).value_or(0);
      static constexpr char kSpeedup[] =
          "the all-reduce bus bandwidth with in-network reduction (NVLS, SHARP) over the ring's, "
          ">= 1; leave it out for none";
      level.all_reduce_speedup = number(*t, "all_reduce_speedup", where, kSpeedup).value_or(0);
      if (level.all_reduce_speedup > 0 && level.all_reduce_speedup < 1)
        bad_value(t->get("all_reduce_speedup"), where + "all_reduce_speedup", kSpeedup);
      static constexpr char kHalfBandwidth[] =
          "the message size in bytes at which a collective reaches half its bus bandwidth, >= 0; "
          "leave it out (or 0) for every size at the plateau";
      level.half_bandwidth_bytes =
          number(*t, "half_bandwidth_bytes", where, kHalfBandwidth, true).value_or(0);
      if (!levels.empty()) {
        const uint32_t previous = levels.back().group_devices;
        if (previous == 0)
          fail(t, "`levels[" + std::to_string(i - 1) +
                      "].devices` = 0 (unbounded) must be the last level");
        if (level.group_devices != 0 && level.group_devices <= previous)
          fail(t, "`" + where + "devices` = " + std::to_string(level.group_devices) +
                      " is not more than `levels[" + std::to_string(i - 1) +
                      "].devices` = " + std::to_string(previous) +
                      ": levels are listed from the inside out and each joins more devices");
      }
      levels.push_back(level);
    }
    return levels;
  }

  sdk::Device read() const {
    toml::table root;
    // The configs' safe reader: a FIFO, a directory or a device (a /dev/zero
    // link) is named, never read, and the file is bounded in size.
    std::string source;
    try {
      source = sdk::read_config_file(file_.string(), "device TOML");
    } catch (const sdk::Error& e) {
      throw DeviceFileError(sdk::split_error_tag(e.what()).second);  // E-DEVICE-FILE names it
    }
    try {
      root = toml::parse(source, file_.string());
    } catch (const toml::parse_error& e) {
      std::ostringstream message;
      message << file_.string() << ":" << e.source().begin.line << ":" << e.source().begin.column
              << ": not valid TOML: " << e.description();
      throw DeviceFileError(message.str());
    }
    only_known(
        root,
        {"id", "base", "name", "vendor", "memory_gib", "reserved_gib", "memory_bandwidth_gb_per_s",
         "memory_bandwidth_efficiency", "host_link_gb_per_s", "assumes", "overheads_of",
         "peak_tflops", "matmul_efficiency", "matmul_small_dim_efficiency",
         "attention_forward_efficiency", "attention_backward_efficiency", "levels"},
        "");
    sdk::Device d;
    const std::optional<std::string> base = text(root, "base", "");
    if (base) {
      std::optional<sdk::Device> shipped = shipped_device(*base);
      if (!shipped)
        fail(root.get("base"), "`base` = \"" + *base +
                                   "\" is not a shipped device; use one of: " + shipped_ids_text());
      d = std::move(*shipped);
    }
    const std::optional<std::string> id = text(root, "id", "");
    static const std::regex id_pattern("[a-z0-9][a-z0-9._-]*");
    if (!id)
      fail(nullptr,
           "missing key `id`: the id that selects it as the device (`device`), e.g. id = "
           "\"acme-x1\"");
    // libstdc++'s regex recurses once per character: the length first.
    if (id->size() > kMaxDeviceIdLength)
      fail(root.get("id"), "`id` is " + std::to_string(id->size()) +
                               " characters long; use at most " +
                               std::to_string(kMaxDeviceIdLength));
    if (!std::regex_match(*id, id_pattern))
      fail(root.get("id"),
           "`id` = \"" + *id + "\": use lower-case letters, digits, '.', '_' and '-'");
    if (base && *id == *base)
      fail(root.get("id"), "`id` = \"" + *id +
                               "\" is the id of its base; name the variant (e.g. \"" + *id +
                               "-mycluster\")");
    d.id = *id;
    // A variant of a shipped device shares its trainer fits (ABI 1.15) unless
    // it names another shipped device's.
    if (base && d.overheads_of.empty()) d.overheads_of = *base;
    if (auto v = text(root, "overheads_of", "")) {
      if (!shipped_device(*v))
        fail(root.get("overheads_of"),
             "`overheads_of` = \"" + *v +
                 "\" is not a shipped device, whose trainer fits it would share; use one of: " +
                 shipped_ids_text());
      d.overheads_of = *v;
    }
    if (auto v = text(root, "name", "")) d.name = *v;
    if (auto v = text(root, "vendor", "")) d.vendor = *v;
    if (auto v = text(root, "assumes", "")) d.assumes = *v;
    if (auto v = number(root, "memory_gib", "", "an HBM capacity in GiB, > 0")) {
      if (*v > kMaxMemoryGib)
        fail(root.get("memory_gib"),
             "`memory_gib` = " + std::to_string(*v) + ": above " +
                 std::to_string(static_cast<int64_t>(kMaxMemoryGib)) +
                 " GiB (1 PiB, the budget's own limit); give the device's HBM in GiB");
      d.memory_bytes = static_cast<uint64_t>(std::llround(*v * kGiB));
    }
    if (auto v = number(root, "reserved_gib", "", "GiB reserved by the runtime, >= 0", true))
      d.reserved_bytes = static_cast<uint64_t>(std::llround(*v * kGiB));
    if (auto v = number(root, "memory_bandwidth_gb_per_s", "", "an HBM bandwidth in GB/s, > 0"))
      d.memory_bandwidth_bytes_per_s = *v * 1e9;
    if (auto v =
            fraction(root, "memory_bandwidth_efficiency", "",
                     "the fraction of memory_bandwidth_gb_per_s a STREAM triad reaches, in (0, 1]; "
                     "leave it out for the default 0.85"))
      d.memory_bandwidth_efficiency = *v;
    if (auto v = number(root, "host_link_gb_per_s", "",
                        "a host link bandwidth in GB/s per direction, >= 0", true))
      d.host_link_bytes_per_s = *v * 1e9;
    if (const toml::node* node = root.get("peak_tflops")) {
      const toml::table* peaks = node->as_table();
      if (peaks == nullptr) fail(node, "`peak_tflops` must be a table: [peak_tflops] bf16 = 989.4");
      only_known(*peaks, {"fp32", "tf32", "bf16", "fp16", "fp8"}, "peak_tflops.");
      for (const auto& [dtype, value] : *peaks) {
        const std::string key(dtype.str());
        const double tflops =
            *number(*peaks, key.c_str(), "peak_tflops.", "a dense peak in TFLOP/s, > 0");
        auto same = [&](const sdk::DtypePeak& p) { return p.dtype == key; };
        auto it = std::find_if(d.peaks.begin(), d.peaks.end(), same);
        if (it == d.peaks.end()) it = d.peaks.insert(d.peaks.end(), sdk::DtypePeak{key, 0, {}});
        it->peak_flops_per_s = tflops * 1e12;
      }
    }
    dtype_curves(root, "matmul_efficiency", "gemm_flops", &sdk::DtypePeak::matmul_efficiency,
                 d.peaks);
    dtype_curves(root, "matmul_small_dim_efficiency", "smallest_dim",
                 &sdk::DtypePeak::matmul_small_dim_efficiency, d.peaks);
    dtype_curves(root, "attention_forward_efficiency", "seq_len",
                 &sdk::DtypePeak::attention_forward_efficiency, d.peaks);
    dtype_curves(root, "attention_backward_efficiency", "seq_len",
                 &sdk::DtypePeak::attention_backward_efficiency, d.peaks);
    if (const toml::node* node = root.get("levels")) {
      const toml::array* array = node->as_array();
      if (array == nullptr || array->empty())
        fail(node, "`levels` must be a non-empty array of tables ([[levels]])");
      d.levels = levels(*array);
    }
    required(d, base.has_value());
    d.source = file_.string();
    return d;
  }

  // What a device without a base must state, and what any device must make sense of.
  void required(const sdk::Device& d, bool has_base) const {
    const std::string hint = has_base ? "" : ", or start from a shipped device with base = \"...\"";
    auto missing = [&](const char* key, const char* what) {
      fail(nullptr, std::string("missing key `") + key + "` (" + what + ")" + hint);
    };
    if (d.name.empty()) missing("name", "the display name");
    if (d.vendor.empty()) missing("vendor", "who makes it");
    if (d.memory_bytes == 0) missing("memory_gib", "HBM capacity in GiB");
    if (d.memory_bandwidth_bytes_per_s == 0)
      missing("memory_bandwidth_gb_per_s", "HBM bandwidth in GB/s");
    if (d.peaks.empty()) missing("peak_tflops", "dense peak TFLOP/s per dtype");
    if (d.levels.empty()) missing("levels", "the topology, [[levels]] from the inside out");
    if (d.levels.back().group_devices != 0)
      fail(nullptr, "the last of `levels` joins " + std::to_string(d.levels.back().group_devices) +
                        " devices; the outermost level must be unbounded (devices = 0)");
    if (d.reserved_bytes >= d.memory_bytes)
      fail(nullptr, "`reserved_gib` leaves no memory: it must be less than `memory_gib`");
  }

 private:
  std::filesystem::path file_;
};

}  // namespace

sdk::Device read_device_file(const std::filesystem::path& file) {
  return Reader(file).read();
}

}  // namespace ndsearch::plugins::toml_device
