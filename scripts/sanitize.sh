#!/usr/bin/env bash
# The sanitize target: the GPU test suite under compute-sanitizer's four tools (memcheck,
# racecheck, synccheck, initcheck). Needs a CUDA device and compute-sanitizer.
#   scripts/sanitize.sh [TOOL...]
# Every fixed kernel, the production reduce and the lessons must be clean: any finding there
# fails the script. The book's ladder kernels (unsafe by design) run under each tool too; what
# each tool reports for them is listed in the summary, and does not fail the script.
# Input sizes are capped at WARPFOLD_TEST_MAX_N (default 2^20): the tools slow kernels 10-100×;
# then the tests of the largest grids and of the bulk kernel run at full size (up to 2^27) under
# each tool. Each run is bounded by SANITIZE_TIMEOUT seconds (default 300); SANITIZE_SHARDS
# splits each pass into that many processes run at once (below).
set -uo pipefail
source "$(dirname "$0")/common.sh"
find_cuda
OUT="${OUT:-$WARPFOLD_ROOT/device-out}"
mkdir -p "$OUT/sanitize"
sanitizer="$(command -v compute-sanitizer || echo "$(dirname "$(command -v nvcc)")/compute-sanitizer")"
[ -x "$sanitizer" ] || die "compute-sanitizer not found (it ships with the CUDA toolkit)"
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
export WARPFOLD_TEST_MAX_N="${WARPFOLD_TEST_MAX_N:-1048576}"

[[ "${SANITIZE_SHARDS:-1}" =~ ^[1-9][0-9]*$ ]] || die "SANITIZE_SHARDS must be a whole number of at least 1, not '${SANITIZE_SHARDS}'"
[[ -z "${SANITIZE_GPUS:-}" || "$SANITIZE_GPUS" =~ ^[0-9]+( +[0-9]+)*$ ]] ||
  die "SANITIZE_GPUS must list device indices separated by spaces (\"0 1\"), not '${SANITIZE_GPUS}'"

configure_and_build -DCMAKE_CUDA_ARCHITECTURES="${WARPFOLD_CUDA_ARCH:-90}" >"$OUT/sanitize/build.log" 2>&1 || { tail -30 "$OUT/sanitize/build.log"; exit 1; }
tests="$BUILD_DIR/tests/warpfold_gpu_tests"
summary="$OUT/sanitize/summary.txt"
: >"$summary"
failed=0
# API errors are not counted: several tests provoke refused calls on purpose (bad arguments,
# invalid launch configurations, memory shortfalls). What counts is what kernels do to memory.
# The suite minus the tests that cannot run under a sanitizer, each named with its reason (printed
# below, and in the summary): the book's ladder kernels (racy by design: their own pass below),
# the test that provokes launch failures on purpose (its refused launches are the expected
# outcome), the profiler's tests (Nsight Compute cannot profile inside compute-sanitizer: their
# tables come back empty), the stalled-combine test (it holds a block until the combine gives up,
# in a child process, on purpose) and the forward-progress test (it needs two kernels at once).
excluded=(
  'Ladder/LadderKernelTest.*book*|the book'"'"'s kernels are racy by design: their findings are listed in their own pass'
  'LadderRunGpu.*|runs the book'"'"'s kernels too'
  'NestedLaunchFailureGpu.*|exhausts the device runtime'"'"'s launch slots on purpose'
  'ProfileGpu.*|Nsight Compute cannot profile inside compute-sanitizer'
  'ReduceCombineStallDeathTest.*|holds a block until the combine gives up, in a child process, on purpose'
  'ReduceCombine.CompletesWhileAnotherKernelHoldsEverySmButOne|needs a kernel holding the SMs while the reduces run, which the tools'"'"' serialised launches do not give'
)
must_be_clean='*'
for entry in "${excluded[@]}"; do
  pattern="${entry%%|*}"
  [ "$must_be_clean" = '*' ] && must_be_clean='*-'"$pattern" || must_be_clean+=":$pattern"
  echo "left out of the clean passes: $pattern (${entry#*|})" | tee -a "$summary"
done

# A pass that must be clean: TOOL over the tests FILTER selects, logged to sanitize/LOG.log; a
# finding or a timeout fails the script. The summary line names the pass as LABEL. With
# SANITIZE_SHARDS=N the tests run as N GoogleTest shards at once, shard k on GPU k mod the GPUs
# visible (or of the device indices SANITIZE_GPUS lists), each under its own sanitizer process
# (the tools are slow, and mostly on the CPU).
shards="${SANITIZE_SHARDS:-1}"
if [ -n "${SANITIZE_GPUS:-}" ]; then
  read -r -a devices <<<"$SANITIZE_GPUS"
