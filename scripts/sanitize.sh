#!/usr/bin/env bash
# The sanitize target: the GPU test suite under compute-sanitizer's four tools (memcheck,
# racecheck, synccheck, initcheck). Needs a CUDA device and compute-sanitizer.
#   scripts/sanitize.sh [TOOL...]          (no TOOL: all four)
# Every fixed kernel, the production reduce and the lessons must be clean: any finding there
# fails the script, and so does a pass that runs past its bound. The book's ladder kernels
# (unsafe by design) run under each tool too; what each tool reports for them is listed in the
# summary, and does not fail the script. Tests that cannot run under a sanitizer are left out,
# each named with its reason (below).
#
# What keeps a run within its bounds (docs/reliability.md has the times):
# - Input sizes are capped at WARPFOLD_TEST_MAX_N (default 2^20): the tools slow kernels by one to
#   two orders of magnitude. The tests of the largest grids, the bulk kernel, the combine's grid
#   paths and the segments kernel's rounds of tiles then run again at full size (up to 2^27).
# - The tests know the tool (WARPFOLD_SANITIZE). Under racecheck and initcheck, which slow every
#   launch most, they take representative lists: every kernel path and size class, but one
#   pointer offset per size where other runs take all, and no reproducibility reruns
#   (tests/gpu/gpu_test_support.hpp). memcheck and synccheck take the lists whole. Under
#   initcheck, temp storage is written once when allocated (src/harness/sanitizer.hpp says why).
# - Each pass runs as SANITIZE_SHARDS GoogleTest shards at once (default: one per CPU core, since
#   the tools work much of the time on the CPU), shard k on GPU k mod the GPUs visible (or of the
#   device indices SANITIZE_GPUS lists), racecheck's host workers shared among them.
# - Each sanitizer process is bounded by SANITIZE_TIMEOUT seconds, by default a bound per tool
#   (tool_bound below). SANITIZE_BUDGET, where set, bounds the whole script, build included:
#   a pass gets at most the time left, less a margin for the archive.
# The logs show every test with its time; the summary names each pass's slowest tests and any
# test that did not finish. Logs go to $OUT/sanitize.tgz.
set -uo pipefail
source "$(dirname "$0")/common.sh"
started=$(date +%s)
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
for tool in "${tools[@]}"; do
  case "$tool" in memcheck | racecheck | synccheck | initcheck) ;; *) die "unknown tool '$tool' (memcheck, racecheck, synccheck, initcheck)" ;; esac
done
export WARPFOLD_TEST_MAX_N="${WARPFOLD_TEST_MAX_N:-1048576}"

whole='^[1-9][0-9]*$'
cores="$(nproc 2>/dev/null || echo 1)"
shards="${SANITIZE_SHARDS:-$cores}"
[[ "$shards" =~ $whole ]] || die "SANITIZE_SHARDS must be a whole number of at least 1, not '${shards}'"
[[ -z "${SANITIZE_GPUS:-}" || "$SANITIZE_GPUS" =~ ^[0-9]+( +[0-9]+)*$ ]] ||
  die "SANITIZE_GPUS must list device indices separated by spaces (\"0 1\"), not '${SANITIZE_GPUS}'"
for bound in SANITIZE_TIMEOUT SANITIZE_BUDGET; do
  [[ -z "${!bound:-}" || "${!bound}" =~ $whole ]] || die "$bound must be a whole number of seconds, not '${!bound}'"
done
find_cuda
sanitizer="$(command -v compute-sanitizer || echo "$(dirname "$(command -v nvcc)")/compute-sanitizer")"
[ -x "$sanitizer" ] || die "compute-sanitizer not found (it ships with the CUDA toolkit)"
OUT="${OUT:-$WARPFOLD_ROOT/device-out}"
mkdir -p "$OUT/sanitize"

# The bound on each sanitizer process of TOOL, in seconds: SANITIZE_TIMEOUT, else the tool's own,
# well above its slowest shard (racecheck and initcheck slow launches most); with SANITIZE_BUDGET,
# at most what is left of it, less a margin for the archive (at least one second).
tool_bound() {  # TOOL
  local bound="${SANITIZE_TIMEOUT:-}"
  if [ -z "$bound" ]; then
    case "$1" in racecheck | initcheck) bound=420 ;; *) bound=300 ;; esac
  fi
  if [ -n "${SANITIZE_BUDGET:-}" ]; then
    local left=$((SANITIZE_BUDGET - ($(date +%s) - started) - 15))
    [ "$left" -lt "$bound" ] && bound=$((left > 1 ? left : 1))
  fi
  echo "$bound"
}

