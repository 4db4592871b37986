// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/conformance.hpp"

#include <fmt/format.h>

#include <unistd.h>  // mkstemp, close, unlink
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/hardware/device.hpp"
#include "core/model/builder.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/plugin_host/sample_configs.hpp"
#include "core/plugin_host/sample_inputs.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr const char* kConformance = "E-PLUGIN-CONFORMANCE";

// Runs one named check: `body` returns "" on success or what is wrong.
class Checker {
 public:
  explicit Checker(const CheckReporter& report) : report_(report) {}
  template <class Body>
  bool run(const std::string& check, Body&& body) {
    report_({CheckEvent::Kind::begin, check, "", ""});
    std::string problem;
    std::string error_id = kConformance;
    try {
      problem = body();
    } catch (const UserError& e) {
      problem = e.what();
      error_id = e.id();
    } catch (const std::exception& e) {
      problem = std::string("unexpected error: ") + e.what();
    }
    if (problem.empty()) {
      report_({CheckEvent::Kind::pass, check, "", ""});
      return true;
    }
    report_({CheckEvent::Kind::fail, check, problem, error_id});
    all_passed_ = false;
    return false;
  }
  bool all_passed() const { return all_passed_; }

 private:
  const CheckReporter& report_;
  bool all_passed_ = true;
};

std::string joined(const std::vector<std::string>& problems) {
  std::string text;
  for (const std::string& p : problems) text += (text.empty() ? "" : "; ") + p;
  return text;
}

void check_hardware(Checker& checker, const LoadedPlugin& plugin) {
  const nds_hardware_v1& hw = *plugin.interfaces.hardware;
  const nds_device* const* devices = nullptr;
  size_t count = 0;
  const bool listed = checker.run("hardware.get_devices", [&]() -> std::string {
    StatusPtr failure(hw.get_devices(&devices, &count));
    if (failure) return fmt::format("get_devices failed: {}", failure->message);
    if (count > 0 && devices == nullptr) return "get_devices returned a NULL array";
    return "";
  });
  // A plugin whose devices come from its options (toml-device) may describe
  // none; there is nothing more to check then.
  if (!listed || count == 0) return;
  checker.run("hardware.devices", [&]() -> std::string {
    std::vector<std::string> problems;
    std::vector<std::string> ids;
    for (size_t i = 0; i < count; ++i) {
      if (devices[i] == nullptr) {
        problems.push_back(fmt::format("device pointer {} is NULL", i));
        continue;
      }
      Device d = copy_device(*devices[i], plugin.id);
      for (const std::string& id : ids)
        if (id == d.id) problems.push_back(fmt::format("device id {} appears twice", d.id));
      ids.push_back(d.id);
      for (std::string& p : device_problems(d)) problems.push_back(std::move(p));
    }
    return joined(problems);
  });
  checker.run("hardware.stable", [&]() -> std::string {
    const nds_device* const* again = nullptr;
    size_t again_count = 0;
    StatusPtr failure(hw.get_devices(&again, &again_count));
    if (failure) return fmt::format("a second get_devices failed: {}", failure->message);
    if (again != devices || again_count != count)
      return "a second get_devices returned another table; tables must stay valid and "
             "unchanged until shutdown";
    return "";
  });
  const bool devices_valid = checker.all_passed();
  if (devices_valid && NDS_HAS_FIELD(&hw, nds_hardware_v1, estimate_gemm) &&
      hw.estimate_gemm != nullptr) {
    checker.run("hardware.estimate_gemm", [&]() -> std::string {
      nds_gemm_query query{sizeof(nds_gemm_query), devices[0], "bf16", 4096, 4096, 4096, 1};
      double seconds = -1;
      nds_status_code code = NDS_INTERNAL;
      hw.estimate_gemm(&query, 1, sizeof(query), &seconds, &code);
      if (code == NDS_UNSUPPORTED) return "";
      if (code != NDS_OK) return fmt::format("code {} for a 4096³ bf16 GEMM", code);
      if (!(std::isfinite(seconds) && seconds > 0))
        return fmt::format("{} s for a 4096³ bf16 GEMM (must be finite and > 0)", seconds);
      return "";
    });
  }
}

