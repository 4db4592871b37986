#!/usr/bin/env bash
# Builds ndsearch if needed and runs the main job on a shipped example: the
# search for the fastest way to train Llama-3.1-70B on 64 H100, after what
# the parser understood of its config and the top strategy explained by eval
# (memory per stage, step time, MFU).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" build
ndsearch="$root/build/bin/ndsearch"
run() {
  echo
  echo "\$ ndsearch $*"
  "$ndsearch" "$@"
}
run model "$root/examples/llama-3.1-70b/config.json"
run eval "$root/examples/llama-3.1-70b/config.json" -A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64 \
  --strategy "tp=8,pp=4,dp=2,mbs=1,recompute=full"
run search "$root/examples/llama-3.1-70b/config.json" -A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64