summary="$OUT/sanitize/summary.txt"
run_header | tee "$summary"
echo "$("$sanitizer" --version | tail -1); $shards shards; sizes capped at $WARPFOLD_TEST_MAX_N" | tee -a "$summary"
"$sanitizer" --help >"$OUT/sanitize/compute-sanitizer-help.txt" 2>&1
# Whether this compute-sanitizer has an option (its --help lists it).
offers() { grep -qE -- "(^|[^[:alnum:]-])$1([^[:alnum:]-]|$)" "$OUT/sanitize/compute-sanitizer-help.txt"; }
build_start=$(date +%s)
configure_and_build -DCMAKE_CUDA_ARCHITECTURES="${WARPFOLD_CUDA_ARCH:-90}" >"$OUT/sanitize/build.log" 2>&1 || { tail -30 "$OUT/sanitize/build.log"; exit 1; }
echo "build: $(($(date +%s) - build_start)) s" | tee -a "$summary"
tests="$BUILD_DIR/tests/warpfold_gpu_tests"
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
# Tests that one tool cannot run, each with the tool, the pattern and the reason.
excluded_under=(
  'racecheck|ReduceLaunch.HostThreadsReduceConcurrently|racecheck fails to track launches from several host threads at once, and reports that as a hazard'
  'initcheck|MultigpuRunGpu.*|times a held start of every GPU, whose 10 s release bound the tool'"'"'s slowdown of the host exceeds'
)
left_out=""
for entry in "${excluded[@]}"; do
  pattern="${entry%%|*}"
  left_out+="${left_out:+:}$pattern"
  echo "left out of the clean passes: $pattern (${entry#*|})" | tee -a "$summary"
done
must_be_clean="*-$left_out"
# The size cap keeps the largest grids (a thousand blocks, several partials per combiner thread),
# the bulk kernel (inputs above 256 MiB), all but the smallest of the combine's grid paths and the
# segments kernel's rounds of tiles (over a thousand segments per block) out of the capped pass:
# their own tests run again at full size.
at_full_size="ReduceBulk.*:ReduceNamedKernel/bulk.*:ReduceInt.Int32SumsAtFullWidthOnTheLargestGrids:ReduceCombine.*"
at_full_size+=":SegmentedReduce.TilesOfSeveralRoundsCoverEverySegment-$left_out"

if [ -n "${SANITIZE_GPUS:-}" ]; then
  read -r -a devices <<<"$SANITIZE_GPUS"
else
  count="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)"
  devices=()
  for ((k = 0; k < ${count:-1} || k == 0; k++)); do devices+=("$k"); done
fi

# The findings a log's sanitizer summaries add up to.
findings_in() {  # LOG
  grep -Eo '(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard)' "$1" | grep -Eo '[0-9]+' |
    awk '{ n += $1 } END { print n + 0 }'
}

# The lines after a pass's summary line: its slowest tests, and any test a bound or a crash
# stopped (started in a shard's log, never ended).
pass_notes() {  # LOG TIMES
  local log="$1" times="$2" stopped
  gtest_times "$log" | sort -rn >"$times"
  echo "  slowest: $(head -5 "$times" | awk '{ printf "%s%s %.1f s", (NR > 1 ? ", " : ""), $2, $1 / 1000 }')" | tee -a "$summary"
  stopped="$(awk '/^===== shard/ { if (t != "") print t; t = "" } /^\[ RUN      \]/ { t = $4 }
                  /^\[ +(OK|FAILED|SKIPPED) +\]/ { t = "" } END { if (t != "") print t }' "$log" | paste -sd ' ')"
  [ -n "$stopped" ] && echo "  did not finish (a bound or a crash stopped them): $stopped" | tee -a "$summary"
  return 0
}