// Parses one config: the one given (--sample-config), else the sample the
// parser is most sure of, else the empty file. A status is an answer (the
// sample may hold less than the parser needs); a crash or a hang is not.
void check_parse(Checker& checker, const LoadedPlugin& plugin,
                 const std::optional<std::filesystem::path>& sample_config) {
  const nds_parser_v1& parser = *plugin.interfaces.parser;
  SampleConfigs samples;
  std::filesystem::path chosen;
  if (sample_config) {
    chosen = *sample_config;
  } else {
    double best = 0;
    for (const std::filesystem::path& file : samples.files()) {
      double confidence = 0;
      StatusPtr failure(parser.probe(file.c_str(), &confidence));
      if (!failure && confidence > best) {
        best = confidence;
        chosen = file;
      }
    }
    if (chosen.empty() && !samples.files().empty()) chosen = samples.files().back();
  }
  if (chosen.empty()) return;  // no temporary directory to write the samples in
  checker.run("parser.parse-sample", [&]() -> std::string {
    Model model;
    ModelBuilder builder(model, plugin.id, /*strict=*/false);
    StatusPtr failure(parser.parse(chosen.c_str(), &builder.table()));
    if (failure && failure->message.empty())
      return fmt::format(
          "parse of {} failed with an empty message; a status must name the file, "
          "the field and the fix",
          chosen.filename().string());
    return "";
  });
}

void check_parser(Checker& checker, const LoadedPlugin& plugin,
                  const std::optional<std::filesystem::path>& sample_config) {
  const nds_parser_v1& parser = *plugin.interfaces.parser;
  checker.run("parser.format", [&]() -> std::string {
    return parser.format != nullptr && parser.format[0] != '\0' ? "" : "format is empty";
  });
  checker.run("parser.probe-missing-file", [&]() -> std::string {
    double confidence = -1;
    StatusPtr failure(parser.probe("/nonexistent/ndsearch-conformance/config.yaml", &confidence));
    if (failure)
      return fmt::format("probe of a missing file failed instead of answering 0: {}",
                         failure->message);
    if (confidence != 0)
      return fmt::format("probe of a missing file answered {} (must be 0)", confidence);
    return "";
  });
  checker.run("parser.probe-empty-file", [&]() -> std::string {
    std::string path_text =
        (std::filesystem::temp_directory_path() / "ndsearch-conformance-XXXXXX").string();
    char* path = path_text.data();
    int fd = mkstemp(path);
    if (fd < 0) return "cannot create an empty file to probe in the temporary directory (TMPDIR)";
    close(fd);
    double confidence = -1;
    StatusPtr failure(parser.probe(path, &confidence));
    unlink(path);
    if (failure) return fmt::format("probe of an empty file failed: {}", failure->message);
    if (!(confidence >= 0 && confidence <= 1))
      return fmt::format("probe of an empty file answered {} (must be in [0, 1])", confidence);
    return "";
  });
  check_parse(checker, plugin, sample_config);
}

// What the compile-once kinds share: compile on the sample inputs, evaluate
// twice (the results must be finite, non-negative and identical), release.
template <class Table, class Compiled, class Item, class Prepare, class Inspect>
void check_compile_once(Checker& checker, const std::string& kind, const Table& table,
                        Prepare prepare, Inspect inspect) {
  SampleInputs sample;
  Compiled* compiled = nullptr;
  const bool built = checker.run(kind + ".compile", [&]() -> std::string {
    StatusPtr failure(table.compile(&sample.compile_input(), &compiled));
    if (failure) return fmt::format("compile on a GPT-2-small sample failed: {}", failure->message);
    if (compiled == nullptr) return "compile succeeded but returned no compiled object";
    return "";
  });
  if (!built) return;
  checker.run(kind + ".evaluate", [&]() -> std::string {
    Item first{}, second{};
    auto storage_first = prepare(first, sample.candidate());
    auto storage_second = prepare(second, sample.candidate());
    table.evaluate(compiled, &first, 1, sizeof(Item));
    table.evaluate(compiled, &second, 1, sizeof(Item));
    return inspect(first, second, storage_first, storage_second);
  });
  checker.run(kind + ".release", [&]() -> std::string {
    if (NDS_HAS_FIELD(&table, Table, release) && table.release != nullptr) table.release(compiled);
    return "";
  });
}

std::string valid_code(nds_status_code code, const char* reason) {
  if (code == NDS_OK) return "";
  if (code == NDS_INFEASIBLE || code == NDS_INVALID_ARGUMENT)
    return reason != nullptr ? "" : "refused the sample candidate without a reason";
  return fmt::format("returned code {} (must be NDS_OK, NDS_INFEASIBLE or NDS_INVALID_ARGUMENT)",
                     code);
}

