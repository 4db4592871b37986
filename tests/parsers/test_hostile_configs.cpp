// SPDX-License-Identifier: Apache-2.0
// test_hostile_configs.cpp: `ndsearch model FILE` on configs written to
// crash, hang or exhaust the reader (issue 11): each is generated here, in a
// temporary folder, and each must exit 2 with its error id and a message
// naming the file and the limit, within 5 s and 1 GiB.
#include <sys/stat.h>  // mkfifo
#include <unistd.h>    // getpid, truncate
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/sanitized.hpp"

namespace fs = std::filesystem;
using ndsearch::test::CommandResult;

namespace {

// A fresh folder per test case.
fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("nds-hostile-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

struct Timed {
  CommandResult r;
  double seconds = 0;
};

// Runs `ndsearch model ARGS` under a timeout (the hang guard) and, outside
// sanitizer builds (whose shadow memory needs terabytes of address space), a
// 1 GiB address-space limit: a hang exits 124 and a blow-up fails to
// allocate. The -O0 sanitizer build runs the 64 MiB expansions in 3 s alone
// and past 5 s on a loaded 2-core machine (2026-12-04): its guard is 20 s.
constexpr int kHangGuardS = ndsearch::test::kAddressSanitized ? 20 : 5;
Timed model(const std::string& args, const std::string& env = "") {
  const std::string limit = ndsearch::test::kAddressSanitized ? "" : "ulimit -v 1048576; ";
  const auto start = std::chrono::steady_clock::now();
  Timed t;
  t.r = ndsearch::test::run_command(limit + "env -u NDS_PLUGIN_PATH " + env + " timeout " +
                                    std::to_string(kHangGuardS) + " " + ndsearch::test::cli() +
                                    " model " + args);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

// Exit 2 with `id`, every word of `said` in the message, within the guard.
void refused(const Timed& t, const std::string& id, const std::vector<std::string>& said) {
  INFO(t.r.err);
  CHECK(t.r.exit_code == 2);
  CHECK(t.seconds < kHangGuardS);
  CHECK_THAT(t.r.err, Catch::Contains("[" + id + "]"));
  for (const std::string& s : said) CHECK_THAT(t.r.err, Catch::Contains(s));
}

const char* const kTinyHf =
    "{\"model_type\": \"llama\", \"hidden_size\": 256, \"intermediate_size\": 688,\n"
    " \"num_attention_heads\": 4, \"num_hidden_layers\": 2, \"vocab_size\": 1000}\n";

}  // namespace

// ---- Files that are not regular files, or too large ---------------------------

TEST_CASE("A directory, a FIFO and a device are named as such, never read") {
  const fs::path dir = scratch("kinds");
  fs::create_directory(dir / "config.json");
  refused(model((dir / "config.json").string()), "E-PARSE-FILE", {"config.json", "is a directory"});

  REQUIRE(::mkfifo((dir / "fifo.json").c_str(), 0600) == 0);  // an open would block forever
  refused(model((dir / "fifo.json").string()), "E-PARSE-FILE", {"fifo.json", "FIFO"});

  fs::create_symlink("/dev/zero", dir / "zero.json");  // a read would never end
  refused(model((dir / "zero.json").string()), "E-PARSE-FILE", {"zero.json", "character device"});

  refused(model((dir / "absent.json").string()), "E-PARSE-FILE", {"absent.json", "no such file"});
}

TEST_CASE("A config over the size limit names its size, the limit and how to raise it") {
  const fs::path dir = scratch("size");
  // 16 MiB + 1 byte (the default limit, kDefaultConfigMaxBytes), sparse: instant to write.
  const fs::path big = write(dir / "config.json", kTinyHf);
  REQUIRE(::truncate(big.c_str(), (off_t{16} << 20) + 1) == 0);
  refused(model(big.string()), "E-PARSE-LIMIT",
          {"config.json", "16777217 bytes", "16777216-byte limit", "NDS_CONFIG_MAX_BYTES"});

  // The limit is the user's: a 2 KiB config under 1000 bytes is refused, under 64MiB read.
  const fs::path padded = write(dir / "padded.json", kTinyHf + repeat(" ", 2048));
  refused(model(padded.string(), "NDS_CONFIG_MAX_BYTES=1000"), "E-PARSE-LIMIT",
          {"1000-byte limit"});
  const Timed raised = model(padded.string(), "NDS_CONFIG_MAX_BYTES=64MiB");
  INFO(raised.r.err);
  CHECK(raised.r.exit_code == 0);
  refused(model(padded.string(), "NDS_CONFIG_MAX_BYTES=lots"), "E-USAGE",
          {"NDS_CONFIG_MAX_BYTES=lots"});
}

// ---- Hugging Face config.json -----------------------------------------------------

TEST_CASE("A JSON field nested 58,000 deep is refused before it is built or printed") {
  const fs::path dir = scratch("json_deep");
  // Issue 11: printing the rejected value overflowed the stack.
  const size_t depth = 58000;
  const std::string deep = std::string(kTinyHf).substr(0, std::string(kTinyHf).size() - 2) +
                           ", \"rope_scaling\": " + repeat("[", depth) + repeat("]", depth) + "}\n";
  refused(model(write(dir / "config.json", deep).string()), "E-PARSE-LIMIT",
          {"config.json:2", "nested more than 256 levels"});

  // Nested objects: 120 KB cost 466 MB (key paths quadratic in depth).
  std::string objects = "{\"model_type\": \"llama\", ";
  for (size_t i = 0; i < 20000; ++i) objects += "\"a\":{";
  objects += repeat("}", 20000) + "}";
  refused(model(write(dir / "objects.json", objects).string()), "E-PARSE-LIMIT",
          {"objects.json:1", "256"});
}

TEST_CASE("A JSON key written twice is refused naming the key and both lines") {
  const fs::path dir = scratch("json_duplicate");
  const std::string text =
      "{\"model_type\": \"llama\",\n \"hidden_size\": 256,\n \"num_hidden_layers\": 2,\n"
      " \"num_attention_heads\": 4, \"intermediate_size\": 688, \"vocab_size\": 1000,\n"
      " \"hidden_size\": 4096}\n";
  refused(model(write(dir / "config.json", text).string()), "E-PARSE-DUPLICATE",
          {"config.json:5", "\"hidden_size\"", "lines 2 and 5"});
}

TEST_CASE("Invalid UTF-8 in a config.json names file and line, also with --format json") {
  const fs::path dir = scratch("json_utf8");
  const std::string text =
      "{\"_name_or_path\": \"bad \xff\xfe byte\",\n" + std::string(kTinyHf).substr(1);
  const Timed t = model(write(dir / "config.json", text).string() + " --format json");
  refused(t, "E-PARSE-FIELD", {"config.json:1", "UTF-8"});
}

TEST_CASE(
    "Integer fields refuse negatives, fractions, overflow and 2^32 layers with E-PARSE-VALUE") {
  const fs::path dir = scratch("json_values");
  struct Case {
    const char* value;
    const char* said;
  };
  // 2^64 - 1 does not fit int64; 1e300 is no whole number a double can carry
  // exactly; 2^32 layers would size a 4-billion-entry per-layer table.
  for (const Case& c :
       {Case{"-5", "-5"}, Case{"2.5", "2.5"}, Case{"18446744073709551615", "18446744073709551615"},
        Case{"1e300", "1e+300"}}) {
    INFO(c.value);
    const std::string text =
        "{\"model_type\": \"llama\", \"hidden_size\": 256, \"intermediate_size\": 688,\n"
        " \"num_attention_heads\": 4, \"num_hidden_layers\": 2,\n \"vocab_size\": " +
        std::string(c.value) + "}\n";
    refused(model(write(dir / "config.json", text).string()), "E-PARSE-VALUE",
            {"config.json:3", "`vocab_size` = " + std::string(c.said), "whole number"});
  }
  const std::string layers =
      "{\"model_type\": \"llama\", \"hidden_size\": 256, \"intermediate_size\": 688,\n"
      " \"num_attention_heads\": 4, \"num_hidden_layers\": 4294967296, \"vocab_size\": 1000}\n";
  refused(model(write(dir / "layers.json", layers).string()), "E-PARSE-VALUE",
          {"layers.json:2", "num_hidden_layers` = 4294967296", "at most 1048576"});
}

TEST_CASE("A rejected value is echoed short, never whole") {
  const fs::path dir = scratch("json_long_value");
  const std::string text =
      "{\"model_type\": \"llama\", \"hidden_size\": \"" + repeat("x", 1 << 20) +
      "\", \"num_attention_heads\": 4, \"num_hidden_layers\": 2, \"vocab_size\": 1000}\n";
  const Timed t = model(write(dir / "config.json", text).string());
  refused(t, "E-PARSE-FIELD", {"hidden_size", "(1048578 bytes)"});  // the quotes count: 2^20 + 2
  CHECK(t.r.err.size() < 1000);
}

// ---- YAML (HyperParallel, MindFormers, MindSpeed FSDP2) ----------------------------

TEST_CASE("YAML nested 60,000 deep, in flow or block style, is refused by depth") {
  const fs::path dir = scratch("yaml_deep");
  const size_t depth = 60000;
  refused(model(write(dir / "lists.yaml",
                      "model:\n  x: " + repeat("[", depth) + repeat("]", depth) + "\n")
                    .string()),
          "E-PARSE-LIMIT", {"lists.yaml:2", "nested more than 256 levels"});
  refused(model(write(dir / "maps.yaml",
                      "model:\n  x: " + repeat("{a: ", depth) + "1" + repeat("}", depth) + "\n")
                    .string()),
          "E-PARSE-LIMIT", {"maps.yaml:2", "256"});
  std::string block = "model:\n";
  for (size_t i = 1; i < 400; ++i) block += std::string(i, ' ') + "a:\n";
  refused(model(write(dir / "block.yaml", block).string()), "E-PARSE-LIMIT", {"block.yaml", "256"});
}

TEST_CASE("A YAML key written twice is refused naming the key and both lines") {
  const fs::path dir = scratch("yaml_duplicate");
  const std::string text =
      "model:\n  model_config:\n    type: LlamaConfig\n    num_layers: 8\n    hidden_size: 1024\n"
      "    num_heads: 16\n    vocab_size: 32000\n    num_layers: 80\n";
  refused(model(write(dir / "train.yaml", text).string()), "E-PARSE-DUPLICATE",
          {"train.yaml:8", "`num_layers`", "lines 4 and 8"});
}

TEST_CASE("YAML aliases that expand a billion-fold are refused") {
  const fs::path dir = scratch("yaml_aliases");
  // Each level is a list of ten of the one before: 10^9 values at level 9.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    // (append, not "a" + to_string: GCC 12 warns falsely on that, -Wrestrict)
    const std::string name = std::string("a").append(std::to_string(i));
    const std::string prev = std::string("*a").append(std::to_string(i - 1));
    text.append(name).append(": &").append(name).append(" [");
    for (int k = 0; k < 10; ++k) text.append(k == 0 ? "" : ", ").append(prev);
    text.append("]\n");
  }
  text += "model:\n  config_overrides: *a9\ntrain: {}\n";
  refused(model(write(dir / "bomb.yaml", text).string()), "E-PARSE-LIMIT",
          {"bomb.yaml", "aliases", "1000000"});
}

TEST_CASE("A HyperParallel model folder whose config.json is a FIFO, a device or too large") {
  const fs::path dir = scratch("hyper_model_path");
  const std::string yaml =
      "model:\n  pretrained_model_name_or_path: hf\naccelerator:\n  tp_size: 1\n";
  const fs::path config = write(dir / "train.yaml", yaml);
  fs::create_directory(dir / "hf");

  REQUIRE(::mkfifo((dir / "hf" / "config.json").c_str(), 0600) == 0);  // blocked forever before
  refused(model(config.string()), "E-PARSE-FILE", {"hf/config.json", "FIFO"});

  fs::remove(dir / "hf" / "config.json");
  fs::create_symlink("/dev/zero", dir / "hf" / "config.json");  // read until memory ran out before
  refused(model(config.string()), "E-PARSE-FILE", {"hf/config.json", "character device"});

  fs::remove(dir / "hf" / "config.json");
  write(dir / "hf" / "config.json", kTinyHf + repeat(" ", 4096));
  refused(model(config.string(), "NDS_CONFIG_MAX_BYTES=4000"), "E-PARSE-LIMIT",
          {"hf/config.json", "4000-byte limit", "NDS_CONFIG_MAX_BYTES"});
}

TEST_CASE("Invalid UTF-8 in a YAML value that names something is refused naming file and line") {
  const fs::path dir = scratch("yaml_utf8");
  const std::string text =
      "model:\n  model_config:\n    type: LlamaConfig\n    num_layers: 2\n"
      "    hidden_size: 256\n    num_heads: 4\n    vocab_size: 1000\n"
      "    compute_dtype: \"bfloat16\"\n    name_\xff: 1\n";
  const Timed t = model(write(dir / "train.yaml", text).string() + " --format json");
  refused(t, "E-PARSE-FIELD", {"train.yaml:9", "UTF-8"});
}

// ---- Megatron launch scripts ---------------------------------------------------------

namespace {
std::string launch(const std::string& before, const std::string& flags = "--num-layers 2") {
  return "#!/bin/bash\n" + before + "\ntorchrun pretrain_gpt.py " + flags +
         " --hidden-size 256 --num-attention-heads 4 --seq-length 1024 --vocab-size 1000\n";
}
}  // namespace

TEST_CASE("Shell arithmetic nested 25,000 deep is refused, not a stack overflow") {
  const fs::path dir = scratch("shell_arith");
  const size_t depth = 25000;
  const std::string script = launch("N=$((" + repeat("(", depth) + "1" + repeat(")", depth) + "))");
  refused(model(write(dir / "run.sh", script).string()), "E-PARSE-LIMIT",
          {"run.sh:2", "$(( ))", "256"});
  // Signs recurse too: $((- - - ... 1)).
  refused(model(write(dir / "signs.sh", launch("N=$((" + repeat("- ", depth) + "1))")).string()),
          "E-PARSE-LIMIT", {"signs.sh:2", "256"});
}

TEST_CASE("Shell expansions ${X:-${X:-...}} nested 20,000 deep are refused") {
  const fs::path dir = scratch("shell_nested");
  const size_t depth = 20000;
  const std::string script = launch("N=" + repeat("${X:-", depth) + "2" + repeat("}", depth));
  refused(model(write(dir / "run.sh", script).string()), "E-PARSE-LIMIT",
          {"run.sh:2", "nest more than 256"});
}

TEST_CASE("A variable doubled 30 times stops at the value limit, naming it") {
  const fs::path dir = scratch("shell_doubling");
  // 2^30 bytes before; the limit (kMaxShellValueBytes) is 1 MiB.
  const std::string script = launch("X=ab\n" + repeat("X=\"$X$X\"\n", 30));
  // The message names the 1 MiB limit, so the doubling stopped there (20
  // rounds, not 30); a wall-clock bound would only measure the machine.
  refused(model(write(dir / "run.sh", script).string()), "E-PARSE-LIMIT",
          {"run.sh:", "the value of X grows past 1 MiB"});
}

TEST_CASE("An expansion repeated past the total limit stops, naming the variable") {
  const fs::path dir = scratch("shell_total");
  // Y holds 4 x 9,000 bytes of text (well under the 1 MiB value limit);
  // expanded 2,000 times that is 72 MB copied, past the 64 MiB limit on all
  // expansions together (kMaxShellExpandedBytes).
  std::string script = "X=\"" + repeat("abcdefgh ", 1000) + "\"\nY=\"$X$X\"\nY=\"$Y$Y\"\n";
  script += repeat("echo \"$Y\" >/dev/null\n", 2000);
  refused(model(write(dir / "run.sh", launch(script)).string()), "E-PARSE-LIMIT",
          {"run.sh:", "64 MiB"});
}

TEST_CASE("Megatron integer flags refuse overflow and 2^32 layers with E-PARSE-VALUE") {
  const fs::path dir = scratch("shell_values");
  refused(model(write(dir / "huge.sh", launch("", "--num-layers 99999999999999999999")).string()),
          "E-PARSE-VALUE", {"huge.sh:3", "--num-layers '99999999999999999999'", "whole number"});
  refused(model(write(dir / "layers.sh", launch("", "--num-layers 4294967296")).string()),
          "E-PARSE-VALUE", {"layers.sh:3", "<= 1048576"});
  refused(model(write(dir / "tp.sh", launch("", "--num-layers 2 --tensor-model-parallel-size -4"))
                    .string()),
          "E-PARSE-VALUE", {"tp.sh:3", "--tensor-model-parallel-size '-4'"});
}

TEST_CASE("A Megatron flag given twice with different values: the last wins, with a warning") {
  const fs::path dir = scratch("shell_repeated");
  const std::string script =
      "#!/bin/bash\ntorchrun pretrain_gpt.py --num-layers 2 \\\n"
      "  --hidden-size 256 --num-attention-heads 4 --seq-length 1024 --vocab-size 1000 \\\n"
      "  --num-layers 4\n";
  const Timed t =
      model(write(dir / "run.sh", script).string() + " --format json -v 2");  // -v 2: warnings
  INFO(t.r.err);
  REQUIRE(t.r.exit_code == 0);
  CHECK(nlohmann::json::parse(t.r.out)["layers"] == 4);  // argparse: the last occurrence
  CHECK_THAT(t.r.err,
             Catch::Contains("run.sh:4: --num-layers is given again ('4'; line 2 gave '2')"));
}

TEST_CASE("A MindSpeed JSON argument file with a key written twice is refused") {
  const fs::path dir = scratch("megatron_json");
  const std::string text =
      "{\"num_layers\": 2, \"hidden_size\": 256,\n \"num_attention_heads\": 4,\n"
      " \"num_layers\": 8}\n";
  refused(model(write(dir / "args.json", text).string() + " -f megatron"), "E-PARSE-DUPLICATE",
          {"args.json:3", "\"num_layers\"", "lines 1 and 3"});
}

// ---- TorchTitan TOML ------------------------------------------------------------------

TEST_CASE("TOML nested 60,000 deep, a duplicated key and a FIFO are refused") {
  const fs::path dir = scratch("toml");
  const size_t depth = 60000;
  // toml++ stops at TOML_MAX_NESTED_VALUES (256) itself.
  refused(model(write(dir / "deep.toml", "[model]\nname = \"llama3\"\nx = " + repeat("[", depth) +
                                             repeat("]", depth) + "\n")
                    .string() +
                " -f torchtitan"),
          "E-PARSE-FIELD", {"deep.toml:3", "not valid TOML"});
  refused(model(write(dir / "dup.toml",
                      "[model]\nname = \"llama3\"\nflavor = \"8B\"\nname = \"llama4\"\n")
                    .string() +
                " -f torchtitan"),
          "E-PARSE-FIELD", {"dup.toml:4", "not valid TOML"});
  REQUIRE(::mkfifo((dir / "job.toml").c_str(), 0600) == 0);
  refused(model((dir / "job.toml").string() + " -f torchtitan"), "E-PARSE-FILE",
          {"job.toml", "FIFO"});
}

// ---- Counts that no config reaches --------------------------------------------------

TEST_CASE("More keys, YAML values or script words than any config holds are refused early") {
  const fs::path dir = scratch("counts");
  // 100,001 keys: kMaxJsonKeys is 100,000 (an HF config has ~50).
  std::string keys = std::string(kTinyHf).substr(0, std::string(kTinyHf).size() - 2) + ", \"x\": {";
  for (int i = 0; i <= 100000; ++i) keys += (i == 0 ? "\"k" : ",\"k") + std::to_string(i) + "\":1";
  refused(model(write(dir / "keys.json", keys + "}}\n").string()), "E-PARSE-LIMIT",
          {"keys.json:2", "100000 keys"});

  // 100,001 list items: kMaxYamlNodes is 100,000 (a training YAML holds a few hundred).
  refused(model(write(dir / "values.yaml", "model:\n  x:\n" + repeat("  - 1\n", 100001)).string()),
          "E-PARSE-LIMIT", {"values.yaml:", "100000 YAML values"});

  // 1 MiB + 1 byte of YAML: kDefaultYamlMaxBytes (yaml-cpp scans a plain scalar at ~2 MB/s).
  refused(model(write(dir / "long.yaml", "model:\n  x: " + repeat("y", (1 << 20))).string()),
          "E-PARSE-LIMIT", {"long.yaml", "1048576-byte limit", "NDS_CONFIG_MAX_BYTES"});

  // 100,001 words: kMaxShellWords is 100,000 (a launch script has a few hundred).
  refused(
      model(
          write(dir / "words.sh", launch("", "--num-layers 2" + repeat(" --x 1", 50001))).string()),
      "E-PARSE-LIMIT", {"words.sh:3", "100000 words"});
}

// ---- What the fuzzers found (tests/fuzz_regressions/, docs/fuzzing.md) --------

TEST_CASE("A condition that starts with ')' is a syntax error, not a loop for ever") {
  // fuzz: `if )` made Reader::read_condition read the same empty command
  // for ever (tests/fuzz_regressions/megatron_args/).
  const fs::path dir = scratch("fuzz_if");
  refused(model("-f megatron " + write(dir / "if.sh", "if )\n").string()), "E-PARSE-FIELD",
          {"if.sh:1", "unexpected ')' in a condition before 'then'"});
  refused(model("-f megatron " + write(dir / "while.sh", "while )\ndo\ndone\n").string()),
          "E-PARSE-FIELD", {"while.sh:1", "before 'do'"});
}

TEST_CASE("A JSON number beyond a double is E-PARSE-VALUE naming the file") {
  // fuzz: nlohmann's parse throws out_of_range.406 on 1e999, which only
  // parse_error was caught for (tests/fuzz_regressions/hf_config_json/).
  const fs::path dir = scratch("fuzz_1e999");
  const std::string config = "{\"model_type\": \"llama\", \"hidden_size\": 1e999}\n";
  refused(model(write(dir / "config.json", config).string()), "E-PARSE-VALUE",
          {"config.json", "a number beyond the range of a double"});
}

TEST_CASE("An FSDP2 YAML field of the wrong shape is refused naming its line") {
  // fuzz: yaml-cpp threw from `root["data"]["cutoff_len"]` on `data: 1` and
  // from as<std::string>() on a map (tests/fuzz_regressions/megatron_fsdp2_yaml/).
  const fs::path dir = scratch("fuzz_fsdp2");
  const std::string head = "model:\n  model_id: qwen3\nparallel:\n  fsdp_modules: [model.layers]\n";
  refused(model("-f megatron " + write(dir / "data.yaml", head + "data: 1\n").string()),
          "E-PARSE-FIELD", {"data.yaml:5", "does not have the shape an FSDP2 YAML gives it"});
  const std::string map_id =
      "model:\n  model_id: {a: 1}\nparallel:\n  fsdp_modules: [model.layers]\n";
  refused(model("-f megatron " + write(dir / "id.yaml", map_id).string()), "E-PARSE-FIELD",
          {"id.yaml:2", "bad conversion"});
}

TEST_CASE("A pipeline degree beyond what a parser reads is refused before its per-stage tables") {
  // kMaxCountRead (plugins/common/parsing/read_limits.hpp) is 2^20 stages; a
  // scalar offset would otherwise fill a table of 2^21 entries first.
  const fs::path dir = scratch("stages");
  const std::string yaml =
      "parallel_config:\n  data_parallel: 1\n  model_parallel: 1\n  pipeline_stage: 2097152\n"
      "model:\n  model_config:\n    type: LlamaConfig\n    seq_length: 2048\n    hidden_size: "
      "1024\n"
      "    num_layers: 8\n    num_heads: 16\n    vocab_size: 32000\n    offset: 0\n"
      "  arch:\n    type: LlamaForCausalLM\n";
  refused(model("-f mindformers " + write(dir / "train.yaml", yaml).string()), "E-PARSE-VALUE",
          {"train.yaml:4", "`parallel_config.pipeline_stage` = 2097152",
           "at most 1048576 pipeline stages"});
}

TEST_CASE("Text the YAML reader cannot get past stops at the document limit, at once") {
  // fuzz: yaml-cpp returns endless empty documents for ",g\v" (3 bytes);
  // counted as values they took 10^5 rounds (tests/fuzz_regressions/megatron_fsdp2_yaml/).
  const fs::path dir = scratch("fuzz_documents");
  // The message names the 1024-document limit, so the reader stopped there;
  // refused()'s timeout is the hang guard. A tighter wall-clock bound
  // failed CI under ASan on a loaded 2-core machine (1.05 s, mostly the
  // sanitizer's start-up), so it measured the machine, not the reader.
  refused(model("-f megatron " + write(dir / "train.yaml", ",g\v").string()), "E-PARSE-LIMIT",
          {"train.yaml", "more than 1024 YAML documents"});
}

TEST_CASE("An unknown Megatron recompute module is refused with the closest name") {
  // Issue 34: Megatron-Core's own validation refuses a module outside its
  // set; a typo priced as "not understood" would price another job.
  const fs::path dir = scratch("recompute_modules");
  const std::string script = launch(
      "", "--num-layers 2 --recompute-granularity selective --recompute-modules core_atn mlp");
  refused(model("-f megatron " + write(dir / "run.sh", script).string()), "E-PARSE-FIELD",
          {"run.sh:3", "--recompute-modules 'core_atn'", "(did you mean 'core_attn'?)"});
  // A module Megatron has and ndsearch does not price is a warning, not an error.
  const std::string known = launch(
      "", "--num-layers 2 --recompute-granularity selective --recompute-modules mla_up_proj mlp");
  const Timed t = model("-f megatron " + write(dir / "known.sh", known).string());
  CHECK(t.r.exit_code == 0);
  CHECK_THAT(t.r.out, Catch::Contains("--recompute-modules mla_up_proj: field not understood"));
}
