#!/usr/bin/env python3
"""The function-length ratchet (issue 37): no function of core/ over
LIMIT lines but those scripts/long_functions.txt lists, and none of those
longer than it says. The list may only shrink: split a function and lower
(or drop) its line; a new long function, or a listed one that grew, fails.

Lengths are pmccabe's (Debian's pmccabe): the lines from a function's first
to its last. pmccabe predates C++14's digit separators: it reads the ' in
10'000 as a character literal's and runs the rest of the file into one
function (Child::wait_until measured 168 lines that way; it has 13). So
it reads a copy of each file with the separators taken out, line for line. `--write` rewrites the list from the tree as it stands (for a
commit that shortens functions; review its diff: it must only fall)."""

import os
import re
import subprocess
import sys
import tempfile

LIMIT = 80
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "scripts", "long_functions.txt")


def lengths():
    """{"file function": lines} of every core function over LIMIT lines."""
    files = []
    for folder, _, names in os.walk(os.path.join(ROOT, "core")):
        files += [os.path.join(folder, n) for n in names if n.endswith((".cpp", ".hpp"))]
    with tempfile.TemporaryDirectory() as copies:
        read = []
        for path in sorted(files):
            copy = os.path.join(copies, os.path.relpath(path, ROOT))
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            with open(path, encoding="utf-8") as f, open(copy, "w", encoding="utf-8") as out:
                out.write(re.sub(r"(?<=[0-9a-fA-F])'(?=[0-9a-fA-F])", "", f.read()))
            read.append(copy)
        out = subprocess.run(["pmccabe", *read], capture_output=True, text=True,
                             check=True).stdout
        found = {}
        for line in out.splitlines():
            fields = line.split("\t")
            where, name = fields[5].split(": ", 1)
            key = f"{os.path.relpath(where.split('(')[0], copies)} {name}"
            if int(fields[4]) > LIMIT:
                found[key] = max(found.get(key, 0), int(fields[4]))
    return found


def listed():
    allowed = {}
    with open(LIST, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                lines, key = line.strip().split(" ", 1)
                allowed[key] = int(lines)
    return allowed


def main():
    found = lengths()
    if sys.argv[1:] == ["--write"]:
        with open(LIST, "w", encoding="utf-8") as f:
            f.write(f"# Functions of core/ over {LIMIT} lines (scripts/function_lengths.py): "
                    "lines, file, function.\n# This list may only shrink.\n")
            for key, n in sorted(found.items(), key=lambda kv: -kv[1]):
                f.write(f"{n} {key}\n")
        return 0
    allowed = listed()
    bad = [f"{key}: {n} lines, over {LIMIT} and not in scripts/long_functions.txt; split it "
           "into named steps" for key, n in found.items() if key not in allowed]
    bad += [f"{key}: {n} lines, longer than the {allowed[key]} the list allows; split it"
            for key, n in found.items() if key in allowed and n > allowed[key]]
    for line in bad:
        print(f"function_lengths: {line}", file=sys.stderr)
    print(f"function_lengths: {len(found)} functions of core/ over {LIMIT} lines "
          f"({len(allowed)} listed)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
