// SPDX-License-Identifier: Apache-2.0
// test_hostile_inputs.cpp: issue 11's config and flag cases, one regression
// each: the CLI exits 2 with the documented id and a message naming the
// value and the limit, within 5 s and under 1 GiB (the child runs under
// `timeout 5` and `ulimit -v`; a hang exits 124, a blow-up fails to
// allocate). The configs are generated here, in a scratch folder.
#include <sys/stat.h>  // mkfifo
#include <unistd.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/sanitized.hpp"

using Catch::Contains;
using ndsearch::test::cli;
using ndsearch::test::CommandResult;
using ndsearch::test::run_command;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ASan reserves terabytes of address space: no ulimit -v under it.
constexpr bool kSanitized = ndsearch::test::kAddressSanitized;

constexpr long kOneGiBInKiB = 1024L * 1024;

// A folder of generated configs, removed at the end of the test.
class Scratch {
 public:
  Scratch() {
    char pattern[] = "/tmp/ndsearch-hostile-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  ~Scratch() { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  fs::path path(const std::string& name) const { return dir_ / name; }

 private:
  fs::path dir_;
};

// A Llama-like HF config.json of 4 layers (the shape of tests/fixtures'
// tiny-4-layers), with `changes` applied.
std::string tiny_config(const json& changes = json::object()) {
  json config = {{"architectures", {"LlamaForCausalLM"}},
                 {"model_type", "llama"},
                 {"hidden_size", 256},
                 {"intermediate_size", 512},
                 {"num_hidden_layers", 4},
                 {"num_attention_heads", 4},
                 {"num_key_value_heads", 2},
                 {"vocab_size", 1024},
                 {"max_position_embeddings", 1024},
                 {"hidden_act", "silu"},
                 {"tie_word_embeddings", false},
                 {"torch_dtype", "bfloat16"}};
  config.update(changes);
  return config.dump();
}

// ndsearch with `args`, bounded to 5 s and (unsanitized) 1 GiB of address space.
CommandResult hostile(const std::string& args, long memory_kib = kOneGiBInKiB) {
  const std::string limits =
      kSanitized ? "timeout 60 " : "ulimit -v " + std::to_string(memory_kib) + "; timeout 5 ";
  return run_command(limits + "env -u NDS_PLUGIN_PATH " + cli() + " " + args);
}

// Exit 2 with `id` and every one of `words` on stderr.
void refused(const CommandResult& r, const std::string& id,
             std::initializer_list<const char*> words) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("[" + id + "]"));
  for (const char* w : words) CHECK_THAT(r.err, Contains(w));
}

const char* const kDevice = "-A nvidia-h100-sxm";

}  // namespace

TEST_CASE("eval and explain with 2^32 devices refuse the count, not die of SIGFPE") {
  // dp = 2^32 / (tp·pp·cp) truncated to int32 was 0, then divided the batch.
  Scratch s;
  const std::string config = s.write("config.json", tiny_config());
  for (const std::string verb : {"eval", "explain"}) {
    INFO(verb);
    refused(hostile(verb + " " + config + " " + kDevice +
                    " -d 4294967296 -b 4294967296 --strategy tp=1,pp=1"),
            "E-DEVICE-COUNT", {"4294967296", "16777216"});
    refused(hostile(verb + " " + config + " " + kDevice + " -d 4294967296 -b 8 --strategy tp=1"),
            "E-DEVICE-COUNT", {"4294967296"});
  }
}

TEST_CASE("A device count of 0 (-d 0) is E-DEVICE-COUNT, as docs/cli.md promises, in every verb") {
  Scratch s;
  const std::string config = s.write("config.json", tiny_config());
  for (const std::string verb : {"eval", "explain --strategy tp=1", "search"}) {
    INFO(verb);
    const CommandResult r =
        hostile(verb + " " + config + " " + kDevice + " -d 0 -b 8 --seq-len 1024");
    refused(r, "E-DEVICE-COUNT", {"-d 0", "at least 1"});
    CHECK_THAT(r.err, !Contains("179769"));  // not CLI11's range up to DBL_MAX
  }
  // strtoull wraps a negative count: -1 to 2^64 - 1, -(2^64 - 1) to 1.
  for (const char* count : {"-1", "-18446744073709551615"}) {
    INFO(count);
    refused(hostile("eval " + config + " " + kDevice + " -d " + count + " -b 8 --seq-len 1024"),
            "E-DEVICE-COUNT", {"at least 1"});
  }
}

