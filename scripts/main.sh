#!/usr/bin/env bash
# Builds warpfold and runs the main job: the reduction ladder on this machine, written to results/.
# Without a CUDA device it says so and runs the CPU parts.
set -euo pipefail
source "$(dirname "$0")/common.sh"
find_cuda
install_deps
configure_and_build "$@"
out="$WARPFOLD_ROOT/results"
mkdir -p "$out"
rc=0
"$BUILD_DIR/src/warpfold" ladder --format json --out "$out/ladder.json" || rc=$?
case "$rc" in
  0) "$BUILD_DIR/src/warpfold" ladder --out "$out/ladder.txt" && cat "$out/ladder.txt"
     log "results in $out/" ;;
  3) "$BUILD_DIR/src/warpfold" ladder --out "$out/ladder.txt" 2>/dev/null || true
     cat "$out/ladder.txt"
     log "no CUDA device on this machine: only the CPU rows ran; results in $out/" ;;
  *) die "warpfold ladder failed (exit $rc)" ;;
esac
