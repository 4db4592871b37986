#!/usr/bin/env bash
# Builds ndsearch if needed and runs the main job on a shipped example: until
# the search exists, what the parser understands of Llama-3.1-70B's config and
# one strategy for it on 64 H100 priced (memory per stage, step time, MFU),
# after the plugins and devices ndsearch loads.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" build
ndsearch="$root/build/bin/ndsearch"
run() {
  echo
  echo "\$ ndsearch $*"
  "$ndsearch" "$@"
}
run plugins list
run hardware
run model "$root/examples/llama-3.1-70b/config.json"
run eval "$root/examples/llama-3.1-70b/config.json" -A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64 \
  --strategy "tp=8,pp=4,dp=2,mbs=1,recompute=full"