TEST_CASE("A stated strategy whose device count is beyond the limit is refused by it") {
  // MindFormers' stated dp = tp = pp = 2^12: search takes dp·tp·pp = 2^36
  // devices (saturated, never wrapped), above the limit of 2^24.
  Scratch s;
  const std::string yaml =
      s.write("train.yaml",
              "model:\n  model_config:\n    type: LlamaConfig\n    seq_length: 1024\n"
              "    hidden_size: 256\n    num_layers: 4\n    num_heads: 4\n"
              "    vocab_size: 1000\nparallel_config:\n  data_parallel: 4096\n"
              "  model_parallel: 4096\n  pipeline_stage: 4096\n");
  refused(hostile("search " + yaml + " " + kDevice + " -b 8"), "E-DEVICE-COUNT",
          {"train.yaml states them = 68719476736", "16777216"});
}

TEST_CASE(
    "A vocabulary or sequence of 2^62 (--vocab-size, --seq-len) is refused, never priced as "
    "fitting") {
  // They overflowed stage bytes to -9.2e18 and printed fits: true.
  Scratch s;
  const std::string config = s.write("config.json", tiny_config());
  const std::string eval = "eval " + config + " " + kDevice + " -d 8 --format json ";
  const CommandResult vocab =
      hostile(eval + "-b 8 --seq-len 1024 --vocab-size 4611686018427387904");
  refused(vocab, "E-MODEL-LIMIT", {"vocab_size = 4611686018427387904", "--vocab-size", "16777216"});
  CHECK_THAT(vocab.out, !Contains("\"fits\": true"));
  const CommandResult seq = hostile(eval + "-b 8 --seq-len 4611686018427387904");
  refused(seq, "E-MODEL-LIMIT", {"seq_len = 4611686018427387904", "--seq-len", "16777216"});
  CHECK_THAT(seq.out, !Contains("\"fits\": true"));
  refused(hostile(eval + "-b 8 --vocab-size 0"), "E-MODEL-LIMIT", {"vocab_size = 0", "at least 1"});
  refused(hostile(eval + "-b 0"), "E-MODEL-LIMIT", {"global_batch = 0", "-b"});
  refused(hostile(eval + "-b 8 --seq-len 0"), "E-MODEL-LIMIT", {"seq_len = 0", "--seq-len"});
  // -1 is NDS_UNKNOWN inside: a negative flag must not read as "not stated".
  refused(hostile(eval + "-b 8 --seq-len -1"), "E-MODEL-LIMIT", {"--seq-len -1", "at least 1"});
  refused(hostile(eval + "-b -1 --seq-len 1024"), "E-MODEL-LIMIT", {"-b -1", "at least 1"});
  refused(hostile(eval + "-b 8 --seq-len 1024 --vocab-size -1"), "E-MODEL-LIMIT",
          {"--vocab-size -1", "at least 1"});
}

TEST_CASE("A config's vocab_size 0 and sizes near 2^32 are refused naming the file and the field") {
  Scratch s;
  const std::string zero = s.write("vocab0.json", tiny_config({{"vocab_size", 0}}));
  refused(hostile("model " + zero), "E-MODEL-LIMIT", {"vocab0.json", "vocab_size = 0"});
  // hidden 2^32 gave 5.5e29 parameters; 2^32 layers grew eval without bound.
  const std::string wide = s.write("wide.json", tiny_config({{"hidden_size", 4294967296}}));
  refused(hostile("model " + wide + " --format json"), "E-MODEL-LIMIT",
          {"wide.json", "hidden_size = 4294967296", "1048576"});
  // 2^32 layers grew eval without bound. (A MindFormers YAML: the HF and
  // Megatron parsers walk or allocate every layer before the core sees the
  // count, theirs to bound.)
  const std::string deep =
      s.write("deep.yaml",
              "model:\n  model_config:\n    type: LlamaConfig\n    seq_length: 1024\n"
              "    hidden_size: 256\n    num_layers: 4294967296\n    num_heads: 4\n"
              "    vocab_size: 1000\n");
  refused(hostile("eval " + deep + " " + kDevice + " -d 8 -b 8"), "E-MODEL-LIMIT",
          {"deep.yaml:6", "layers = 4294967296", "100000"});
  const std::string ffn = s.write("ffn.json", tiny_config({{"intermediate_size", 4294967295}}));
  refused(hostile("model " + ffn), "E-MODEL-LIMIT", {"ffn_hidden_size = 4294967295"});
}

