#!/usr/bin/env bash
# The GPU machine's one call: build, run the GPU tests and the measurements, write logs to $OUT.
#   scripts/device-check.sh [STAGE...]   stages: tests ladder sweep divergence info grid (default: all)
# Prints a short summary last; full logs and JSON go to $OUT (or ./device-out without it).
set -uo pipefail
source "$(dirname "$0")/common.sh"
OUT="${OUT:-$WARPFOLD_ROOT/device-out}"
mkdir -p "$OUT"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(tests ladder sweep divergence info grid)
want() { local s; for s in "${stages[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

find_cuda
say "== $(date -u +%FT%TZ) commit $(git -C "$WARPFOLD_ROOT" rev-parse --short HEAD 2>/dev/null || echo none)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1 | tee -a "$summary"
say "nvcc: $(nvcc --version | tail -1); cmake: $(cmake --version | head -1)"

start=$(date +%s)
configure_and_build -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
say "build: $(( $(date +%s) - start )) s"
bin="$BUILD_DIR/src/warpfold"

if want tests; then
  "$BUILD_DIR/tests/warpfold_gpu_tests" --gtest_brief=1 >"$OUT/gpu-tests.log" 2>&1
  say "gpu tests (exit $?): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$OUT/gpu-tests.log" | head -20 | tee -a "$summary"
  "$BUILD_DIR/tests/warpfold_cpu_tests" --gtest_brief=1 >"$OUT/cpu-tests.log" 2>&1
  say "cpu tests (exit $?): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/cpu-tests.log" | tr '\n' ' ')"
fi
if want ladder; then
  "$bin" ladder --format json --out "$OUT/ladder.json"; say "ladder json exit $?"
  "$bin" ladder 2>&1 | tee -a "$summary"
fi
if want sweep; then
  "$bin" ladder --block-sweep --reps 10 2>&1 | tee -a "$summary"
fi
# execution-model lab: JSON for scripts, Markdown for docs/execution-model.md
for cmd in divergence info grid; do
  if want "$cmd"; then
    "$bin" "$cmd" --format json --out "$OUT/$cmd.json"; say "$cmd json exit $?"
    "$bin" "$cmd" --format md --out "$OUT/$cmd.md"; say "$cmd md exit $?"
    cat "$OUT/$cmd.md" >>"$summary" 2>/dev/null
  fi
done
say "== done in $(( $(date +%s) - start )) s"
