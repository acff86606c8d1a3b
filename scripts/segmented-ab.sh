#!/usr/bin/env bash
# Before and after in one process: times this tree's warpfold::segmented_reduce against an older
# tree's and CUB, round by round (bench/ab/segmented_ab_main.cu), on CSR float sums of every class
# of segment over 2^26 elements, and checks that both trees give the same bits.
#   scripts/segmented-ab.sh OLD [ROUNDS]
# OLD is a commit or a folder holding an older tree's include/; AB_NEW_TREE stands for this tree
# on the new side (scripts/ab-build.sh). Builds into $BUILD_DIR/segmented-ab; one row per shape.
# Exit status 1 where the two trees' bits differ or a sum is wrong.
set -euo pipefail
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || die "usage: scripts/segmented-ab.sh OLD_COMMIT_OR_TREE [ROUNDS]"
find_cuda
source "$(dirname "$0")/ab-build.sh"
out="$BUILD_DIR/segmented-ab"
ab_build "$1" "$WARPFOLD_ROOT/bench/ab/segmented_ab_side.cu" "$WARPFOLD_ROOT/bench/ab/segmented_ab_main.cu" "$out"
"$out/ab_program" "${2:-15}"
