#!/usr/bin/env bash
# Why warpfold.sum(x, dim) from Python read slower than `warpfold bench --axis` for the same shape
# (issue 38), on a GPU machine, in about 4 minutes. Builds the Python package (from the wheels
# carried in .whl/, as scripts/python-check.sh does) and the C++ CLI side by side; then, with the
# CPU idle, each under a time limit: the CPU tests of the bench's timing, python -m warpfold.bench
# --axis, `warpfold bench --axis` (where the CLI built in time; else the recorded H200 run stands
# in) and bench/python_axis_timing.py, which splits each Python call's time into its host and GPU
# parts and shows what the call before it adds.
#   bash py-device.sh [FOLDER]        (default $OUT, else ./device-out)
# CPP_BUILD_LIMIT (seconds from the start, default 140) bounds the wait for the CLI.
set -uo pipefail
source "$(dirname "$0")/scripts/common.sh"
out="${1:-${OUT:-$WARPFOLD_ROOT/device-out}}"
mkdir -p "$out/bench"
summary="$out/py38-summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
begin=$(date +%s)
elapsed() { echo $(( $(date +%s) - begin )); }

scratch="$(mktemp -d)"
cpp_pid=""
cleanup() {
  [ -n "$cpp_pid" ] && kill -TERM -- "-$cpp_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
use_carried_wheels "$scratch/deps"
find_cuda
run_header | tee -a "$summary"

# The CLI builds in a session of its own, so that it can be stopped whole.
# shellcheck disable=SC2016  # expanded by the inner shell
setsid bash -c 'source "$1/scripts/common.sh" && configure -DCMAKE_CUDA_ARCHITECTURES="${WARPFOLD_CUDA_ARCH:-90}" &&
                build warpfold_cli' _ "$WARPFOLD_ROOT" >"$out/cpp-build.log" 2>&1 &
cpp_pid=$!
install_python_package_offline "$scratch/site" "$scratch/none"
export PYTHONPATH="$scratch/site${PYTHONPATH:+:$PYTHONPATH}"
say "python package built at $(elapsed) s"

# No measurement while the CLI compiles: host times are part of what is measured.
while kill -0 "$cpp_pid" 2>/dev/null && [ "$(elapsed)" -lt "${CPP_BUILD_LIMIT:-140}" ]; do sleep 2; done
kill -TERM -- "-$cpp_pid" 2>/dev/null
wait "$cpp_pid"
cpp_rc=$?
cpp_pid=""
cli="$BUILD_DIR/src/warpfold"
[ $cpp_rc -eq 0 ] && [ -x "$cli" ] || cli=""
say "C++ CLI: $([ -n "$cli" ] && echo "built at $(elapsed) s" || echo "not built (exit $cpp_rc, $out/cpp-build.log)")"

cd "$WARPFOLD_ROOT" || exit 1
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q -p no:cacheprovider python/tests/test_bench_tools.py \
  python/tests/test_dims_layout.py >"$out/cpu-tests.log" 2>&1
say "bench timing and layout tests: $(tail -1 "$out/cpu-tests.log")"

PYTHONUNBUFFERED=1 timeout 80 python3 -m warpfold.bench --axis --sizes 20 --dtypes float32 --no-cccl \
  --overhead-calls 500 --out "$out/bench" >"$out/python-bench.log" 2>&1
say "python -m warpfold.bench --axis: exit $? at $(elapsed) s"
grep -A40 '^warpfold.sum(x, dim)' "$out/python-bench.log" | tee -a "$summary"
bench_json="$(find "$out/bench" -name 'python-*.json' | head -1)"

cpp_json="$WARPFOLD_ROOT/bench/results/segmented-H200-2026-11-26-9a07691.json"
if [ -n "$cli" ]; then
  timeout 50 "$cli" bench --axis --reps 20 --format json --out "$out/cpp-axis.json" >"$out/cpp-bench.log" 2>&1
  rc=$?
  say "warpfold bench --axis: exit $rc at $(elapsed) s"
  [ -s "$out/cpp-axis.json" ] && cpp_json="$out/cpp-axis.json"
fi
say "C++ numbers from $cpp_json"

timeout 80 python3 bench/python_axis_timing.py --out "$out" --bench "$bench_json" --cpp "$cpp_json" \
  >"$out/python-axis-timing.log" 2>&1
say "bench/python_axis_timing.py: exit $? at $(elapsed) s"
tee -a "$summary" <"$out/python-axis-timing.log"
say "== done in $(elapsed) s"
