#!/usr/bin/env bash
# Builds ndsearch if needed and compares the time model with every published
# run of validation/: `ndsearch compare --measured F` for each validation/*.csv,
# printing its table (the step-time errors and their mean, the mape, that
# docs/validation.md reports). Extra arguments go to every compare (e.g.
# --format json). Exits non-zero when any compare fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" build
ndsearch="$root/build/bin/ndsearch"
shopt -s nullglob
files=("$root"/validation/*.csv)
if [ ${#files[@]} -eq 0 ]; then
  echo "validate: no CSV in $root/validation" >&2
  exit 1
fi
failed=0
for file in "${files[@]}"; do
  echo
  echo "\$ ndsearch compare --measured validation/$(basename "$file") $*"
  if ! "$ndsearch" compare --measured "$file" "$@"; then
    echo "validate: compare failed on $file" >&2
    failed=1
  fi
done
exit "$failed"