TEST_CASE("A budget of 0 or less is E-BUDGET naming the flags and values") {
  Scratch s;
  const std::string eval = "eval " + s.write("config.json", tiny_config()) + " " + kDevice +
                           " -d 8 -b 8 --seq-len 1024 ";
  refused(hostile(eval + "-M 0GB"), "E-BUDGET", {"-M 0GB", "runtime reserve"});
  refused(hostile(eval + "-M -1GB"), "E-BUDGET", {"-M -1GB"});
  // The H100's 80 GiB less 2 GiB reserved less 200 GiB: -122 GiB.
  refused(hostile(eval + "--reserve-mem 200GB"), "E-BUDGET",
          {"--reserve-mem 200GB", "-122.00 GiB"});
  refused(hostile("search " + s.path("config.json").string() + " " + kDevice +
                  " -d 8 -b 8 --seq-len 1024 -M 1GB"),
          "E-BUDGET", {"-M 1GB"});
  // A size too large to read no longer overflows to a negative budget.
  refused(hostile(eval + "-M 99999999999999999999999TB"), "E-BUDGET", {"1 PiB"});
}

TEST_CASE(
    "A typed device memory below the weights sharded over every device is E-BUDGET naming it") {
  // Llama-3.1-70B: 70,553,706,496 bf16 parameters, 141.1 GB; over 8 devices at
  // best 17,638,426,624 bytes (16.43 GiB) each, above the 8 GiB -M 10GB leaves.
  const std::string config = std::string(NDS_TEST_EXAMPLES) + "/llama-3.1-70b/config.json";
  refused(hostile("search " + config + " " + kDevice + " -d 8 -b 8 --seq-len 8192 -M 10GB"),
          "E-BUDGET",
          {"10.00 GiB of memory from the device memory (-M)", "budget of 8.00 GiB",
           "below the 16.43 GiB the weights alone take on each of 8 devices",
           "7.055e+10 parameters of 2 bytes"});
  refused(hostile("eval " + config + " " + kDevice +
                  " -d 8 -b 8 --seq-len 8192 -M 10GB --strategy tp=8"),
          "E-BUDGET", {"-M", "16.43 GiB"});
  // A config's max_device_memory, named by its file, line and field: tiny_llama's
  // 8 layers in fp32 over 16 devices need more than the 1 MiB it would say.
  Scratch s;
  const std::string mf =
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/mindformers/tiny_llama.yaml";
  std::ifstream in(mf);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("\"58GB\""), 6, "\"1MB\"");
  refused(hostile("eval " + s.write("small.yaml", text) + " -A ascend-a2"), "E-BUDGET",
          {"small.yaml:33", "max_device_memory", "0.00 GiB of memory", "each of 16 devices"});
  // The device's own memory too small is no typed size: "nothing fits" (test_search.cpp).
}

TEST_CASE("A strategy or --only key given twice is refused naming the key") {
  Scratch s;
  const std::string config = s.write("config.json", tiny_config());
  const std::string args = " " + config + " " + kDevice + " -d 8 -b 8 --seq-len 1024 ";
  refused(hostile("eval" + args + "--strategy tp=2,tp=4"), "E-STRATEGY",
          {"tp is given twice", "tp=2", "tp=4"});
  refused(hostile("eval" + args + "--strategy mp=2,tp=2"), "E-STRATEGY",
          {"tp is given twice", "mp=2"});
  refused(hostile("search" + args + "--only tp=1 --only tp=2"), "E-USAGE", {"tp is given twice"});
  refused(hostile("search" + args + "--only \"pp=1 pp=2\""), "E-USAGE", {"pp is given twice"});
  refused(hostile("search" + args + "--only tp=2,2"), "E-USAGE", {"listed twice"});
}

