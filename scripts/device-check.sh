#!/usr/bin/env bash
# One run on a GPU machine: build, run the GPU tests and the measurements, write logs to $OUT.
# Expects the dependencies in place (scripts/test.sh installs them); builds for sm_90 unless
# WARPFOLD_CUDA_ARCH names other CUDA architectures.
#   scripts/device-check.sh [STAGE...]
#   stages: tests ladder sweep divergence info grid nested warps registers bench profile report
#   (default: all but report, which runs every lesson again)
# Prints a short summary last; summary.txt, the test logs and results.tgz (every command's JSON
# and Markdown) go to $OUT (or ./device-out without it).
# A copy of the tree whose .git is missing or lags learns its commit from .commit (git rev-parse --short=12 HEAD > .commit).
set -uo pipefail
source "$(dirname "$0")/common.sh"
OUT="${OUT:-$WARPFOLD_ROOT/device-out}"
mkdir -p "$OUT"
results="$OUT/results"
mkdir -p "$results"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(tests ladder sweep divergence info grid nested warps registers bench profile)
want() { local s; for s in "${stages[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

find_cuda
run_header | tee -a "$summary"
say "nvcc: $(nvcc --version | tail -1); cmake: $(cmake --version | head -1)"

start=$(date +%s)
configure_and_build -DCMAKE_CUDA_ARCHITECTURES="${WARPFOLD_CUDA_ARCH:-90}" >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
say "build: $(( $(date +%s) - start )) s"
bin="$BUILD_DIR/src/warpfold"

# Every stage runs whatever an earlier one gave; a failed test suite or lesson makes the exit 1.
failed=0
if want tests; then
  # The whole log (each test with its time), so that the slowest tests can be named below.
  "$BUILD_DIR/tests/warpfold_gpu_tests" >"$OUT/gpu-tests.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && failed=1
  say "gpu tests (exit $rc): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$OUT/gpu-tests.log" | head -20 | tee -a "$summary"
  say "slowest gpu tests: $(gtest_times "$OUT/gpu-tests.log" | sort -rn | head -5 | awk '{printf "%s %.1f s; ", $2, $1 / 1000}')"
  "$BUILD_DIR/tests/warpfold_cpu_tests" --gtest_brief=1 >"$OUT/cpu-tests.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && failed=1
  say "cpu tests (exit $rc): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/cpu-tests.log" | tr '\n' ' ')"
fi

# Every lesson: JSON for scripts and Markdown for docs/, the table into the summary.
run_lesson() {  # NAME ARGS...
  local name="$1"; shift
  "$bin" "$@" --format json --out "$results/$name.json"
  local rc=$?; [ $rc -ne 0 ] && failed=1
  say "$name exit $rc"
  "$bin" "$@" --format md --out "$results/$name.md" >/dev/null 2>&1
  cat "$results/$name.md" >>"$summary" 2>/dev/null
}
want ladder && run_lesson ladder ladder
want sweep && run_lesson sweep ladder --block-sweep --reps 10
for cmd in divergence info grid nested warps registers; do want "$cmd" && run_lesson "$cmd" "$cmd"; done
if want nested; then "$bin" nested hello 2>&1 | tee -a "$summary"; fi
if want bench; then
  "$bin" bench --format json --out "$results/bench.json"
  rc=$?; [ $rc -ne 0 ] && failed=1
  say "bench exit $rc"
  python3 "$WARPFOLD_ROOT/scripts/bench_summary.py" "$results/bench.json" 2>&1 | tee -a "$summary"
fi
# profiler
# Each lesson under Nsight Compute (the book's nvprof tables), ncu's raw CSV kept beside them (the
# captures that replace tests/data/ncu's samples), and the SASS behind the ladder's open questions.
if want profile; then
  for lesson in ladder divergence grid nested registers; do
    args=("$lesson")
    [ "$lesson" = ladder ] && args+=(--n '2^24')
    # 2^16: 1024 device-side launches a run, in case ncu profiles each of them too
    [ "$lesson" = nested ] && args+=(--n '2^16')
    "$bin" profile "${args[@]}" --format md --out "$results/profile-$lesson.md" \
      --ncu-csv "$results/ncu-$lesson.csv" --timeout 240 2>"$results/profile-$lesson.err"
    say "profile $lesson exit $? $(tail -2 "$results/profile-$lesson.err" | tr '\n' ' ')"
    cat "$results/profile-$lesson.md" >>"$summary" 2>/dev/null
  done
  for kernel in reduceInterleaved reduceNeighboredLess reduceNeighbored reduceUnrollWarps8 \
                reduceCompleteUnrollWarps8 'reduceCompleteUnroll<512>'; do
    name="sass-${kernel//[<>]/_}"
    "$bin" profile --sass "$kernel" --format md --out "$results/$name.md" 2>&1 | tee -a "$summary"
    say "sass $kernel exit ${PIPESTATUS[0]}"
    "$bin" profile --sass "$kernel" --summary-only --format md 2>/dev/null | grep '^|' >>"$summary"
  done
fi
if want report; then
  "$bin" report --out "$results/report" 2>&1 | tail -12 | tee -a "$summary"
fi
tar -C "$OUT" -czf "$OUT/results.tgz" results && rm -rf "$results"
say "== done in $(( $(date +%s) - start )) s$([ $failed -ne 0 ] && echo ', with failures above')"
exit $failed
