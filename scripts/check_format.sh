#!/usr/bin/env bash
# The format gate (issue 37): every C and C++ source of ours as .clang-format
# says (STYLE.md), with Debian's clang-format (setup.sh installs it). Left
# out: abi/ and tests/compat/ (the ABI headers and their frozen copies: their
# bytes are the record) and the generated .inc files. To fix a failure:
# `git clang-format` on what you staged, or clang-format -i FILE.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mapfile -t files < <(find core hosts plugins sdk tests bench fuzz \
  \( -path tests/compat -o -path '*/build*' \) -prune -o \
  -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.c' \) -print | sort)
clang-format --dry-run --Werror "${files[@]}"
echo "check_format: ${#files[@]} files as .clang-format says"
