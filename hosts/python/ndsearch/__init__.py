# SPDX-License-Identifier: Apache-2.0
"""ndsearch in process: the fastest hybrid-parallel strategy to train an LLM.

Each function answers with the dict of the CLI's JSON for the same verb
(docs/cli.md lists the keys; docs/python.md shows the calls) and raises
ndsearch.Error, whose .id is the CLI's error id, for bad input:

    import ndsearch
    ndsearch.model("run.yaml")["params_total"]
    ndsearch.evaluate("run.yaml", device="nvidia-h100-sxm", devices=64,
                      strategy={"tp": 8, "pp": 2})["time"]["step_s"]
    ndsearch.search("run.yaml", device="nvidia-h100-sxm", devices=64)["ranking"][0]
    ndsearch.compare("run.yaml", measured="runs.csv", device="nvidia-h100-sxm")["metrics"]

Keywords are those of the CLI's flags, spelt with underscores (global_batch
for -b, max_memory for -M, ...). Plugin settings (plugin_files, plugin_dirs,
device_file, options, allow_override, plugin_timeout_s, use_environment) may
be given to any call, or once to a Planner whose methods take the rest.
"""

from ._ndsearch import Error, Planner

__all__ = ["Error", "Planner", "plugins", "hardware", "model", "evaluate", "search", "explain", "apply",
           "compare"]

_PLUGIN_KEYS = ("plugin_files", "plugin_dirs", "use_environment", "device_file",
                "allow_override", "plugin_timeout_s", "options")


def _planner(kwargs):
    """A Planner of the plugin keywords in kwargs (removed from it)."""
    return Planner(**{k: kwargs.pop(k) for k in _PLUGIN_KEYS if k in kwargs})


def _strategy_text(strategy):
    """{"tp": 4, "recompute": "full"} -> "tp=4,recompute=full"; a string is kept."""
    if strategy is None or isinstance(strategy, str):
        return strategy
    def text(value):
        return str(value).lower() if isinstance(value, bool) else str(value)
    return ",".join(f"{key}={text(value)}" for key, value in strategy.items())


def plugins(**kwargs):
    """The loaded plugins and the skipped libraries (`ndsearch plugins list`)."""
    return _planner(kwargs).plugins()


def hardware(device=None, **kwargs):
    """Every device, or one by id or alias (`ndsearch hardware [ID]`)."""
    planner = _planner(kwargs)
    return planner.device(device) if device else planner.hardware()


def model(config, **kwargs):
    """What the parser understood of a config (`ndsearch model`)."""
    return _planner(kwargs).model(config=config, **kwargs)


def evaluate(config, device, devices=0, strategy=None, **kwargs):
    """One strategy checked and priced (`ndsearch eval`)."""
    return _planner(kwargs).evaluate(config=config, device=device, devices=devices,
                                     strategy=_strategy_text(strategy), **kwargs)


def explain(config, device, strategy=None, devices=0, **kwargs):
    """One strategy's checks, memory and time; with dimensions or only, its
    rank in that search and what beats it (`ndsearch explain`). Without a
    strategy: the config's own, ranked in the default search."""
    return _planner(kwargs).explain(config=config, device=device, devices=devices,
                                    strategy=_strategy_text(strategy), **kwargs)


def apply(config, strategy, devices=0, **kwargs):
    """The config with `strategy` written into it by its parser, read back and
    checked: the text, the keys and lines that changed (`ndsearch apply`)."""
    return _planner(kwargs).apply(config=config, strategy=_strategy_text(strategy), devices=devices,
                                  **kwargs)


def search(config, device, devices=0, **kwargs):
    """Every strategy enumerated, checked, priced and ranked (`ndsearch search`)."""
    return _planner(kwargs).search(config=config, device=device, devices=devices, **kwargs)


def compare(config, measured, device, devices=0, **kwargs):
    """Measured runs priced as evaluate prices them and compared with their
    measured times (`ndsearch compare --measured`). Each run of the CSV states
    its strategy, and may give its own devices, global_batch and seq_len.
    A file none of whose runs could be priced answers with priced 0 (the CLI
    exits 2 there, E-COMPARE-NONE-PRICED)."""
    return _planner(kwargs).compare(config=config, measured=measured, device=device,
                                    devices=devices, **kwargs)
