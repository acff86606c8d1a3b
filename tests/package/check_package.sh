#!/usr/bin/env bash
# The library as a user meets it: configured alone (without the lab, the CLI, the tests, or their
# dependencies), installed into a fresh prefix, then every example of examples/ built against
# that prefix (find_package) and as a subproject (add_subdirectory), and the package's refusals
# checked (an architecture below 7.5, NCCL missing, another minor version). Fails if an install
# rule or an exported target goes missing. The examples compile for ARCHS (a CMake list: 75;90
# covers the non-Hopper and the Hopper code paths); the library's ptxas warnings there must be
# those of known_ptxas_warnings.txt only.
#   check_package.sh SOURCE_DIR WORK_DIR ARCHS GENERATOR
set -uo pipefail
src="$1" work="$2" archs="$3" generator="$4"
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
run() {  # LOG COMMAND...: runs the command, its output into LOG; prints the log's tail on failure
  local log="$1"; shift
  "$@" >"$log" 2>&1 || { tail -25 "$log"; return 1; }
}

# 1. The library alone, installed.
lib="$work/library" prefix="$work/prefix"
run "$work/library.log" cmake -S "$src" -B "$lib" -G "$generator" -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_CUDA_ARCHITECTURES="$archs" -DWARPFOLD_BUILD_LAB=OFF -DWARPFOLD_BUILD_CLI=OFF \
    -DWARPFOLD_BUILD_TESTS=OFF -DWARPFOLD_BUILD_EXAMPLES=OFF || { echo "FAILED: library-only configure"; exit 1; }
run "$work/install.log" cmake --build "$lib" --target install || { echo "FAILED: install"; exit 1; }
# The lab's, the CLI's and the tests' dependencies were not even looked for.
if grep -E '^(CLI11_DIR|nlohmann_json_DIR|GTest_DIR|WARPFOLD_CLI11_INCLUDE|WARPFOLD_nlohmann_json_INCLUDE|MPI_CXX_COMPILER)[:=]' \
     "$lib/CMakeCache.txt"; then
  fail "the library-only configure looked for a dependency of the lab, the CLI or the tests (above)"
fi

# 2. Every header of include/warpfold/ and the generated version.hpp are installed, nothing else.
expected="$( (cd "$src/include" && find warpfold -type f; echo warpfold/version.hpp) | sort)"
installed="$(cd "$prefix/include" && find warpfold -type f | sort)"
[ "$expected" = "$installed" ] || fail "installed headers differ from include/warpfold/ + version.hpp:
$(diff <(echo "$expected") <(echo "$installed"))"
distributed="$(sed -n 's/^WARPFOLD_MULTIGPU:INTERNAL=//p' "$lib/CMakeCache.txt")"
package_files=(warpfoldConfig.cmake warpfoldConfigVersion.cmake warpfoldTargets.cmake warpfoldRequirements.cmake
               warpfoldFindNCCL.cmake)
[ "$distributed" = ON ] && package_files+=(warpfoldDistributedTargets.cmake)
for f in "${package_files[@]}"; do
  [ -f "$prefix/lib/cmake/warpfold/$f" ] || fail "lib/cmake/warpfold/$f is not installed"
done

# 3. Every example, against the prefix and as a subproject.
: >"$work/warnings.txt"
for example in "$src"/examples/*/; do
  name="$(basename "$example")"
  for how in installed subproject; do
    build="$work/$name-$how"
    where=(-DCMAKE_PREFIX_PATH="$prefix")
    [ "$how" = subproject ] && where=(-DWARPFOLD_SOURCE_DIR="$src")
    if run "$build.log" cmake -S "$example" -B "$build" -G "$generator" -DCMAKE_CUDA_ARCHITECTURES="$archs" \
           -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON "${where[@]}" &&
       run "$build-build.log" cmake --build "$build"; then
      echo "ok: examples/$name ($how)"
      grep -o 'ptxas warning.*' "$build-build.log" >>"$work/warnings.txt"
    else
      fail "examples/$name, $how"
    fi
  done
done

# 4. What the package accepts and refuses.
consumer() {  # NAME EXPECT(ok|refused) PATTERN -DARGS...: configures the consumer project
  local name="$1" expect="$2" pattern="$3"; shift 3
  local log="$work/consumer-$name.log"
  if cmake -S "$src/tests/package/consumer" -B "$work/consumer-$name" -DCMAKE_PREFIX_PATH="$prefix" \
       -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON "$@" >"$log" 2>&1; then got=ok; else got=refused; fi
  if [ "$got" != "$expect" ] || ! grep -q -- "$pattern" "$log"; then
    tail -15 "$log"
    fail "consumer '$name': expected $expect with '$pattern', got $got"
  else
    echo "ok: consumer '$name' $expect"
  fi
}
consumer same-minor ok "warpfold 0.2" -DWANT_VERSION=0.2 -DWANT_TARGETS=warpfold::warpfold
consumer older-minor refused "compatible" -DWANT_VERSION=0.1
consumer turing-and-up ok "warpfold 0.2" -DWANT_VERSION=0.2 -DCMAKE_CUDA_ARCHITECTURES="75;90-real;90-virtual"
consumer volta refused "compute capability 7.5" -DCMAKE_CUDA_ARCHITECTURES="70;80"
consumer no-component refused "no component 'lab'" -DWANT_COMPONENTS=lab
consumer no-nccl-component refused "needs NCCL" -DWANT_COMPONENTS=distributed -DWARPFOLD_NCCL_INCLUDE_DIR="$work/no-nccl"
consumer no-nccl-link refused "links warpfold::distributed, which needs NCCL" -DLINK_DISTRIBUTED=ON \
  -DWARPFOLD_NCCL_INCLUDE_DIR="$work/no-nccl"
if [ "$distributed" = ON ]; then
  consumer distributed ok "warpfold 0.2" -DWANT_COMPONENTS=distributed -DLINK_DISTRIBUTED=ON \
    -DWANT_TARGETS="warpfold::warpfold;warpfold::distributed"
else
  consumer distributed refused "installed without it" -DWANT_COMPONENTS=distributed
fi

# 5. ptxas warnings: only the known ones, each still seen (a fixed one leaves the list).
known="$src/tests/package/known_ptxas_warnings.txt"
patterns="$(grep -v '^#' "$known" | grep -v '^$')"
unknown="$(sort -u "$work/warnings.txt" | { if [ -n "$patterns" ]; then grep -v -E -f <(echo "$patterns"); else cat; fi; })"
[ -z "$unknown" ] || fail "ptxas warnings (architectures $archs):
$unknown"
while IFS= read -r pattern; do
  [ -n "$pattern" ] || continue  # an empty list reads as one empty line
  grep -q -E -- "$pattern" "$work/warnings.txt" ||
    fail "known ptxas warning no longer seen (remove it from tests/package/known_ptxas_warnings.txt): $pattern"
done <<<"$patterns"
[ -s "$work/warnings.txt" ] && echo "known ptxas warnings (tests/package/known_ptxas_warnings.txt): $(sort -u "$work/warnings.txt" | wc -l)"

[ $failures -eq 0 ] && echo "package: installed, every example built both ways, refusals as documented"
exit $((failures > 0))
