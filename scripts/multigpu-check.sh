#!/usr/bin/env bash
# The multi-GPU check for a GPU machine: build, run the distributed reduce's GPU tests, then
# `warpfold multigpu` in both set-ups (one process; one process per GPU under mpirun) on 1 GPU
# and, where the host has 2 or more, on 2. Prints the tables last; JSON, logs and the summary go
# to $OUT (./multigpu-out without it).
#
#   scripts/multigpu-check.sh [STAGE...]     stages: build tests single mpi (default: all four)
#
# Optional environment:
#   MULTIGPU_GPUS    GPU counts, e.g. "1 2 4 8"  (default: "1", plus "2" on a host with 2 or more)
#   MULTIGPU_SIZES   elements per GPU, e.g. "2^28 2^30"  (default: "2^28")
#   MULTIGPU_TYPES   element types  (default: "int32 float")
#   MULTIGPU_OPS     operators      (default: "sum")
#   MULTIGPU_REPS    timed repetitions of each measurement (default: 20)
#   MPIRUN_ARGS      more arguments for mpirun (e.g. "--mca btl_tcp_if_include eth0")
# Exit status 0 only when every stage asked for ran and passed.
# A copy of the tree whose .git is missing or lags learns its commit from .commit (git rev-parse --short=12 HEAD > .commit).
set -uo pipefail
source "$(dirname "$0")/common.sh"

# NVLink multicast stays off for every process started from here (warpfold sets it too where it
# is unset, and mpirun passes it on with -x below).
export NCCL_NVLS_ENABLE=0

OUT="${OUT:-$WARPFOLD_ROOT/multigpu-out}"
results="$OUT/multigpu"
mkdir -p "$results"
summary="$OUT/multigpu-summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
failures=0
fail() { say "FAILED: $*"; failures=$((failures + 1)); }

stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build tests single mpi)
want() { local s; for s in "${stages[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

find_cuda
say "$(run_stamp)"
nvidia-smi --query-gpu=index,name,driver_version,memory.total,pci.bus_id --format=csv,noheader 2>&1 | tee -a "$summary"
nvidia-smi topo -m >"$OUT/topology.txt" 2>&1 && cat "$OUT/topology.txt" >>"$summary"
gpus_present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
say "GPUs: $gpus_present; NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE; mpirun: $(command -v mpirun || echo 'not found')"

start=$(date +%s)
if want build; then
  configure_and_build -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  say "build: $(( $(date +%s) - start )) s"
fi
cache="$BUILD_DIR/CMakeCache.txt"
grep -q '^WARPFOLD_MULTIGPU:INTERNAL=ON' "$cache" 2>/dev/null ||
  die "this build has no multi-GPU part (NCCL not found at configure time: see $OUT/build.log)"
mpi_built=0
grep -q '^WARPFOLD_MULTIGPU_MPI:INTERNAL=ON' "$cache" && mpi_built=1
bin="$BUILD_DIR/src/warpfold"

if want tests; then
  "$BUILD_DIR/tests/warpfold_gpu_tests" --gtest_filter='Distributed*:Multigpu*' >"$OUT/gpu-tests.log" 2>&1 ||
    fail "GPU tests (see gpu-tests.log)"
  say "gpu tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$OUT/gpu-tests.log" | tee -a "$summary"
  "$BUILD_DIR/tests/warpfold_cpu_tests" --gtest_brief=1 >"$OUT/cpu-tests.log" 2>&1 || fail "CPU tests (see cpu-tests.log)"
  say "cpu tests: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/cpu-tests.log" | tr '\n' ' ')"
fi

# mpirun's arguments: Open MPI refuses root without --allow-run-as-root and binds each process to
# one core by default (the CPU reference uses every core); MPICH's Hydra takes -genv instead of -x.
mpirun_args() {  # NP
  if mpirun --version 2>&1 | grep -q "Open MPI"; then
    local a=(-np "$1" --bind-to none --oversubscribe -x NCCL_NVLS_ENABLE=0)
    [ "$(id -u)" -eq 0 ] && a+=(--allow-run-as-root)
    printf '%s\n' "${a[@]}"
  else
    printf '%s\n' -np "$1" -genv NCCL_NVLS_ENABLE 0
  fi
}

run_case() {  # MODE GPUS SIZE TYPE OP
  local mode=$1 n=$2 size=$3 type=$4 op=$5
  local name="$mode-g$n-${size//^/p}-$type-$op"
  local args=(multigpu --mode "$mode" --gpus "$n" --n-per-gpu "$size" --type "$type" --op "$op"
              --reps "${MULTIGPU_REPS:-20}" --format json --out "$results/$name.json")
  local rc
  if [ "$mode" = single ]; then
    timeout 600 "$bin" "${args[@]}" >"$results/$name.log" 2>&1; rc=$?
  else
    local launcher
    mapfile -t launcher < <(mpirun_args "$n")
    # shellcheck disable=SC2086  # MPIRUN_ARGS is a list of words
    timeout 600 mpirun "${launcher[@]}" ${MPIRUN_ARGS:-} "$bin" "${args[@]}" >"$results/$name.log" 2>&1; rc=$?
  fi
  say "$name: exit $rc"
  [ "$rc" -eq 0 ] || { fail "$name (exit $rc)"; tail -15 "$results/$name.log" | tee -a "$summary"; }
}

default_gpus="1"
[ "$gpus_present" -ge 2 ] && default_gpus="1 2"
for n in ${MULTIGPU_GPUS:-$default_gpus}; do
  if [ "$n" -gt "$gpus_present" ]; then
    fail "$n GPUs asked for, the host has $gpus_present: not run"
    continue
  fi
  for size in ${MULTIGPU_SIZES:-2^28}; do
    for type in ${MULTIGPU_TYPES:-int32 float}; do
      for op in ${MULTIGPU_OPS:-sum}; do
        want single && run_case single "$n" "$size" "$type" "$op"
        if want mpi; then
          if [ "$mpi_built" -ne 1 ]; then
            fail "mpi set-up not built (MPI not found at configure time)"
          elif ! command -v mpirun >/dev/null 2>&1; then
            fail "mpi set-up not run: mpirun not found"
          else
            run_case mpi "$n" "$size" "$type" "$op"
          fi
        fi
      done
    done
  done
done

shopt -s nullglob
jsons=("$results"/*.json)
if [ ${#jsons[@]} -gt 0 ]; then
  if command -v python3 >/dev/null 2>&1; then
    python3 "$WARPFOLD_ROOT/scripts/multigpu_summary.py" "${jsons[@]}" 2>&1 | tee -a "$summary"
  else
    cat "${jsons[@]}" | tee -a "$summary"
  fi
fi
say "== done in $(( $(date +%s) - start )) s, $failures failure(s)"
[ "$failures" -eq 0 ]
