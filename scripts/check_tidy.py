#!/usr/bin/env python3
"""The tidy gate (issue 37): the lines a range of commits changed in the C++
sources of core/, hosts/, plugins/ and sdk/ pass .clang-tidy, every warning
an error. Only the changed lines (clang-tidy --line-filter, as LLVM's
clang-tidy-diff does): older code is cleaned when a commit touches it, not
all at once. Main files only: the headers are reached under the build's
include roots, another path. Needs the Release build's
build/compile_commands.json; clang-tidy comes from setup.sh.

    scripts/check_tidy.py          the last commit (HEAD~1..HEAD)
    scripts/check_tidy.py REV      everything since REV (REV..HEAD)
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ["core/", "hosts/", "plugins/", "sdk/"]


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def changed_lines(base):
    """{path: [[first, last], ...]} of the lines base..HEAD added or changed."""
    diff = git("diff", "-U0", "--diff-filter=AMR", base, "HEAD", "--", "*.cpp").stdout
    out, path = {}, None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and path and path.startswith(tuple(FOLDERS)):
            m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            first, count = int(m.group(1)), int(m.group(2) or 1)
            if count > 0:
                out.setdefault(path, []).append([first, first + count - 1])
    return out


def tidy(path, lines):
    result = subprocess.run(
        ["clang-tidy", "-p", "build", "--quiet", "--header-filter=^$", "--warnings-as-errors=*",
         "--line-filter=" + json.dumps([{"name": path, "lines": lines}]), path],
        cwd=ROOT, capture_output=True, text=True)
    return path, result.returncode, result.stdout


def main():
    base = sys.argv[1] if len(sys.argv) > 1 else "HEAD~1"
    if git("rev-parse", "--verify", "--quiet", base + "^{commit}").returncode != 0:
        print(f"check_tidy: no commit {base} (a shallow clone?): nothing to check")
        return 0
    database = os.path.join(ROOT, "build", "compile_commands.json")
    if not os.path.exists(database):
        print("check_tidy: build/compile_commands.json is missing; run scripts/build.sh build",
              file=sys.stderr)
        return 2
    with open(database, encoding="utf-8") as f:
        compiled = {os.path.relpath(entry["file"], ROOT) for entry in json.load(f)}
    # Only what the build compiles (a plugin template, say, is not).
    files = {p: l for p, l in changed_lines(base).items() if p in compiled}
    if not files:
        print(f"check_tidy: no C++ line of core/, hosts/, plugins/ or sdk/ changed in {base}..HEAD")
        return 0
    jobs = int(os.environ.get("NDS_JOBS", os.cpu_count() or 1))
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, code, text in pool.map(lambda kv: tidy(*kv), sorted(files.items())):
            if code != 0:
                failed += 1
                sys.stdout.write(text)
    lines = sum(b - a + 1 for spans in files.values() for a, b in spans)
    if failed:
        print(f"check_tidy: {failed} of {len(files)} files have findings on the {lines} lines "
              f"{base}..HEAD changed; fix them (or a check STYLE.md decides otherwise goes "
              f"in .clang-tidy)", file=sys.stderr)
        return 1
    print(f"check_tidy: the {lines} changed lines of {len(files)} files of {base}..HEAD as "
          f".clang-tidy says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
