// SPDX-License-Identifier: Apache-2.0
#include "core/memory/budget.hpp"

#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/units.hpp>

#include <fmt/format.h>

#include <cmath>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr double kGiB = sdk::kBytesPerGiB;
// The most memory a device may claim (-M, --reserve-mem, a config's device
// memory): 1 PiB, ~3,600 times today's largest HBM (288 GiB), so that a typo
// or a size that overflows while it is read cannot make everything fit.
constexpr double kMaxDeviceBytes = 1024.0 * 1024 * kGiB;

double size_setting(const Setting& setting, const std::string& text) {
  if (text.find('-') != std::string::npos)
    throw UserError("E-BUDGET",
                    fmt::format("{}: a memory size is at least 0; give one such as 58GB (GiB)",
                                setting.named(text)));
  auto bytes = sdk::memory_size_bytes(text);
  if (!bytes)
    throw UserError("E-USAGE",
                    fmt::format("{}: expected a size such as 58GB (GiB), 512MiB or 80GiB",
                                setting.named(text)));
  const double value = static_cast<double>(*bytes);
  // A size too large to read overflows to a negative count.
  if (!(value >= 0) || value > kMaxDeviceBytes)
    throw UserError("E-BUDGET",
                    fmt::format("{}: above ndsearch's limit of {:.0f} GiB (1 PiB) per device",
                                setting.named(text), kMaxDeviceBytes / kGiB));
  return value;
}

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / kGiB); }

}  // namespace

Budget memory_budget(const Device& device, const Model& model, const std::optional<std::string>& max_memory,
                     const std::optional<std::string>& reserve_mem) {
  Budget b;
  if (max_memory) {
    b.capacity_bytes = size_setting(Setting("max_memory"), *max_memory);
    b.capacity_source = Setting("max_memory").named();
  } else if (model.training.device_memory_bytes != NDS_UNKNOWN) {
    b.capacity_bytes = static_cast<double>(model.training.device_memory_bytes);
    auto it = model.training_provenance.find("device_memory_bytes");
    const std::string where = it == model.training_provenance.end() ? model.file : it->second;
    // A parser's "default:<trainer>": the config sets none, the trainer's default applies.
    b.capacity_source =
        where.rfind("default:", 0) == 0
            ? fmt::format("{}'s default device memory (the config sets none)", where.substr(8))
            : "config: " + where;
    if (b.capacity_bytes > kMaxDeviceBytes)
      throw UserError("E-BUDGET",
                      fmt::format("{}: device_memory_bytes = {} ({}) is above ndsearch's limit of "
                                  "{} per device; fix the config or set {}",
                                  model.file, model.training.device_memory_bytes, b.capacity_source,
                                  gib(kMaxDeviceBytes), Setting("max_memory").named()));
  } else {
    b.capacity_bytes = static_cast<double>(device.memory_bytes);
    b.capacity_source = "device " + device.id;
  }
  b.reserved_bytes = static_cast<double>(device.reserved_bytes);
  if (reserve_mem) b.reserve_mem_bytes = size_setting(Setting("reserve_mem"), *reserve_mem);
  b.budget_bytes = b.capacity_bytes - b.reserved_bytes - b.reserve_mem_bytes;
  // A budget of nothing (or less) makes every answer meaningless: nothing
  // fits, or, where a pass prices 0 bytes, everything does.
  if (!(b.budget_bytes > 0))
    throw UserError(
        "E-BUDGET",
        fmt::format(
            "no memory left to train in: {} of memory from {} less the device's {} runtime "
            "reserve{} leaves "
            "{}; raise {}{}",
            gib(b.capacity_bytes),
            max_memory ? Setting("max_memory").named(*max_memory) : b.capacity_source,
            gib(b.reserved_bytes),
            reserve_mem ? fmt::format(" and {}, {},", Setting("reserve_mem").named(*reserve_mem),
                                      gib(b.reserve_mem_bytes))
                        : std::string(),
            gib(b.budget_bytes), Setting("max_memory").named(),
            reserve_mem ? fmt::format(" or lower {}", Setting("reserve_mem").named()) : ""));
  return b;
}

}  // namespace ndsearch