else
  count="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)"
  devices=()
  for ((k = 0; k < ${count:-1} || k == 0; k++)); do devices+=("$k"); done
fi
clean_pass() {  # TOOL LOG LABEL FILTER
  local tool="$1" log="$OUT/sanitize/$2.log" label="$3" filter="$4" start rc=0 k verdict=clean errors=0 found
  local pids=() codes=()
  start=$(date +%s)
  for ((k = 0; k < shards; k++)); do
    # A single unpinned pass keeps the caller's CUDA_VISIBLE_DEVICES; shards are pinned in
    # nvidia-smi's order (PCI bus), which CUDA follows under CUDA_DEVICE_ORDER=PCI_BUS_ID.
    local pin=()
    [ "$shards" -gt 1 ] || [ -n "${SANITIZE_GPUS:-}" ] &&
      pin=(CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES="${devices[k % ${#devices[@]}]}")
    env "${pin[@]}" GTEST_TOTAL_SHARDS="$shards" GTEST_SHARD_INDEX="$k" \
      timeout "${SANITIZE_TIMEOUT:-300}" "$sanitizer" --tool "$tool" --report-api-errors no --error-exitcode 97 --print-limit 50 \
      "$tests" --gtest_brief=1 --gtest_filter="$filter" >"$log.$k" 2>&1 &
    pids+=($!)
  done
  for k in "${!pids[@]}"; do wait "${pids[$k]}"; codes+=($?); done
  : >"$log"
  for ((k = 0; k < shards; k++)); do
    cat "$log.$k" >>"$log" && rm -f "$log.$k"
  done
  for k in "${codes[@]}"; do
    if [ "$k" -eq 124 ]; then verdict="TIMED OUT after ${SANITIZE_TIMEOUT:-300} s"; failed=1; rc=124;
    elif [ "$k" -ne 0 ] && [ "$rc" -ne 124 ]; then verdict="FINDINGS (exit $k)"; failed=1; rc=$k; fi
  done
  # Each shard prints its own summary: the pass's findings are their sum.
  for found in $(grep -Eo '(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard)' "$log" | grep -Eo '[0-9]+'); do
    errors=$((errors + found))
  done
  local kind="errors"; [ "$tool" = racecheck ] && kind="hazards"
  local passed failures
  passed=$(awk '/^\[  PASSED  \] [0-9]+/ { n += $4 } END { print n + 0 }' "$log")
  failures=$(grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sed 's/ (.*//' | sort -u | wc -l)
  echo "$tool: $label: $verdict, $errors $kind, $passed tests passed$( [ "$shards" -gt 1 ] && echo " in $shards shards"), $failures failed, $(( $(date +%s) - start )) s" | tee -a "$summary"
}
for tool in "${tools[@]}"; do
  # Only memcheck supports dynamic parallelism ("CUDA Dynamic Parallelism is not supported by
  # the selected tool"): the nested lesson runs under memcheck alone.
  filter="$must_be_clean"
  [ "$tool" != memcheck ] && filter="$must_be_clean:Nested*:*nested*"
  clean_pass "$tool" "$tool" "fixed kernels, production reduce, lessons" "$filter"

  blog="$OUT/sanitize/$tool-book.log"
  timeout "${SANITIZE_TIMEOUT:-300}" "$sanitizer" --tool "$tool" --report-api-errors no --print-limit 5 "$tests" --gtest_brief=1 --gtest_filter='Ladder/LadderKernelTest.*book*' >"$blog" 2>&1
  echo "$tool: book ladder kernels: $(grep -Eo '(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard).*' "$blog" | tail -1); kinds: $(grep -Eo '(Invalid __global__ [a-z]+|Race reported between [A-Za-z]+ access|Barrier error|Uninitialized __global__ memory read|[A-Z][a-z]+ hazard)' "$blog" | sort | uniq -c | tr '\n' ';')" | tee -a "$summary"

  # The size cap above keeps the largest grids (a thousand blocks, several partials per combiner
  # thread) and the bulk kernel (inputs above 256 MiB) out of the pass: their own tests, at full
  # size (up to 2^27 elements), must be clean too.
  WARPFOLD_TEST_MAX_N=$((1 << 27)) clean_pass "$tool" "$tool-large" "largest grids and the bulk kernel" \
      'ReduceBulk.*:ReduceNamedKernel/bulk.*:ReduceInt.Int32SumsAtFullWidthOnTheLargestGrids'
done
# The logs travel as one archive.
tar -C "$OUT" -czf "$OUT/sanitize.tgz" sanitize && rm -rf "$OUT/sanitize"
exit $failed
