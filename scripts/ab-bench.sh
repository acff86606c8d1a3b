#!/usr/bin/env bash
# Before and after in one process: times this tree's warpfold::reduce against an older tree's,
# round by round (bench/ab/ab_main.cu), so that the noise between processes cancels.
#   scripts/ab-bench.sh OLD [ROUNDS] [LOG2_STEP] [LOG2_MIN] [LOG2_MAX]
# OLD is a commit (exported with git archive) or a folder holding an older tree's include/.
# Sizes run from 2^LOG2_MIN (default 10) to 2^LOG2_MAX (default 30, each type's own limit below
# that). AB_NEW_TREE, a folder holding include/warpfold, stands for this tree on the new side.
# Builds for WARPFOLD_CUDA_ARCH (default 90) into $BUILD_DIR/ab; prints one row per type and size.
set -euo pipefail
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || die "usage: scripts/ab-bench.sh OLD_COMMIT_OR_TREE [ROUNDS] [LOG2_STEP] [LOG2_MIN] [LOG2_MAX]"
find_cuda
out="$BUILD_DIR/ab"
mkdir -p "$out"
old="$1"
if [ ! -d "$old/include/warpfold" ]; then
  git -C "$WARPFOLD_ROOT" rev-parse --verify -q "$old^{commit}" >/dev/null || die "$old is neither a commit nor a tree with include/warpfold"
  rm -rf "$out/old" && mkdir -p "$out/old"
  git -C "$WARPFOLD_ROOT" archive "$old" include | tar -x -C "$out/old"
  old="$out/old"
fi
new="${AB_NEW_TREE:-$WARPFOLD_ROOT}"
[ -d "$new/include/warpfold" ] || die "AB_NEW_TREE=$new holds no include/warpfold"
arch="${WARPFOLD_CUDA_ARCH:-90}"
flags=(-O3 -std=c++17 -arch="sm_$arch" -Xcompiler=-Wall)
nvcc "${flags[@]}" -I "$new/include" -DAB_SIDE=ab_new -c "$WARPFOLD_ROOT/bench/ab/ab_side.cu" -o "$out/new.o" &
nvcc "${flags[@]}" -I "$old/include" -DAB_SIDE=ab_old -Dwarpfold=warpfold_old -c "$WARPFOLD_ROOT/bench/ab/ab_side.cu" -o "$out/old.o" &
nvcc "${flags[@]}" -I "$WARPFOLD_ROOT/include" -I "$WARPFOLD_ROOT/src" -c "$WARPFOLD_ROOT/bench/ab/ab_main.cu" -o "$out/main.o" &
nvcc "${flags[@]}" -I "$WARPFOLD_ROOT/src" -c "$WARPFOLD_ROOT/src/harness/stats.cpp" -o "$out/stats.o" &
for job in $(jobs -p); do wait "$job" || die "building the A/B program failed"; done
nvcc "${flags[@]}" "$out/new.o" "$out/old.o" "$out/main.o" "$out/stats.o" -o "$out/ab_bench"
"$out/ab_bench" "${2:-60}" "${3:-2}" "${4:-10}" "${5:-30}"
