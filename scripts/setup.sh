#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the benchmarks need.
# Idempotent: when everything is installed already it changes nothing.
set -euo pipefail

packages=(
  g++ make cmake binutils        # compiler, build, nm for the export check
  libboost-dev                   # Boost.DLL (header-only) loads the plugins
  libtomlplusplus-dev            # TOML device files and TorchTitan configs
  nlohmann-json3-dev             # JSON output and HF config.json
  libspdlog-dev libfmt-dev       # logging (plugin.<id> loggers) and formatting
  libcli11-dev                   # the command line
  libyaml-cpp-dev                # YAML configs (MindFormers, HyperParallel)
  catch2                         # Catch2 v2 tests
  libbenchmark-dev               # Google Benchmark programs in bench/
  abigail-tools                  # abidw/abidiff: the ABI check
  libeigen3-dev                  # least squares of the fitters (core/support/least_squares)
  libssl-dev                     # SHA-256 (libcrypto) of plugin files for the vetting cache
  clang libclang-rt-14-dev       # the sanitizer and fuzz builds: clang, libFuzzer and its ASan runtime
  lld                            # links the sanitizer build (scripts/test.sh): faster than GNU ld
  python3-dev pybind11-dev       # the Python binding (hosts/python, docs/python.md) and its tests
  help2man groff-base            # the man page ndsearch.1 (from --help) and its test's rendering
  libjs-chart.js                 # Chart.js, inlined into the HTML report (docs/report.md)
  chromium fonts-dejavu-core     # the report's test opens it headless (tests/report/)
  python3-pil                    # ... and reads its screenshot (Pillow, for /usr/bin/python3)
  pmccabe                        # function lengths for the ratchet (scripts/function_lengths.py)
  clang-format                   # the format gate (scripts/check_format.sh, .clang-format)
  clang-tidy                     # the tidy gate (scripts/check_tidy.py, .clang-tidy)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
