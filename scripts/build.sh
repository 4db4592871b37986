#!/usr/bin/env bash
# Configures and builds one build folder: scripts/build.sh [DIR [cmake options...]]
# (default DIR: build, a Release build). Installs the packages first if needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-build}"
shift || true
"$root/scripts/setup.sh"
cmake -S "$root" -B "$root/$dir" "$@" >/dev/null
cmake --build "$root/$dir" -j "$(nproc)"