void check_memory(Checker& checker, const LoadedPlugin& plugin) {
  using Storage = std::vector<double>;  // prior bytes then this pass's bytes
  constexpr uint32_t terms = NDS_MEMORY_TERM_COUNT_V1;
  check_compile_once<nds_memory_v1, nds_memory_compiled, nds_memory_item>(
      checker, "memory", *plugin.interfaces.memory,
      [&](nds_memory_item& item, const nds_candidate& candidate) {
        auto storage = std::make_shared<Storage>(2 * terms * candidate.strategy->pp, 0.0);
        item.struct_size = sizeof(nds_memory_item);
        item.candidate = &candidate;
        item.term_count = terms;
        item.prior_bytes = storage->data();
        item.bytes = storage->data() + terms * candidate.strategy->pp;
        return storage;
      },
      [&](const nds_memory_item& a, const nds_memory_item& b, const auto& sa, const auto& sb) {
        if (std::string bad = valid_code(a.code, a.reason); !bad.empty()) return bad;
        if (a.code != b.code || *sa != *sb)
          return std::string("two evaluations of one candidate differ; evaluate must be pure");
        for (double bytes : *sa)
          if (!(std::isfinite(bytes) && bytes >= 0))
            return fmt::format("wrote {} bytes (must be finite and >= 0)", bytes);
        return std::string();
      });
}

void check_cp_attention(Checker& checker, const LoadedPlugin& plugin) {
  const nds_cp_attention_v1& table = *plugin.interfaces.cp_attention;
  checker.run("cp_attention.algorithm", [&]() -> std::string {
    return table.algorithm[0] != '\0' ? "" : "algorithm name is empty";
  });
  using Storage = std::vector<nds_cp_comm>;
  check_compile_once<nds_cp_attention_v1, nds_cp_compiled, nds_cp_item>(
      checker, "cp_attention", table,
      [&](nds_cp_item& item, const nds_candidate& candidate) {
        auto storage = std::make_shared<Storage>(4);
        item.struct_size = sizeof(nds_cp_item);
        item.candidate = &candidate;
        item.block_index = 0;
        item.comms = storage->data();
        item.comm_capacity = 4;
        item.comm_elem_size = sizeof(nds_cp_comm);
        return storage;
      },
      [&](const nds_cp_item& a, const nds_cp_item& b, const auto& sa, const auto& sb) {
        if (std::string bad = valid_code(a.code, a.reason); !bad.empty()) return bad;
        if (a.comm_count > a.comm_capacity)
          return fmt::format("wrote {} collectives into room for {}", a.comm_count,
                             a.comm_capacity);
        if (a.code != b.code || a.comm_count != b.comm_count ||
            a.extra_activation_bytes != b.extra_activation_bytes)
          return std::string("two evaluations of one candidate differ; evaluate must be pure");
        for (uint32_t i = 0; i < a.comm_count; ++i) {
          const nds_cp_comm& c = (*sa)[i];
          if ((*sb)[i].forward_bytes != c.forward_bytes)
            return std::string("two evaluations of one candidate differ; evaluate must be pure");
          if (!(c.forward_bytes >= 0 && c.backward_bytes >= 0 && std::isfinite(c.forward_bytes) &&
                std::isfinite(c.backward_bytes)))
            return fmt::format("collective {} has negative or non-finite bytes", i);
          if (!(c.overlap_fraction >= 0 && c.overlap_fraction <= 1))
            return fmt::format("collective {} overlap_fraction {} is outside [0, 1]", i,
                               c.overlap_fraction);
        }
        if (!(std::isfinite(a.extra_activation_bytes) && a.extra_activation_bytes >= 0))
          return fmt::format("extra_activation_bytes {} (must be finite and >= 0)",
                             a.extra_activation_bytes);
        return std::string();
      });
}

