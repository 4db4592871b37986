#!/usr/bin/env bash
# Builds ndsearch if needed and runs the main job on a shipped example. Until
# the search exists, the main job is listing the plugins ndsearch loads and
# the devices they describe, with the example TOML devices.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" build
echo
echo "\$ ndsearch plugins list"
"$root/build/bin/ndsearch" plugins list
echo
echo "\$ NDS_DEVICE_PATH=examples/devices ndsearch hardware"
NDS_DEVICE_PATH="$root/examples/devices" "$root/build/bin/ndsearch" hardware
