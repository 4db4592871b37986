#!/usr/bin/env bash
# The HTML reports as a reader opens them: writes a search's report and an
# explain report of the shipped Llama-3.1-70B example, checks each is under
# 5 MB, then opens each in headless Chromium (check_in_chromium.py): no
# console message, the page's script finished without error, and every chart
# drew (coloured pixels in its box of the screenshot); and a refused
# strategy's explain report, which has no chart to draw, opens without an error.
# usage: report_in_chromium.sh NDSEARCH EXAMPLES_DIR WORK_DIR
set -euo pipefail
ndsearch="$1" examples="$2" work="$3"
here="$(cd "$(dirname "$0")" && pwd)"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null || fail "chromium is not installed: scripts/setup.sh installs it (Debian's chromium)"
/usr/bin/python3 -c "import PIL" 2>/dev/null ||
  fail "Pillow is missing for /usr/bin/python3: scripts/setup.sh installs it (Debian's python3-pil)"
rm -rf "$work" && mkdir -p "$work"
config="$examples/llama-3.1-70b/config.json"
on64=(-A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64)
max_bytes=$((5 * 1000 * 1000))

size_ok() {  # the page under 5 MB
  local bytes
  bytes="$(stat -c %s "$1")"
  echo "$1: $bytes bytes"
  [ "$bytes" -lt "$max_bytes" ] || fail "$1 is $bytes bytes, over 5 MB"
}

# pp 4 and vpp 2 among the strategies: several stages and timeline tracks.
env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH "$ndsearch" search "$config" "${on64[@]}" --only pp=4 \
  -o "$work/search" --report >"$work/search.log"
size_ok "$work/search/report.html"
/usr/bin/python3 "$here/check_in_chromium.py" chromium "$work/search/report.html" "$work/search.png" \
  chart-parts chart-memory chart-pareto chart-refusals chart-timeline chart-recompute

env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH "$ndsearch" explain "$config" "${on64[@]}" \
  --strategy "tp=8,pp=4,dp=2,mbs=1,vpp=2,recompute=selective" --report "$work/explain.html" \
  >"$work/explain.log"
size_ok "$work/explain.html"
/usr/bin/python3 "$here/check_in_chromium.py" chromium "$work/explain.html" "$work/explain.png" \
  chart-parts chart-memory chart-timeline chart-recompute

# A strategy a check refuses: no step to draw, and the page says so without an error.
env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH "$ndsearch" explain "$config" "${on64[@]}" \
  --strategy "tp=3,pp=4" --report "$work/refused.html" >"$work/refused.log" || true
/usr/bin/python3 "$here/check_in_chromium.py" chromium "$work/refused.html" "$work/refused.png"
