# SPDX-License-Identifier: Apache-2.0
"""The installed Python package, imported from the prefix: prints the path of
the first plugin it loaded, then the best step time of CONFIG on 64 H100 SXM
(as best_strategy.cpp asks), and checks it against the CLI's STEP_S (the
same double, printed by CMake with other digits): python3 installed_package.py
CONFIG STEP_S."""
import sys

import ndsearch

print(ndsearch.plugins()["plugins"][0]["path"])
answer = ndsearch.search(sys.argv[1], device="nvidia-h100-sxm", devices=64, global_batch=64,
                         seq_len=8192, top=1)
step_s = answer["ranking"][0]["time"]["step_s"]
print(step_s)
if abs(step_s - float(sys.argv[2])) > 1e-12 * step_s:
    sys.exit(f"the installed package's best step {step_s} s is not the CLI's {sys.argv[2]} s")