TEST_CASE("An unknown verb is named, with the closest verb") {
  const CommandResult typo = hostile("evl x.json");
  refused(typo, "E-USAGE", {"unknown command 'evl'; did you mean 'eval'?"});
  CHECK_THAT(typo.err, !Contains("A subcommand is required"));
  refused(hostile("-v 2 serch x.json"), "E-USAGE",
          {"unknown command 'serch'; did you mean 'search'?"});
  refused(hostile("frobnicate"), "E-USAGE", {"unknown command 'frobnicate'", "eval, search"});
}

TEST_CASE("A config whose file name is not UTF-8 reaches --format json as U+FFFD, exit 0") {
  // Invalid UTF-8 inside a config is the parsers' refusal (tests/parsers/
  // test_hostile_configs.cpp); a file name is the user's to choose, and every
  // output names the file: the byte FE comes out as U+FFFD, never E-INTERNAL.
  Scratch s;
  const std::string script = s.write("train\xfe.sh",
                                     "torchrun pretrain_gpt.py --num-layers 4 --hidden-size 256 "
                                     "--num-attention-heads 8 --seq-length 1024 "
                                     "--vocab-size 1000 --bf16\n");
  for (const std::string verb : {"model", "eval", "search"}) {
    INFO(verb);
    const std::string extra = verb == "model"  ? ""
                              : verb == "eval" ? std::string(" ") + kDevice + " -d 8 -b 8"
                                               : std::string(" ") + kDevice + " -d 8 -b 8 -t 2";
    const CommandResult r = hostile(verb + " " + script + extra + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, !Contains("E-INTERNAL"));
    CHECK_NOTHROW(json::parse(r.out));
    CHECK_THAT(r.out, Contains("train\xef\xbf\xbd.sh"));  // U+FFFD, as UTF-8
  }
}

TEST_CASE("Running out of memory is E-OUT-OF-MEMORY naming the verb and the input, exit 2") {
  if (kSanitized) return;  // no ulimit -v under ASan
  // 60 MiB of address space: the DeepSeek-V3 search needs ~100 MiB of it
  // (65 MB resident, 2026-12-05, since MindSpore's parallel optimizer is
  // zero 3 alone); the program itself starts in 20 MiB.
  const std::string config =
      std::string(NDS_TEST_EXAMPLES) + "/deepseek-v3-hyperparallel/deepseek_v3.yaml";
  const CommandResult r =
      hostile("search " + config +
                  " -A ascend-a3 -d 1024 -b 2048 --seq-len 4096 -t 1000000 -j 1 --format csv",
              60 * 1024);
  refused(r, "E-OUT-OF-MEMORY", {"out of memory", "ndsearch search", "deepseek_v3.yaml"});
  CHECK_THAT(r.err, !Contains("E-INTERNAL"));
}

TEST_CASE("search --format json streams its rows: memory does not grow with the output") {
  // Llama 3 8B on 32 H100: every fitting strategy (6,754 rows, ~16.7 MB of
  // JSON, TorchTitan's limits lifted so that ZeRO-1 and TP without SP count
  // too) within 96 MiB of address space (~17 MB resident). Holding the whole
  // document as a nlohmann tree, as before, took ~8 bytes per byte written
  // (~130 MB).
  const std::string config =
      std::string(NDS_TEST_EXAMPLES) + "/llama3-8b-torchtitan/llama3_8b.toml";
  const std::string search =
      "search " + config +
      " -A nvidia-h100-sxm -d 32 -b 32 --seq-len 8192 -t 1000000 --any-trainer --format json";
  const CommandResult one = hostile(search + " -j 1", 96 * 1024);
  INFO(one.err);
  REQUIRE(one.exit_code == 0);
  CHECK(one.out.size() > 12'000'000);
  const json j = json::parse(one.out);
  CHECK(j["ranking"].size() == j["counts"]["fit"].get<size_t>());
  // Byte for byte what dump(2) writes, and the same whatever -j (the
  // timings aside).
  json timeless = j;
  timeless.erase("elapsed_s");
  timeless.erase("candidates_per_s");
  const CommandResult two = hostile(search + " -j 2", 256 * 1024);
  REQUIRE(two.exit_code == 0);
  json other = json::parse(two.out);
  other.erase("elapsed_s");
  other.erase("candidates_per_s");
  CHECK(timeless == other);
  json redumped = j;
  CHECK(one.out == redumped.dump(2) + "\n");
}
