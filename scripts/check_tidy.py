#!/usr/bin/env python3
"""The tidy gate (issue 37): the C++ sources of core/, hosts/, plugins/ and
sdk/ that a range of commits changed pass .clang-tidy as whole files, every
warning an error: a commit that touches a file leaves all of it tidy, so
older code is cleaned file by file, not all at once. Main files only: the
headers are reached under the build's include roots, another path. Needs
the Release build's build/compile_commands.json; clang-tidy comes from
setup.sh.

    scripts/check_tidy.py          the last commit (HEAD~1..HEAD)
    scripts/check_tidy.py REV      everything since REV (REV..HEAD)
"""
import concurrent.futures
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ["core/", "hosts/", "plugins/", "sdk/"]


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def changed_files(base):
    """The C++ sources of FOLDERS that base..HEAD added, changed or renamed."""
    names = git("diff", "--name-only", "--diff-filter=AMR", base, "HEAD", "--", "*.cpp").stdout
    return sorted(p for p in names.split() if p.startswith(tuple(FOLDERS)))


def tidy(path):
    result = subprocess.run(
        ["clang-tidy", "-p", "build", "--quiet", "--header-filter=^$", "--warnings-as-errors=*",
         path],
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
    files = [p for p in changed_files(base) if p in compiled]
    if not files:
        print(f"check_tidy: no C++ source of core/, hosts/, plugins/ or sdk/ changed in "
              f"{base}..HEAD")
        return 0
    jobs = int(os.environ.get("NDS_JOBS", os.cpu_count() or 1))
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, code, text in pool.map(tidy, files):
            if code != 0:
                failed += 1
                sys.stdout.write(text)
    if failed:
        print(f"check_tidy: {failed} of the {len(files)} files {base}..HEAD changed have "
              f"findings; fix them (or a check STYLE.md decides otherwise goes in .clang-tidy)",
              file=sys.stderr)
        return 1
    print(f"check_tidy: the {len(files)} files {base}..HEAD changed, whole, as .clang-tidy says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
