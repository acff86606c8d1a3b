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
source "$(dirname "$0")/ab-build.sh"
out="$BUILD_DIR/ab"
ab_build "$1" "$WARPFOLD_ROOT/bench/ab/ab_side.cu" "$WARPFOLD_ROOT/bench/ab/ab_main.cu" "$out"
"$out/ab_program" "${2:-60}" "${3:-2}" "${4:-10}" "${5:-30}"
