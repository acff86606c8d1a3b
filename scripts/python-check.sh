#!/usr/bin/env bash
# The Python package on a GPU machine without a package registry: installs the wheels carried in
# .whl/ (scripts/python-wheels.sh downloads them) into a temporary folder, builds and installs
# warpfold offline, runs its tests, then python -m warpfold.bench. Logs and the bench's JSON go
# to the folder given (default $OUT, else ./device-out); a summary is printed last.
#   scripts/python-check.sh [FOLDER] [BENCH_ARGS...]     e.g. scripts/python-check.sh "$OUT" --all-sizes
# Builds for this machine's GPUs unless CMAKE_CUDA_ARCHITECTURES says otherwise.
set -uo pipefail
source "$(dirname "$0")/common.sh"
out="${1:-${OUT:-$WARPFOLD_ROOT/device-out}}"
[ $# -gt 0 ] && shift
mkdir -p "$out"
summary="$out/python-summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
use_carried_wheels "$scratch/deps"
find_cuda
say "$(run_stamp)"
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1); $(python3 --version 2>&1)"

start=$(date +%s)
install_python_package_offline "$scratch/site" "$scratch/none"
cp "$WARPFOLD_ROOT/build-python/pip-wheel.log" "$out/python-build.log"
say "build and install: $(( $(date +%s) - start )) s ($(grep -o 'CUDA architectures .*' "$out/python-build.log" | head -1))"
export PYTHONPATH="$scratch/site:$PYTHONPATH"

failed=0
cd "$WARPFOLD_ROOT"
# Only pytest's own plugins: those installed beside the machine's pytest may not suit the carried one.
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q -rs -p no:cacheprovider python/tests >"$out/python-tests.log" 2>&1 ||
  failed=1
say "pytest: $(tail -1 "$out/python-tests.log")"
grep -E '^(FAILED|ERROR)' "$out/python-tests.log" | head -20 | tee -a "$summary"
grep -E '^SKIPPED' "$out/python-tests.log" | head -12 | tee -a "$summary"

PYTHONUNBUFFERED=1 python3 -m warpfold.bench --out "$out" "$@" >"$out/python-bench.log" 2>&1 || failed=1
grep -v '^$' "$out/python-bench.log" | tail -100 | tee -a "$summary"
exit $failed
