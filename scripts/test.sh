#!/usr/bin/env bash
# Builds and runs every test twice: the Release build (with the ABI check and
# the Python binding), then the suite (but tests/release_only_tests.txt) under AddressSanitizer +
# UndefinedBehaviorSanitizer (plugins and fixtures built the same way; no
# binding: python itself is not instrumented); then the fuzz harnesses (clang,
# libFuzzer, ASan + UBSan) of that build over their seeds and
# tests/fuzz_regressions; with NDS_TEST_FUZZ_SECONDS=N, scripts/fuzz.sh's own
# build instead, fuzzing each harness N s. Any failure, sanitizer report or
# fuzz finding fails the run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="$(nproc)"

# Each phase says how long it took (the whole run should stay under 25 minutes
# on a 2-core machine; the log shows which phase to cut when it does not).
phase() { echo "== [${SECONDS} s] $*"; }

phase "Release build and tests (with the Python binding)"
"$root/scripts/build.sh" build -DNDS_BUILD_PYTHON=ON
(cd "$root/build" && ctest --output-on-failure -j "$jobs")

phase "Gates: format, tidy, duplication and the function-length ratchet"
# Every source as .clang-format says; the last commit's C++ sources, whole, as
# .clang-tidy says; no more lines inside clones than
# scripts/duplication_ceiling.txt allows; no function of core/ over 80
# lines but those scripts/long_functions.txt lists, none longer than
# listed (issue 37). clang-format, clang-tidy and pmccabe come from setup.sh.
"$root/scripts/check_format.sh"
python3 "$root/scripts/check_tidy.py"
python3 "$root/scripts/duplication.py"
python3 "$root/scripts/function_lengths.py"

phase "AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
# Without ../shared/configs the tests on them only skip: not built here then.
# Line tables (-g1) are what a sanitizer's report needs (function, file and
# line per frame); full debug information made each object a third larger
# and its compile slower.
# Executables linked without PIE: an instrumented -O0 binary carries ~3
# million pointers in its data (ASan's global descriptors, UBSan's check
# sites), each a relative relocation the loader wrote at every start (0.45 s
# of `ndsearch --version`'s 0.64 s, perf, 2026-12-04); without PIE the linker
# resolves them and a start takes 0.27 s. The suite starts the CLI and the
# test binary thousands of times. Plugins stay position-independent.
# Linked by lld: GNU ld took 10 s for the test binary alone, at the end of the
# build where nothing runs beside it.
# Built with clang, as the fuzz harnesses are: its -O0 instrumented compile
# took 535 s of CPU where g++ 12's took 1120 (the core 134 against 335 s, the
# tests 200 against 436; 2 cores, 2026-12-07), and its ASan runtime is the
# shared one the plugins resolve against (cmake/ClangAsanRuntime.cmake).
shared_tests=ON
[ -d "$root/../shared/configs" ] || shared_tests=OFF
"$root/scripts/build.sh" build-asan -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DNDS_SANITIZE=ON \
  -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_CXX_FLAGS_DEBUG=-g1 "-DCMAKE_EXE_LINKER_FLAGS=-no-pie -fuse-ld=lld" \
  -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld \
  -DNDS_ABI_CHECK=OFF -DNDS_BUILD_BENCH=OFF -DNDS_SHARED_CONFIG_TESTS="$shared_tests" -DNDS_FUZZ=ON
# intercept_tls_get_addr=0: LeakSanitizer (seen with GCC 12's runtime) can take a
# glibc 2.36 dynamic-TLS block of a dlopen'd plugin for a wild range and
# crash in its tracer ("Tracer caught signal 11", google/sanitizers#1322);
# which search hit it depended on an output path's length. Leaks are still
# found everywhere but in the plugins' dynamic TLS.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:intercept_tls_get_addr=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Left to the Release run: the tests that price every published run again
# (validation against docs/validation.md, the fit, the search's claims) and
# the streaming-memory test. Under ASan at -O0 they took 250 of the phase's
# 286 s of tests (2026-12-02) and run no code the other tests do not. Also
# the packaging builds (a find_package consumer, the SDK's vendor templates)
# and the report's Chromium test: they try the install and the browser, and
# the code they run is the other tests' too. And the scan of every source
# for CLI flags: it reads text, runs none of the product (8 s under ASan).
# A test checks that each line still names a test (a renamed one had run
# here again, a minute of the phase).
(cd "$root/build-asan" && ctest --output-on-failure -j "$jobs" -E "$(paste -sd'|' "$root/tests/release_only_tests.txt")")

# The harnesses replay their seeds and regressions in the sanitizer build
# (fuzz/flags.cmake): seconds of fuzzing need a build with coverage of its
# own, 225 s of compiling for 4 s of fuzzing a harness, which the slower
# parsers ran 151 to 337 times (2 cores, 2026-12-07). Fuzzing is
# scripts/fuzz.sh's (docs/fuzzing.md), the grown corpus kept between runs;
# NDS_TEST_FUZZ_SECONDS=N runs it here.
fuzz_seconds="${NDS_TEST_FUZZ_SECONDS:-0}"
if [ "$fuzz_seconds" != 0 ]; then
  phase "Fuzz harnesses (build-fuzz): seeds and regressions, then $fuzz_seconds s each"
  "$root/scripts/fuzz.sh" "$fuzz_seconds"
else
  phase "Fuzz harnesses of the sanitizer build: seeds and regressions"
  NDS_FUZZ_REPLAY_BUILD="$root/build-asan" "$root/scripts/fuzz.sh" 0
fi
phase "done"
