# SPDX-License-Identifier: Apache-2.0
"""The Python binding answers as the CLI does: for the shipped examples, each
call's dict equals the JSON `ndsearch VERB --format json` prints for the same
inputs, and bad input raises ndsearch.Error with the CLI's error id.

Run by CTest (tests/CMakeLists.txt) with NDS_TEST_CLI naming the ndsearch
program, NDS_TEST_EXAMPLES the examples folder and PYTHONPATH the built
package; XDG_CACHE_HOME keeps plugin verdicts in the build tree."""

import json
import os
import re
import subprocess
import tempfile
import unittest

import ndsearch

CLI = os.environ["NDS_TEST_CLI"]
EXAMPLES = os.environ["NDS_TEST_EXAMPLES"]
TORCHTITAN = os.path.join(EXAMPLES, "llama3-8b-torchtitan", "llama3_8b.toml")
LLAMA70B = os.path.join(EXAMPLES, "llama-3.1-70b", "config.json")
DEEPSEEK = os.path.join(EXAMPLES, "deepseek-v3-hyperparallel", "deepseek_v3.yaml")
ACME = os.path.join(EXAMPLES, "devices", "acme-x1.toml")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
# A vision-language model of a few thousand parameters (tests/test_vision_towers.cpp).
TINY_VL = os.path.join(FIXTURES, "configs", "hf", "tiny-vl.json")
# Run-to-run numbers of a search: its wall time and speed.
VOLATILE = ("elapsed_s", "candidates_per_s")