# A pass that must be clean: TOOL over the tests FILTER selects, as $shards GoogleTest shards at
# once, each under its own sanitizer process on GPU k mod the GPUs (a single unpinned shard keeps
# the caller's CUDA_VISIBLE_DEVICES); logged to sanitize/LOG.log (each test with its time) and
# sanitize/LOG-times.txt (the tests by time). A finding or a bound reached fails the script. The
# summary line names the pass as LABEL.
clean_pass() {  # TOOL LOG LABEL FILTER
  local tool="$1" log="$OUT/sanitize/$2.log" label="$3" filter="$4" start rc=0 k bound errors
  local pids=() codes=() verdict=clean
  start=$(date +%s)
  bound="$(tool_bound "$tool")"
  for ((k = 0; k < shards; k++)); do
    # Shards are pinned in nvidia-smi's order (PCI bus), which CUDA follows under
    # CUDA_DEVICE_ORDER=PCI_BUS_ID.
    local pin=() options=()
    [ "$shards" -gt 1 ] || [ -n "${SANITIZE_GPUS:-}" ] &&
      pin=(CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES="${devices[k % ${#devices[@]}]}")
    # Each shard's sanitizer connects to its target through ports of its own: by default every
    # instance tries the same ten, which more shards than that at once would exhaust.
    offers --port && options+=(--port $((49152 + 10 * (k % 1000))))
    # racecheck analyses hazards on the host, with a worker per core by default: the shards share
    # the cores instead of each taking them all.
    [ "$tool" = racecheck ] && offers --racecheck-num-workers &&
      options+=(--racecheck-num-workers $((cores / shards > 1 ? cores / shards : 1)))
    env "${pin[@]}" WARPFOLD_SANITIZE="$tool" GTEST_TOTAL_SHARDS="$shards" GTEST_SHARD_INDEX="$k" \
      timeout "$bound" "$sanitizer" --tool "$tool" "${options[@]}" --report-api-errors no --error-exitcode 97 \
      --print-limit 50 "$tests" --gtest_filter="$filter" >"$log.$k" 2>&1 &
    pids+=($!)
  done
  for k in "${!pids[@]}"; do wait "${pids[$k]}"; codes+=($?); done
  : >"$log"
  for ((k = 0; k < shards; k++)); do
    # A shard stopped mid-line leaves no newline: the next header starts a line of its own.
    { echo "===== shard $k of $shards (exit ${codes[$k]})"; cat "$log.$k"; [ -z "$(tail -c 1 "$log.$k")" ] || echo; } >>"$log" &&
      rm -f "$log.$k"
  done
  for k in "${codes[@]}"; do
    if [ "$k" -eq 124 ]; then verdict="TIMED OUT after $bound s"; failed=1; rc=124;
    elif [ "$k" -ne 0 ] && [ "$rc" -ne 124 ]; then verdict="FINDINGS (exit $k)"; failed=1; rc=$k; fi
  done
  # Each shard prints its own summary: the pass's findings are their sum.
  errors="$(findings_in "$log")"
  local kind="errors"; [ "$tool" = racecheck ] && kind="hazards"
  local passed failures
  passed=$(awk '/^\[  PASSED  \] [0-9]+/ { n += $4 } END { print n + 0 }' "$log")
  failures=$(grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sed -E 's/^\[  FAILED  \] //; s/[ ,].*//' | sort -u | wc -l)
  echo "$tool: $label: $verdict, $errors $kind, $passed tests passed$( [ "$shards" -gt 1 ] && echo " in $shards shards"), $failures failed, $(( $(date +%s) - start )) s" | tee -a "$summary"
  pass_notes "$log" "$OUT/sanitize/$2-times.txt"
}

for tool in "${tools[@]}"; do
  # Only memcheck supports dynamic parallelism ("CUDA Dynamic Parallelism is not supported by
  # the selected tool"): the nested lesson runs under memcheck alone.
  filter="$must_be_clean"
  [ "$tool" != memcheck ] && filter="$must_be_clean:Nested*:*nested*"
  for entry in "${excluded_under[@]}"; do
    IFS='|' read -r only pattern reason <<<"$entry"
    [ "$tool" = "$only" ] || continue
    filter+=":$pattern"
    echo "left out of $tool's clean pass: $pattern ($reason)" | tee -a "$summary"
  done
  clean_pass "$tool" "$tool" "fixed kernels, production reduce, lessons" "$filter"

  blog="$OUT/sanitize/$tool-book.log"
  WARPFOLD_SANITIZE="$tool" timeout "$(tool_bound "$tool")" "$sanitizer" --tool "$tool" --report-api-errors no --print-limit 5 \
    "$tests" --gtest_filter='Ladder/LadderKernelTest.*book*' >"$blog" 2>&1
  echo "$tool: book ladder kernels: $(grep -Eo '(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard).*' "$blog" | tail -1); kinds: $(grep -Eo '(Invalid __global__ [a-z]+|Race reported between [A-Za-z]+ access|Barrier error|Uninitialized __global__ memory read|[A-Z][a-z]+ hazard)' "$blog" | sort | uniq -c | tr '\n' ';')" | tee -a "$summary"

  WARPFOLD_TEST_MAX_N=$((1 << 27)) clean_pass "$tool" "$tool-large" "largest grids, the bulk kernel, the combine's paths, rounds of tiles" "$at_full_size"
done
echo "total: $(($(date +%s) - started)) s" | tee -a "$summary"
# The logs travel as one archive.
tar -C "$OUT" -czf "$OUT/sanitize.tgz" sanitize && rm -rf "$OUT/sanitize"
exit $failed
