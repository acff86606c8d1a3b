#!/usr/bin/env bash
# Builds warpfold and runs every test. Without a CUDA device the GPU tests are reported as skipped.
set -euo pipefail
source "$(dirname "$0")/common.sh"
find_cuda
install_deps
configure_and_build "$@"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
