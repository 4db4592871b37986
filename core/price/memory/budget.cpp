// SPDX-License-Identifier: Apache-2.0
#include "core/price/memory/budget.hpp"

#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/units.hpp>

#include <fmt/format.h>

#include <cmath>

#include "core/model/params.hpp"
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

std::string gib(double bytes) {
  return fmt::format("{:.2f} GiB", bytes / kGiB);
}

}  // namespace

Budget memory_budget(const Device& device, const Model& model,
                     const std::optional<std::string>& max_memory,
                     const std::optional<std::string>& reserve_mem) {
  Budget b;
  b.reserved_bytes = static_cast<double>(device.reserved_bytes);
  if (max_memory) {
    b.capacity_bytes = size_setting(Setting("max_memory"), *max_memory);
    b.capacity_source = Setting("max_memory").named();
    b.typed = true;
  } else if (model.training.device_memory_bytes != NDS_UNKNOWN) {
    b.capacity_bytes = static_cast<double>(model.training.device_memory_bytes);
    const std::string where = training_source(model, "device_memory_bytes", model.file);
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
    // A config's device memory is MindSpore's max_device_memory, the only
    // parsers that state one: the pool the runtime leaves once the driver and
    // HCCL have theirs, so the device's reserve is not taken off again
    // (DESIGN §8.4). MindSpore uses the smaller of it and the memory the
    // device has free (max_device_memory, mindspore.set_context / runtime
    // docs), so no more than the device less its reserve.
    const double device_free = static_cast<double>(device.memory_bytes) - b.reserved_bytes;
    if (b.capacity_bytes > device_free) {
      b.capacity_source +=
          fmt::format(", more than the {} device {} leaves; that", gib(device_free), device.id);
      b.capacity_bytes = device_free;
    }
    b.capacity_source += " (the runtime's pool: the device's reserve is outside it)";
    b.reserved_bytes = 0;
    b.typed = true;
  } else {
    b.capacity_bytes = static_cast<double>(device.memory_bytes);
    b.capacity_source = "device " + device.id;
  }
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

void check_budget_holds_weights(const Budget& budget, const Model& model, uint64_t devices) {
  // The device's own memory is no typed size: a model too large for the
  // machine is "nothing fits" (exit 3, the closest misses), not bad input.
  if (!budget.typed) return;
  const auto params = count_parameters(model);
  if (!params || devices == 0) return;  // priced elsewhere: E-PRICING-VALUES names what is missing
  const double total = params->with_towers(params->total + params->mtp);
  const double bytes = sdk::dtype_bytes(model.training.params_dtype);
  const double least = total * bytes / static_cast<double>(devices);
  if (budget.budget_bytes >= least) return;
  throw UserError(
      "E-BUDGET",
      fmt::format(
          "{} of memory from {} leaves a budget of {}, below the {} the weights alone take on "
          "each of {} devices even with every parameter sharded over all of them ({:.4g} "
          "parameters of {} bytes); fix that size, or train on more devices",
          gib(budget.capacity_bytes), budget.capacity_source, gib(budget.budget_bytes), gib(least),
          devices, total, bytes));
}

}  // namespace ndsearch