// A recompute strategy on SampleInputs' menu (two ranks, one group of six
// layers each): evaluated twice alike, each group's counts summing to its
// layers, NDS_OK or NDS_INFEASIBLE per item and rank, finite peaks and times.
void check_recompute(Checker& checker, const LoadedPlugin& plugin) {
  const nds_recompute_v1& table = *plugin.interfaces.recompute;
  checker.run("recompute.strategy", [&]() -> std::string {
    return table.strategy[0] != '\0' ? "" : "strategy name is empty";
  });
  constexpr std::size_t kRanks = SampleInputs::kRecomputeRanks;
  struct Storage {
    std::array<uint32_t, SampleInputs::kRecomputeCounts> counts{};
    std::array<nds_recompute_rank, kRanks> ranks{};
  };
  SampleInputs menu;
  check_compile_once<nds_recompute_v1, nds_recompute_compiled, nds_recompute_item>(
      checker, "recompute", table,
      [&](nds_recompute_item& item, const nds_candidate& candidate) {
        auto storage = std::make_shared<Storage>();
        storage->ranks = menu.recompute_ranks(storage->counts.data());
        item.struct_size = sizeof(nds_recompute_item);
        item.candidate = &candidate;
        item.ranks = storage->ranks.data();
        item.rank_elem_size = sizeof(nds_recompute_rank);
        item.rank_count = static_cast<uint32_t>(kRanks);
        item.stated_layers = nullptr;  // the sample config states no counts
        return storage;
      },
      [&](const nds_recompute_item& a, const nds_recompute_item& b, const auto& sa,
          const auto& sb) {
        const auto ok_or_infeasible = [](nds_status_code code) {
          return code == NDS_OK || code == NDS_INFEASIBLE;
        };
        if (!ok_or_infeasible(a.code))
          return fmt::format(
              "returned code {} for the sample candidate (must be NDS_OK or NDS_INFEASIBLE)",
              a.code);
        if (a.code != NDS_OK && a.reason == nullptr)
          return std::string("refused the sample candidate without a reason");
        if (a.code != b.code || sa->counts != sb->counts)
          return std::string("two evaluations of one candidate differ; evaluate must be pure");
        for (std::size_t r = 0; r < kRanks; ++r) {
          const nds_recompute_rank& x = sa->ranks[r];
          const nds_recompute_rank& y = sb->ranks[r];
          if (x.code != y.code || x.peak_bytes != y.peak_bytes || x.extra_s != y.extra_s)
            return std::string("two evaluations of one candidate differ; evaluate must be pure");
          if (!ok_or_infeasible(x.code))
            return fmt::format("rank {}: code {} (must be NDS_OK or NDS_INFEASIBLE)", r, x.code);
          if (!(std::isfinite(x.peak_bytes) && x.peak_bytes >= 0 && std::isfinite(x.extra_s) &&
                x.extra_s >= 0))
            return fmt::format("rank {}: peak_bytes {} and extra_s {} (must be finite and >= 0)", r,
                               x.peak_bytes, x.extra_s);
          const uint32_t* counts = x.layers_per_option;
          uint64_t sum = 0;
          for (std::size_t o = 0; o < NDS_LAYER_OPTION_COUNT_V1; ++o) sum += counts[o];
          if (sum != x.groups[0].layers)
            return fmt::format(
                "rank {} group 0: counts {} + {} + {} + {} = {} (must sum to its {} layers)", r,
                counts[NDS_LAYER_KEEP], counts[NDS_LAYER_SELECTIVE], counts[NDS_LAYER_FULL],
                counts[NDS_LAYER_OFFLOAD], sum, x.groups[0].layers);
        }
        return std::string();
      });
}

}  // namespace

bool run_conformance_checks(const std::filesystem::path& path,
                            std::shared_ptr<const PluginOptions> options,
                            const CheckReporter& report,
                            const std::optional<std::filesystem::path>& sample_config) {
  Checker checker(report);
  std::unique_ptr<LoadedPlugin> plugin;
  const bool loaded = checker.run("module.load", [&]() -> std::string {
    plugin = load_plugin(path, options);
    return "";
  });
  if (!loaded) return false;
  checker.run("module.unknown-interface", [&]() -> std::string {
    return plugin->module->get_interface("nds.no-such-interface/1") == nullptr
               ? ""
               : "get_interface answered an interface id nobody defines; it must return NULL";
  });
  checker.run("module.offers-interface", [&]() -> std::string {
    return plugin->interfaces.ids().empty()
               ? "offers none of nds.parser/1, nds.hardware/1, nds.memory/1, nds.cp_attention/1, "
                 "nds.recompute/1"
               : "";
  });
  if (plugin->interfaces.hardware != nullptr) check_hardware(checker, *plugin);
  if (plugin->interfaces.parser != nullptr) check_parser(checker, *plugin, sample_config);
  if (plugin->interfaces.memory != nullptr) check_memory(checker, *plugin);
  if (plugin->interfaces.cp_attention != nullptr) check_cp_attention(checker, *plugin);
  if (plugin->interfaces.recompute != nullptr) check_recompute(checker, *plugin);
  checker.run("module.shutdown", [&]() -> std::string {
    plugin.reset();  // the last owner of the module: its shutdown runs here
    return "";
  });
  return checker.all_passed();
}

}  // namespace ndsearch
