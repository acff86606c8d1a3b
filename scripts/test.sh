#!/usr/bin/env bash
# Builds warpfold and runs every test. Without a CUDA device the GPU tests are reported as skipped.
set -euo pipefail
source "$(dirname "$0")/common.sh"
find_cuda
install_deps
configure_and_build "$@"
cd "$BUILD_DIR"
# --no-tests=error: a build that registered no test (tests switched off, say) fails, not passes.
ctest --output-on-failure --no-tests=error -j "$(nproc 2>/dev/null || echo 2)"
# The Python package (skipped, with the reason, where Python or its build dependencies are missing).
"$WARPFOLD_ROOT/scripts/python-test.sh"
