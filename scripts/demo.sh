#!/usr/bin/env bash
# Builds ndsearch if needed and runs the main job on a shipped example. Until
# the search exists, the main job is listing the plugins ndsearch loads.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" build
echo
echo "\$ ndsearch plugins list"
"$root/build/bin/ndsearch" plugins list
