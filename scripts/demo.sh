#!/usr/bin/env bash
# Builds ndsearch if needed and runs the main job on a shipped example: the
# search for the fastest way to train Llama-3.1-70B on 64 H100, after what
# the parser understood of its config and the top strategy explained by eval
# (memory per stage, step time, MFU).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# The build's log goes to a file: the demo shows a line of progress (one
# rewritten line on a terminal, two lines otherwise) and the log only when
# the build fails.
log="$root/build/demo-build.log"
mkdir -p "$root/build"
echo "building ndsearch (the log: $log) ..."
"$root/scripts/build.sh" build >"$log" 2>&1 &
builder=$!
if [ -t 1 ]; then
  while kill -0 "$builder" 2>/dev/null; do
    percent="$(grep -o '^\[ *[0-9]*%\]' "$log" 2>/dev/null | tail -1 | tr -dc '0-9')" || true
    printf '\r  %s %%' "${percent:-0}"
    sleep 1
  done
  printf '\r'
fi
if ! wait "$builder"; then
  echo "the build failed; its log:"
  cat "$log"
  exit 1
fi
echo "built: $root/build/bin/ndsearch"
ndsearch="$root/build/bin/ndsearch"
run() {
  echo
  echo "\$ ndsearch $*"
  "$ndsearch" "$@"
}
run model "$root/examples/llama-3.1-70b/config.json"
run eval "$root/examples/llama-3.1-70b/config.json" -A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64 \
  --strategy "tp=8,pp=4,dp=2,mbs=1,recompute=full"
# The search, writing its CSVs and its HTML report (docs/report.md) beside the table.
run search "$root/examples/llama-3.1-70b/config.json" -A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64 \
  -o "$root/build/demo-report" --report
echo
echo "the report: $root/build/demo-report/report.html (open it in a browser)"
