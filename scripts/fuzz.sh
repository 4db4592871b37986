#!/usr/bin/env bash
# Fuzzes the harnesses of fuzz/ (docs/fuzzing.md): scripts/fuzz.sh [SECONDS]
#   1. builds them with clang, libFuzzer, ASan and UBSan in build-fuzz/;
#   2. runs each harness once over its seeds (fuzz/harnesses.txt) and the
#      crashes found before (tests/fuzz_regressions/<harness>/);
#   3. fuzzes each for SECONDS (default 60; 0: only step 2), one at a time.
# Prints, per harness, the executions and the findings (crashes, hangs over
# 5 s, memory over 1 GiB, leaks, UB); exits 1 on any finding. Findings land
# in build-fuzz/fuzz/findings/<harness>/; the corpus grown so far stays in
# build-fuzz/fuzz/corpus/<harness>/ for the next run.
# Environment: NDS_FUZZ_ONLY="a b" fuzzes only those harnesses;
# NDS_FUZZ_KEEP_GOING=1 goes on after a finding (libFuzzer's -fork=1 with
# -ignore_crashes/-ignore_timeouts/-ignore_ooms) to collect several;
# NDS_FUZZ_REPLAY_BUILD=DIR replays (SECONDS 0) with the harnesses of a
# sanitizer build configured with -DNDS_FUZZ=ON (scripts/test.sh's), which
# carry no coverage and so cannot fuzz, instead of building build-fuzz/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2; }
build="$root/build-fuzz"
"$root/scripts/setup.sh"
if [ -n "${NDS_FUZZ_REPLAY_BUILD:-}" ]; then
  build="$NDS_FUZZ_REPLAY_BUILD"
  if [ "$seconds" -ne 0 ] || ! grep -qx 'NDS_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
    echo "fuzz.sh: NDS_FUZZ_REPLAY_BUILD=$build replays only: it needs SECONDS 0 (a sanitizer" \
         "build's harnesses have no coverage to fuzz with) and a build folder configured with" \
         "-DNDS_FUZZ=ON; unset it to fuzz in build-fuzz/" >&2
    exit 2
  fi
  echo "== replay harnesses of the sanitizer build $build"
else
  echo "== fuzz build (clang, libFuzzer, ASan + UBSan) in build-fuzz"
  cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=Fuzz -DNDS_FUZZ=ON -DNDS_BUILD_TESTS=OFF -DNDS_BUILD_BENCH=OFF \
    -DNDS_ABI_CHECK=OFF >/dev/null
fi
cmake --build "$build" --target fuzz_all -j "$(nproc)"
work="$build/fuzz"

limits=(-timeout=5 -rss_limit_mb=1024 -malloc_limit_mb=1024)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:print_stacktrace=1:halt_on_error=1"

# The seeds of one harness, gathered into one folder (libFuzzer takes folders).
gather_seeds() {
  local name="$1" dest="$work/seeds/$1"
  shift
  rm -rf "$dest" && mkdir -p "$dest"
  local path file
  for path in "$@" "fuzz/corpus/$name"; do
    [ -e "$root/$path" ] || continue
    while IFS= read -r -d '' file; do
      cp "$file" "$dest/$(basename "$(dirname "$file")")_$(basename "$file")"
    done < <(find "$root/$path" -type f ! -name README.md -print0)
  done
}

executions() {  # the last execution count libFuzzer printed
  grep -aoE '^(#[0-9]+|Done [0-9]+ runs)' "$1" | tail -1 | grep -oE '[0-9]+' || echo 0
}

status=0
summary=()
# The list is read on fd 3 and the harnesses get no stdin: libFuzzer's fork
# children shared the loop's file offset and made it read a line twice.
while read -r -u 3 name paths; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if [ -n "${NDS_FUZZ_ONLY:-}" ] && [[ " $NDS_FUZZ_ONLY " != *" $name "* ]]; then continue; fi
  bin="$work/bin/$name"
  # shellcheck disable=SC2086  # the folders are words
  gather_seeds "$name" $paths
  regressions="$root/tests/fuzz_regressions/$name"
  findings="$work/findings/$name"
  mkdir -p "$work/corpus/$name" "$findings" "$work/logs"
  inputs=("$work/seeds/$name")
  [ -d "$regressions" ] && inputs+=("$regressions")

  log="$work/logs/$name.regress.log"
  regress="ok"
  failed_log=""
  if ! "$bin" "${limits[@]}" -runs=0 -artifact_prefix="$findings/" "${inputs[@]}" </dev/null >"$log" 2>&1; then
    regress="FAILED (see $log)"
    failed_log="$log"
    status=1
  fi
  line="$(printf '%-20s seeds+regressions: %s' "$name" "$regress")"
  if [ "$seconds" -gt 0 ] && { [ "$regress" = "ok" ] || [ "${NDS_FUZZ_KEEP_GOING:-0}" = 1 ]; }; then
    log="$work/logs/$name.fuzz.log"
    before="$(find "$findings" -type f | wc -l)"
    keep_going=()
    [ "${NDS_FUZZ_KEEP_GOING:-0}" = 1 ] && keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    rc=0
    "$bin" "${limits[@]}" "${keep_going[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$findings/" "$work/corpus/$name" "${inputs[@]}" </dev/null >"$log" 2>&1 || rc=$?
    found=$(( $(find "$findings" -type f | wc -l) - before ))
    [ "$rc" -ne 0 ] && [ "$found" -eq 0 ] && found=1
    [ "$found" -gt 0 ] && status=1
    line+="$(printf '; %s s: %s executions, %s findings' "$seconds" "$(executions "$log")" "$found")"
    [ "$found" -gt 0 ] && line+=" (see $log and $findings/)" && failed_log="$log"
  fi
  echo "$line"
  # A finding's report, here: CI keeps the output, not build-fuzz/.
  if [ -n "$failed_log" ]; then
    echo "---- the end of $failed_log"
    grep -av -e '^#[0-9]' -e 'NEW_FUNC' "$failed_log" | tail -n 40
    for artifact in "$findings"/*; do
      [ -f "$artifact" ] || continue
      echo "---- $artifact (base64)"
      head -c 4096 "$artifact" | base64
    done
    echo "----"
  fi
  summary+=("$line")
done 3<"$root/fuzz/harnesses.txt"

echo "== fuzz summary"
printf '%s\n' "${summary[@]}"
exit "$status"
