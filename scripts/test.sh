#!/usr/bin/env bash
# Builds warpfold and runs every test. Without a CUDA device the GPU tests are reported as skipped.
# Ends with one line: the tests passed, failed and skipped, by label (cpu, gpu), and why skipped.
set -euo pipefail
source "$(dirname "$0")/common.sh"
find_cuda
install_deps
configure "$@"
build
cd "$BUILD_DIR"
rc=0
# --no-tests=error: a build that registered no test (tests switched off, say) fails, not passes.
ctest --output-on-failure --no-tests=error -j "$(nproc 2>/dev/null || echo 2)" \
  --output-junit "$BUILD_DIR/ctest-results.xml" || rc=$?
# The Python package (skipped, with the reason, where Python or its build dependencies are missing).
"$WARPFOLD_ROOT/scripts/python-test.sh" || rc=$?
if ctest --show-only=json-v1 >"$BUILD_DIR/ctest-tests.json" 2>/dev/null && [ -s "$BUILD_DIR/ctest-results.xml" ]; then
  log "$(python3 "$WARPFOLD_ROOT/scripts/ctest_summary.py" "$BUILD_DIR/ctest-tests.json" "$BUILD_DIR/ctest-results.xml")"
fi
exit $rc
