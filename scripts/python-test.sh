#!/usr/bin/env bash
# The Python package's tests (python/tests): builds and installs the package into a temporary
# folder and runs pytest on it. Needs python3 with scikit-build-core, nanobind and pytest (numpy
# for the host-array tests); where one is missing it says "skipped" and why, and exits 0. Tests
# that need a GPU skip themselves without one.
set -euo pipefail
source "$(dirname "$0")/common.sh"
missing="$(missing_python_modules scikit_build_core nanobind pytest)"
if [ -n "$missing" ]; then
  echo "python tests: skipped (not importable: $missing; python3 -m pip install scikit-build-core nanobind pytest numpy)"
  exit 0
fi
find_cuda
site="$(mktemp -d)"
trap 'rm -rf "$site"' EXIT
start=$(date +%s)
install_python_package "$site"
log "Python package built and installed in $(( $(date +%s) - start )) s"
cd "$WARPFOLD_ROOT"
PYTHONPATH="$site" python3 -m pytest -q -rs -p no:cacheprovider python/tests