def cli_json(*args):
    """The JSON document `ndsearch ARGS --format json` prints (exit 0 expected)."""
    done = subprocess.run([CLI, *args, "--format", "json"], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise AssertionError(f"ndsearch {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return json.loads(done.stdout)


def steady(document):
    """The document without what changes from one run to the next."""
    return {k: v for k, v in document.items() if k not in VOLATILE}


class SameAnswersAsTheCli(unittest.TestCase):
    def test_model(self):
        for config in (TORCHTITAN, LLAMA70B, DEEPSEEK):
            with self.subTest(config=config):
                self.assertEqual(ndsearch.model(config), cli_json("model", config))

    def test_model_with_overrides(self):
        self.assertEqual(ndsearch.model(LLAMA70B, seq_len=4096, global_batch=64),
                         cli_json("model", LLAMA70B, "--seq-len", "4096", "-b", "64"))

    def test_hardware(self):
        self.assertEqual(ndsearch.hardware(), cli_json("hardware"))
        self.assertEqual(ndsearch.hardware("nvidia-h100-sxm"),
                         cli_json("hardware", "nvidia-h100-sxm"))
        self.assertEqual(ndsearch.hardware("acme-x1", device_file=ACME),
                         cli_json("hardware", "acme-x1", "--device-file", ACME))

    def test_plugins(self):
        self.assertEqual(ndsearch.plugins(), cli_json("plugins", "list"))

    def test_evaluate(self):
        # examples/README.md: TP 2 x FSDP 32 for Llama 3 8B on 64 H100.
        self.assertEqual(
            ndsearch.evaluate(TORCHTITAN, device="nvidia-h100-sxm", devices=64,
                              strategy={"tp": 2, "pp": 1, "dp": 32}),
            cli_json("eval", TORCHTITAN, "-A", "nvidia-h100-sxm", "-d", "64",
                     "--strategy", "tp=2,pp=1,dp=32"))

    def test_evaluate_with_recompute_modules(self):
        # Megatron-Core's module names, as --recompute-modules takes them.
        self.assertEqual(
            ndsearch.evaluate(TORCHTITAN, device="nvidia-h100-sxm", devices=64,
                              recompute_modules="core_attn,mlp",
                              strategy={"tp": 2, "pp": 1, "dp": 32, "recompute": "selective"}),
            cli_json("eval", TORCHTITAN, "-A", "nvidia-h100-sxm", "-d", "64", "--recompute-modules",
                     "core_attn,mlp", "--strategy", "tp=2,pp=1,dp=32,recompute=selective"))

    def test_evaluate_with_a_routing_histogram(self):
        # The routing keyword is --routing: the hottest EP rank of skew8.txt.
        config = os.path.join(FIXTURES, "configs", "megatron", "moe_routing.sh")
        histogram = os.path.join(FIXTURES, "routing", "skew8.txt")
        self.assertEqual(
            ndsearch.evaluate(config, device="nvidia-h100-sxm", devices=8, routing=histogram,
                              strategy={"dp": 8, "ep": 4, "mbs": 1}),
            cli_json("eval", config, "-A", "nvidia-h100-sxm", "-d", "8", "--routing", histogram,
                     "--strategy", "dp=8,ep=4,mbs=1"))

    def test_evaluate_a_vision_language_model(self):
        answer = ndsearch.evaluate(TINY_VL, device="nvidia-h100-sxm", devices=2, global_batch=2,
                                   seq_len=64, image_tokens=8, strategy={"pp": 2, "mbs": 1})
        self.assertEqual(answer, cli_json("eval", TINY_VL, "-A", "nvidia-h100-sxm", "-d", "2", "-b", "2",
                                          "--seq-len", "64", "--image-tokens", "8", "--strategy",
                                          "pp=2,mbs=1"))
        self.assertEqual(answer["towers"]["params"], 43232.0)

    def test_search(self):
        got = ndsearch.search(TORCHTITAN, device="nvidia-h100-sxm", devices=64, global_batch=64,
                              seq_len=8192, top=3)
        want = cli_json("search", TORCHTITAN, "-A", "nvidia-h100-sxm", "-d", "64", "-b", "64",
                        "--seq-len", "8192", "-t", "3")
        self.assertEqual(steady(got), steady(want))
        self.assertEqual(len(got["ranking"]), 3)

    def test_search_with_per_layer_recompute(self):
        # docs/cli.md "Per-layer recompute and offload": the keywords are the flags.
        got = ndsearch.search(LLAMA70B, device="nvidia-h100-sxm", devices=64, global_batch=512,
                              seq_len=8192, max_memory="30GB", top=2, offload=True,
                              host_link_overlap=0.5)
        want = cli_json("search", LLAMA70B, "-A", "nvidia-h100-sxm", "-d", "64", "-b", "512",
                        "--seq-len", "8192", "-M", "30GB", "-t", "2", "--offload",
                        "--host-link-overlap", "0.5")
        self.assertEqual(steady(got), steady(want))
        self.assertTrue(got["ranking"][0]["recompute"].startswith("auto:"))

    def test_compare(self):
        # Three runs of Llama 3 8B on 64 H100 in our CSV (docs/cli.md,
        # "Measured runs"), one with a measured part, one a check refuses
        # (dp·tp·pp = 8·3·1 is not the 64 devices): the dict is the CLI's document.
        with tempfile.TemporaryDirectory() as folder:
            runs = os.path.join(folder, "runs.csv")
            with open(runs, "w", encoding="utf-8") as out:
                out.write("dp,tp,pp,step_s,forward_s\n32,2,1,5.0,1.5\n16,4,1,4.0,\n"
                          "8,3,1,6.0,\n")
            got = ndsearch.compare(TORCHTITAN, measured=runs, device="nvidia-h100-sxm",
                                   devices=64, global_batch=64, seq_len=8192)
            want = cli_json("compare", TORCHTITAN, "--measured", runs, "-A", "nvidia-h100-sxm",
                            "-d", "64", "-b", "64", "--seq-len", "8192")
        self.assertEqual(got, want)
        self.assertEqual(len(got["runs"]), 3)
        self.assertEqual(got["priced"], 2)
        self.assertEqual(got["runs"][2]["refused"]["id"], "devices")
        self.assertIn("forward", got["runs"][0]["parts"])

    def test_compare_fit(self):
        # Three runs fit at most two factors (docs/cli.md, "Fitting a
        # calibration"); the dict, its fit included, is the CLI's document and
        # the file it writes is the CLI's.
        with tempfile.TemporaryDirectory() as folder:
            runs = os.path.join(folder, "runs.csv")
            with open(runs, "w", encoding="utf-8") as out:
                out.write("dp,tp,pp,step_s\n32,2,1,1.3\n16,4,1,1.6\n8,8,1,2.1\n")
            fitted = os.path.join(folder, "cal.toml")
            got = ndsearch.compare(TORCHTITAN, measured=runs, device="nvidia-h100-sxm",
                                   devices=64, global_batch=64, seq_len=8192, fit=fitted)
            with open(fitted, encoding="utf-8") as written:
                from_binding = written.read()
            want = cli_json("compare", TORCHTITAN, "--measured", runs, "-A", "nvidia-h100-sxm",
                            "-d", "64", "-b", "64", "--seq-len", "8192", "--fit", fitted)
            with open(fitted, encoding="utf-8") as written:
                from_cli = written.read()
        self.assertEqual(got, want)
        self.assertEqual(from_binding, from_cli)
        self.assertEqual(got["fit"]["runs"], 3)
        self.assertEqual(sum(f["fitted"] for f in got["fit"]["factors"]), 2)
        self.assertLess(got["fit"]["mape_after"], got["fit"]["mape_before"])

    def test_explain(self):
        got = ndsearch.explain(TORCHTITAN, device="nvidia-h100-sxm", devices=64,
                               strategy="tp=2,pp=1,dp=32", global_batch=64, seq_len=8192,
                               dimensions="TP PP")
        want = cli_json("explain", TORCHTITAN, "-A", "nvidia-h100-sxm", "-d", "64",
                        "--strategy", "tp=2,pp=1,dp=32", "-b", "64", "--seq-len", "8192",
                        "-l", "TP PP")
        self.assertEqual(got, want)

    def test_explain_of_the_config_s_own_strategy(self):
        # No strategy: the config's own (tp 2 x FSDP 32), ranked in the default search.
        got = ndsearch.explain(TORCHTITAN, device="nvidia-h100-sxm")
        want = cli_json("explain", TORCHTITAN, "-A", "nvidia-h100-sxm")
        self.assertEqual(got, want)
        self.assertEqual(got["strategy"]["tp"], 2)
        self.assertGreaterEqual(got["search"]["rank"], 1)

    def test_apply(self):
        # The CLI's stdout is the written config; the binding returns it with the changes.
        got = ndsearch.apply(TORCHTITAN, strategy={"tp": 4, "recompute": "full"})
        done = subprocess.run([CLI, "apply", TORCHTITAN, "--strategy", "tp=4,recompute=full"],
                              capture_output=True, text=True, check=True)
        self.assertEqual(got["text"], done.stdout)
        self.assertEqual(got["strategy"]["tp"], 4)
        self.assertIn("tp 2 -> 4", got["key_changes"])
        self.assertIn({"kind": "-", "line": 44, "text": "tensor_parallel_degree = 2"}, got["changes"])
        # ZeRO-1 is past TorchTitan's limits: the check refuses it, as in the CLI.
        with self.assertRaises(ndsearch.Error) as refused:
            ndsearch.apply(TORCHTITAN, strategy="zero=1")
        self.assertEqual(refused.exception.id, "E-STRATEGY-REFUSED")


def write_device(folder, name, memory_gib):
    """A TOML device file (docs/device-toml.md): id "options-npu", an H100 with
    `memory_gib` of memory."""
    path = os.path.join(folder, name + ".toml")
    with open(path, "w", encoding="utf-8") as out:
        out.write('id = "options-npu"\nbase = "nvidia-h100-sxm"\n'
                  f'name = "Options NPU {name}"\nmemory_gib = {memory_gib}\n')
    return path


class TwoPlannersAtOnce(unittest.TestCase):
    def test_each_lists_the_device_of_its_own_device_file(self):
        with tempfile.TemporaryDirectory() as folder:
            big, small = write_device(folder, "big", 80), write_device(folder, "small", 24)
            first = ndsearch.Planner(device_file=big)
            second = ndsearch.Planner(device_file=small)  # while the first is alive
            for planner, path, gib in ((first, big, 80), (second, small, 24), (first, big, 80)):
                with self.subTest(device_file=path):
                    device = planner.device("options-npu")
                    self.assertEqual(device["memory_bytes"], gib << 30)
                    self.assertEqual(device, cli_json("hardware", "options-npu",
                                                      "--device-file", path))
                    self.assertEqual(planner.hardware(),
                                     cli_json("hardware", "--device-file", path))


class ErrorsCarryTheCliIds(unittest.TestCase):
    def test_unknown_device(self):
        with self.assertRaises(ndsearch.Error) as raised:
            ndsearch.evaluate(TORCHTITAN, device="no-such-device", devices=8)
        self.assertEqual(raised.exception.id, "E-DEVICE-UNKNOWN")
        self.assertEqual(raised.exception.exit_code, 2)
        self.assertIn("no-such-device", str(raised.exception))

    def test_missing_config(self):
        with self.assertRaises(ndsearch.Error) as raised:
            ndsearch.model(os.path.join(EXAMPLES, "no-such-config.yaml"))
        self.assertEqual(raised.exception.id, "E-PARSE-FILE")

    def test_plugin_time_limit_out_of_range(self):
        # The CLI's --plugin-timeout range (docs/cli.md): 0.1 to 3600 seconds.
        with self.assertRaises(ndsearch.Error) as raised:
            ndsearch.plugins(plugin_timeout_s=0)
        self.assertEqual(raised.exception.id, "E-USAGE")
        self.assertIn("give 0.1 to 3600 seconds", str(raised.exception))

    def test_missing_settings_are_named_by_keyword(self):
        # llama-3.1-70b's config.json states neither a device count nor a
        # global batch (E-MISSING-VALUES lists what pricing needs); the
        # message names the keyword, not the CLI's -d or -b.
        with self.assertRaises(ndsearch.Error) as raised:
            ndsearch.search(LLAMA70B, device="nvidia-h100-sxm", global_batch=64)
        self.assertEqual(raised.exception.id, "E-MISSING-VALUES")
        self.assertIn("set the device count (`devices`)", str(raised.exception))
        self.assertNotRegex(str(raised.exception), r"(^|[\s(])-d\b")
        with self.assertRaises(ndsearch.Error) as raised:
            ndsearch.search(LLAMA70B, device="nvidia-h100-sxm", devices=8)
        self.assertEqual(raised.exception.id, "E-MISSING-VALUES")
        self.assertIn("set the global batch (`global_batch`)", str(raised.exception))
        self.assertNotRegex(str(raised.exception), r"(^|[\s(])-b\b")

    def test_compare_takes_no_strategy(self):
        # Each measured run states its own strategy.
        with self.assertRaises(ndsearch.Error) as raised:
            ndsearch.compare(TORCHTITAN, measured="runs.csv", device="nvidia-h100-sxm",
                             strategy="tp=2")
        self.assertEqual(raised.exception.id, "E-USAGE")
        self.assertIn("unknown keyword strategy", str(raised.exception))

    def test_misspelt_keyword(self):
        with self.assertRaises(ndsearch.Error) as raised:
            ndsearch.model(LLAMA70B, seq_lenght=4096)
        self.assertEqual(raised.exception.id, "E-USAGE")
        self.assertIn("seq_lenght", str(raised.exception))


def cli_run(*args):
    """`ndsearch ARGS` run for its files and text: (stdout, exit code)."""
    done = subprocess.run([CLI, *args], capture_output=True, text=True, check=False)
    return done.stdout, done.returncode


def read_steady(path):
    """A written file without what changes from one run to the next (the
    search's wall time and speed in the report's data)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for key in VOLATILE:
        text = re.sub(r'"%s":\s*[0-9.e+-]+' % key, '"%s": 0' % key, text)
    return text


class SameFilesAsTheCli(unittest.TestCase):
    """Every output the CLI writes, the binding writes too, with the same
    content: the search's folder (ranking, dropped, recompute potentials,
    priced candidates, the report), its ranking CSV, the balancer's layer
    description, the emitted config; explain's timeline and report; compare's
    per-run CSV. And each call's text, with format="text", is the CLI's."""

    def assert_same_files(self, cli_dir, python_dir):
        cli_files = sorted(os.listdir(cli_dir))
        self.assertEqual(cli_files, sorted(os.listdir(python_dir)))
        self.assertGreater(len(cli_files), 0)
        for name in cli_files:
            with self.subTest(file=name):
                self.assertEqual(read_steady(os.path.join(cli_dir, name)),
                                 read_steady(os.path.join(python_dir, name)))

    def test_search_files(self):
        with tempfile.TemporaryDirectory() as cli_dir, tempfile.TemporaryDirectory() as py_dir:
            out, code = cli_run("search", LLAMA70B, "-A", "nvidia-h100-sxm", "-d", "64", "-b", "64",
                                "--seq-len", "8192", "-v", "3", "-o", cli_dir, "--report",
                                "--ppb-rank", "2", "--ranking-csv", os.path.join(cli_dir, "all.csv"),
                                "--emit-config", os.path.join(cli_dir, "emitted.txt"), "--rank", "2")
            self.assertEqual(code, 0, out)
            ndsearch.search(LLAMA70B, device="nvidia-h100-sxm", devices=64, global_batch=64,
                            seq_len=8192, all_misses=True, priced_csv=True, output_dir=py_dir,
                            report=True, ppb_rank=2, ranking_csv=os.path.join(py_dir, "all.csv"),
                            emit_config=os.path.join(py_dir, "emitted.txt"), emit_rank=2)
            # ranking, dropped, recompute potentials, priced, report, all.csv,
            # the balancer's description and the emitted config.
            self.assertEqual(len(os.listdir(py_dir)), 8)
            self.assert_same_files(cli_dir, py_dir)

    def test_explain_files(self):
        with tempfile.TemporaryDirectory() as cli_dir, tempfile.TemporaryDirectory() as py_dir:
            flags = ("-A", "nvidia-h100-sxm", "-d", "64")
            out, code = cli_run("explain", TORCHTITAN, *flags, "--strategy", "tp=2,pp=1,dp=32",
                                "--timeline", os.path.join(cli_dir, "timeline.json"),
                                "--report", os.path.join(cli_dir, "report.html"))
            self.assertEqual(code, 0, out)
            ndsearch.explain(TORCHTITAN, device="nvidia-h100-sxm", devices=64,
                             strategy={"tp": 2, "pp": 1, "dp": 32},
                             timeline=os.path.join(py_dir, "timeline.json"),
                             report=os.path.join(py_dir, "report.html"))
            self.assert_same_files(cli_dir, py_dir)

    def test_compare_file(self):
        measured = os.path.join(os.path.dirname(EXAMPLES), "validation", "nemo-24.07-h100-fp8.csv")
        with tempfile.TemporaryDirectory() as cli_dir, tempfile.TemporaryDirectory() as py_dir:
            out, code = cli_run("compare", "--measured", measured, "-o", cli_dir)
            self.assertEqual(code, 0, out)
            ndsearch.Planner().compare(measured=measured, output_dir=py_dir)
            self.assert_same_files(cli_dir, py_dir)

    def test_text(self):
        # No setting is named in these texts, so the CLI's flags change nothing.
        flags = ("-A", "nvidia-h100-sxm", "-d", "64")
        for verb, call in (
                ("eval", lambda: ndsearch.evaluate(TORCHTITAN, device="nvidia-h100-sxm", devices=64,
                                                   strategy="tp=2,pp=1,dp=32", format="text")),
                ("model", lambda: ndsearch.model(TORCHTITAN, format="text"))):
            with self.subTest(verb=verb):
                args = (verb, TORCHTITAN) + ((*flags, "--strategy", "tp=2,pp=1,dp=32")
                                             if verb == "eval" else ())
                out, code = cli_run(*args)
                self.assertEqual(code, 0)
                self.assertEqual(call(), out)


if __name__ == "__main__":
    unittest.main()
