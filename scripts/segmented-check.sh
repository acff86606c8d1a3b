#!/usr/bin/env bash
# One run of the segmented and axis reductions on a GPU machine: build, their GPU tests, the
# segmented bench (warpfold vs CUB vs the roofline probe) and, right after it, torch and cupy on
# the same shapes. Builds for sm_90 unless WARPFOLD_CUDA_ARCH names other CUDA architectures.
#   scripts/segmented-check.sh RESULTS_DIR [BENCH_ARGS...]
#   e.g. scripts/segmented-check.sh "$OUT/segmented" --reps 30
# Writes to RESULTS_DIR: summary.txt (printed as it goes, scripts/segmented_summary.py's view of
# the runs last), build.log, gpu-tests.log, segmented.json (the C++ bench), segmented-python.json
# (torch, cupy) and segmented-python.log. Exits 1 when a test fails or a checked row is wrong.
set -uo pipefail
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || die "usage: scripts/segmented-check.sh RESULTS_DIR [BENCH_ARGS...]"
dir="$1"
shift
mkdir -p "$dir" || die "cannot create $dir"
summary="$dir/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

find_cuda
run_header | tee -a "$summary"

start=$(date +%s)
{ configure -DCMAKE_CUDA_ARCHITECTURES="${WARPFOLD_CUDA_ARCH:-90}" && build warpfold warpfold_gpu_tests; } \
  >"$dir/build.log" 2>&1 || { tail -40 "$dir/build.log"; exit 1; }
say "build: $(( $(date +%s) - start )) s"
bin="$BUILD_DIR/src/warpfold"

failed=0
"$BUILD_DIR/tests/warpfold_gpu_tests" --gtest_filter='SegmentedReduce.*:ReduceAxis.*:FixedSizeSegments.*' \
  >"$dir/gpu-tests.log" 2>&1
rc=$?; [ $rc -ne 0 ] && failed=1
say "segmented gpu tests (exit $rc): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$dir/gpu-tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \]' "$dir/gpu-tests.log" | head -20 | tee -a "$summary"

# The C++ bench, then the frameworks on the same shapes in the same call (the same GPU state).
"$bin" bench --segmented --axis "$@" --format json --out "$dir/segmented.json"
rc=$?; [ $rc -ne 0 ] && failed=1
say "segmented bench exit $rc"
python3 "$WARPFOLD_ROOT/bench/segmented_torch.py" --out "$dir/segmented-python.json" >"$dir/segmented-python.log" 2>&1
rc=$?; [ $rc -ne 0 ] && failed=1
say "torch/cupy bench exit $rc"
tee -a "$summary" <"$dir/segmented-python.log"
python_json=()
[ -f "$dir/segmented-python.json" ] && python_json=(--python "$dir/segmented-python.json")
python3 "$WARPFOLD_ROOT/scripts/segmented_summary.py" "$dir/segmented.json" "${python_json[@]}" 2>&1 | tee -a "$summary"

say "== done in $(( $(date +%s) - start )) s$([ $failed -ne 0 ] && echo ', with failures above')"
exit $failed
