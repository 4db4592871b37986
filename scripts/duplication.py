#!/usr/bin/env python3
"""The duplication gate (issue 37): lines of our C and C++ sources that
stand again, to the letter, elsewhere, under a ceiling that may only fall.

A clone is a run of MIN_RUN or more meaningful lines (white space folded;
blank lines, comments, lone punctuation, #include, #pragma and namespace
lines passed over) that stands in two or more places. The count is the
number of lines inside some clone, every place counted. Read: core/, hosts/,
plugins/, sdk/, tests/, bench/, fuzz/. Left out: abi/ and tests/compat/ (the
ABI headers and their frozen snapshots: their bytes are the record),
validation/ (the published runs' scripts), build folders.

    scripts/duplication.py           check against scripts/duplication_ceiling.txt
    scripts/duplication.py --write   lower the ceiling to today's count (never raises it)
    scripts/duplication.py --list N  the N largest clones, to plan a clean-up
"""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CEILING = os.path.join(ROOT, "scripts", "duplication_ceiling.txt")
FOLDERS = ["core", "hosts", "plugins", "sdk", "tests", "bench", "fuzz"]
LEFT_OUT = [os.path.join("tests", "compat")]
ENDINGS = (".cpp", ".hpp", ".h", ".c", ".inc")
MIN_RUN = 6

PASSED_OVER = re.compile(
    r"^(//.*|/\*.*|\*.*|[{}()\[\];,]*|#\s*include.*|#\s*pragma.*|namespace\b.*|}\s*//.*)$")


def sources():
    for folder in FOLDERS:
        for where, dirs, names in os.walk(os.path.join(ROOT, folder)):
            rel = os.path.relpath(where, ROOT)
            dirs[:] = sorted(d for d in dirs if not d.startswith("build")
                             and os.path.join(rel, d) not in LEFT_OUT)
            for name in sorted(names):
                if name.endswith(ENDINGS):
                    yield os.path.join(rel, name)


def meaningful_lines(path):
    """[(line number, folded text)] of the lines that can make a clone."""
    out = []
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            text = " ".join(line.split())
            if text and not PASSED_OVER.match(text):
                out.append((number, text))
    return out


def clones():
    """{run of MIN_RUN folded lines: [(path, index into its meaningful lines)]}, 2+ places."""
    files = {path: meaningful_lines(path) for path in sources()}
    places = collections.defaultdict(list)
    for path, lines in files.items():
        for i in range(len(lines) - MIN_RUN + 1):
            places[tuple(t for _, t in lines[i:i + MIN_RUN])].append((path, i))
    return files, {run: at for run, at in places.items() if len(at) > 1}


def duplicated_lines(files, found):
    """{path: set of line numbers inside some clone}."""
    marked = collections.defaultdict(set)
    for at in found.values():
        for path, i in at:
            marked[path].update(n for n, _ in files[path][i:i + MIN_RUN])
    return marked


def main():
    files, found = clones()
    marked = duplicated_lines(files, found)
    total = sum(len(lines) for lines in marked.values())
    if sys.argv[1:2] == ["--list"]:
        most = int(sys.argv[2]) if len(sys.argv) > 2 else 20
        for path, lines in sorted(marked.items(), key=lambda kv: -len(kv[1]))[:most]:
            print(f"{len(lines):6d} {path}")
        print(f"duplication: {total} lines inside clones of {MIN_RUN}+ lines")
        return 0
    with open(CEILING, encoding="utf-8") as f:
        ceiling = int(next(line for line in f if not line.startswith("#")).strip())
    if sys.argv[1:] == ["--write"]:
        if total > ceiling:
            print(f"duplication: {total} lines, above the ceiling {ceiling}; the ceiling only "
                  f"falls: remove the copies (scripts/duplication.py --list 20)", file=sys.stderr)
            return 1
        with open(CEILING, "w", encoding="utf-8") as f:
            f.write("# Lines inside clones of 6+ lines (scripts/duplication.py); may only fall.\n")
            f.write(f"{total}\n")
        print(f"duplication: ceiling {ceiling} -> {total}")
        return 0
    if total > ceiling:
        print(f"duplication: {total} lines inside clones, above the ceiling of {ceiling}: the "
              f"change copies code; extract the shared piece (scripts/duplication.py --list 20 "
              f"shows where)", file=sys.stderr)
        return 1
    print(f"duplication: {total} lines inside clones (ceiling {ceiling})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
