# Shared by the scripts: locate the CUDA toolkit, install missing Debian packages, configure and build.
# Sourced, not run.

WARPFOLD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${WARPFOLD_BUILD_DIR:-$WARPFOLD_ROOT/build}"

log() { printf '[warpfold] %s\n' "$*" >&2; }
die() { printf '[warpfold] error: %s\n' "$*" >&2; exit 1; }

find_cuda() {
  if ! command -v nvcc >/dev/null 2>&1; then
    for d in /usr/local/cuda/bin /usr/local/cuda-13*/bin /usr/lib/cuda/bin; do
      [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
    done
  fi
  command -v nvcc >/dev/null 2>&1 || die "nvcc not found: install the CUDA toolkit (13.0 or newer) and put its bin/ on PATH"
  # The toolkit's release, from "Cuda compilation tools, release 13.0, V13.0.48".
  local release
  release="$(nvcc --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1/p' | head -1)"
  [ -n "$release" ] && [ "$release" -ge 13 ] ||
    die "nvcc $(command -v nvcc) is CUDA ${release:-of unknown release}: warpfold needs CUDA 13.0 or newer"
}

have_header() {
  for d in /usr/include /usr/local/include; do [ -e "$d/$1" ] && return 0; done
  return 1
}

# MPI for `warpfold multigpu --mode mpi`: the compiler wrapper, the launcher and the header (Debian
# keeps Open MPI's mpi.h under an architecture folder, not in /usr/include).
have_mpi() {
  command -v mpicxx >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 || return 1
  local d
  # shellcheck disable=SC2046  # one folder per word
  for d in $(mpicxx --showme:incdirs 2>/dev/null) /usr/include /usr/include/*/openmpi /usr/lib/*/openmpi/include \
           /usr/include/*/mpich; do
    [ -e "$d/mpi.h" ] && return 0
  done
  return 1
}

# NCCL where CMake looks for it (cmake/multigpu.cmake): the toolkit, the default paths, NCCL_ROOT /
# NCCL_HOME, or the Python wheel nvidia-nccl-cu13.
have_nccl() {
  local d nvcc_root
  nvcc_root="$(dirname "$(dirname "$(command -v nvcc)")")"
  for d in "$nvcc_root/include" "$nvcc_root/targets/"*/include /usr/include /usr/local/include \
           "${NCCL_ROOT:-/nonexistent}/include" "${NCCL_HOME:-/nonexistent}/include"; do
    [ -e "$d/nccl.h" ] && return 0
  done
  python3 -c "import nvidia.nccl" >/dev/null 2>&1
}

# Installs what is missing, through apt-get (as root, or with sudo). A machine that already has
# the tools and headers (from any source) installs nothing.
install_deps() {
  local pkgs=()
  command -v cmake >/dev/null 2>&1 || pkgs+=(cmake)
  command -v ninja >/dev/null 2>&1 || pkgs+=(ninja-build)
  command -v g++ >/dev/null 2>&1 || pkgs+=(g++)
  command -v git >/dev/null 2>&1 || pkgs+=(git)
  have_header gtest/gtest.h || pkgs+=(libgtest-dev)
  have_header CLI/CLI.hpp || pkgs+=(libcli11-dev)
  have_header nlohmann/json.hpp || pkgs+=(nlohmann-json3-dev)
  have_mpi || pkgs+=(libopenmpi-dev openmpi-bin)
  local want_nccl=0
  have_nccl || want_nccl=1
  # The report's figures: matplotlib in the system Python (scripts/report/run_assembler.sh finds it).
  if ! python3 -c "import matplotlib, markdown" >/dev/null 2>&1 &&
     ! /usr/bin/python3 -c "import matplotlib, markdown" >/dev/null 2>&1; then
    pkgs+=(python3-matplotlib python3-markdown)
  fi
  [ ${#pkgs[@]} -eq 0 ] && [ $want_nccl -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ ${#pkgs[@]} -gt 0 ]; then
    log "installing missing Debian packages: ${pkgs[*]}"
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install ${pkgs[*]} by hand"
    $sudo apt-get update -qq || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${pkgs[@]}" >/dev/null || die "apt-get install ${pkgs[*]} failed"
  fi
  # NCCL (libnccl-dev) is in Debian's non-free section and NVIDIA's CUDA repository, which a
  # machine may not list: tried, and without it the multi-GPU parts are left out, visibly.
  if [ $want_nccl -eq 1 ] && command -v apt-get >/dev/null 2>&1; then
    if [ ${#pkgs[@]} -eq 0 ]; then $sudo apt-get update -qq >/dev/null 2>&1 || true; fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libnccl-dev >/dev/null 2>&1 ||
      log "libnccl-dev not available from apt: warpfold multigpu and its tests will not be built"
  fi
}

# The commit of this tree: the first line of .commit where there is one (written, git rev-parse
# --short=12 HEAD > .commit, before a copy goes to a GPU machine, whose .git may be missing or lag),
# else git's HEAD where the tree has its own .git (not an enclosing repository's), else "unknown":
# the order cmake/commit_stamp.cmake reads them in.
tree_commit() {
  local commit=""
  [ -f "$WARPFOLD_ROOT/.commit" ] && commit="$(head -1 "$WARPFOLD_ROOT/.commit" | tr -d '[:space:]')"
  [ -n "$commit" ] || [ ! -e "$WARPFOLD_ROOT/.git" ] || commit="$(git -C "$WARPFOLD_ROOT" rev-parse --short=12 HEAD 2>/dev/null)"
  echo "${commit:-unknown}"
}

# The first line of a device run's summary: the time and the commit.
run_stamp() {
  echo "== $(date -u +%FT%TZ) commit $(tree_commit)"
}

# The first lines of a device run's summary: run_stamp and the GPU.
run_header() {
  run_stamp
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1
}

# Every test a GoogleTest log ($1) shows ending, as "MS NAME" lines (run without --gtest_brief).
gtest_times() {
  sed -nE 's/^\[ +(OK|FAILED|SKIPPED) +\] ([^ ,]+).* \(([0-9]+) ms\)$/\3 \2/p' "$1"
}

# Whether nvidia-smi sees a GPU on this machine.
gpu_visible() {
  nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

# Configures $BUILD_DIR with the given CMake arguments, CMake's output shown as it comes. Without
# an architecture named (-DCMAKE_CUDA_ARCHITECTURES or CUDAARCHS), it builds for the GPU at hand
# (native) where one is visible, else for sm_90 plus Turing's PTX: a compile check, on a machine
# without a GPU, of the newest and the oldest architecture's code paths (an intrinsic that Turing
# lacks stops that build). CMake's own default, every architecture from Turing to Hopper, is for
# builds of the library that others run.
configure() {
  local arch=()
  if [ -z "${CUDAARCHS:-}" ] && [[ " $* " != *" -DCMAKE_CUDA_ARCHITECTURES="* ]]; then
    if gpu_visible; then
      arch=(-DCMAKE_CUDA_ARCHITECTURES=native)
      log "building for the GPU of this machine (native); pass -DCMAKE_CUDA_ARCHITECTURES=... for others"
    else
      arch=("-DCMAKE_CUDA_ARCHITECTURES=75-virtual;90")
      log "no GPU visible: building for sm_90 and Turing's PTX (pass -DCMAKE_CUDA_ARCHITECTURES=... for others)"
    fi
  fi
  log "configuring $BUILD_DIR"
  cmake -S "$WARPFOLD_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${arch[@]}" "$@" ||
    die "cmake configure failed (see the messages above)"
}

# Builds the given targets (every target without any).
build() {
  local jobs targets=()
  jobs="$(nproc 2>/dev/null || echo 2)"
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$BUILD_DIR" -j "$jobs" "${targets[@]}" || die "build failed"
}

configure_and_build() {
  configure "$@"
  build
}

# The Python modules among "$@" that python3 cannot import (all of them without python3).
missing_python_modules() {
  command -v python3 >/dev/null 2>&1 || { echo "python3"; return 0; }
  python3 -c 'import importlib.util, sys; print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))' "$@"
}

# Builds the Python package's wheel offline, with the build dependencies python3 already has
# (--no-build-isolation), and installs it into folder $1 (for PYTHONPATH), leaving site-packages
# alone. Further arguments go to pip wheel (-C cmake.define.X=Y, say). The build log goes to
# build-python/pip-wheel.log; its tail is shown when the build fails.
install_python_package() {
  local site="$1" wheels log="$WARPFOLD_ROOT/build-python/pip-wheel.log"
  shift
  mkdir -p "$(dirname "$log")"
  wheels="$(mktemp -d)"
  if ! python3 -m pip wheel -v --no-build-isolation --no-deps --no-index -w "$wheels" "$@" "$WARPFOLD_ROOT" >"$log" 2>&1; then
    tail -25 "$log" >&2
    rm -rf "$wheels"
    die "building the Python package failed (log: $log)"
  fi
  python3 -m pip install -q --no-deps --no-index --upgrade --target "$site" "$wheels"/warpfold-*.whl ||
    die "installing the Python package into $site failed"
  rm -rf "$wheels"
}

# On a GPU machine without a package registry: the wheels carried in .whl/ (scripts/python-wheels.sh
# downloads them) installed into folder $1 and put on PYTHONPATH, where there are any.
use_carried_wheels() {
  local deps="$1" wheels
  shopt -s nullglob
  wheels=("$WARPFOLD_ROOT"/.whl/*.whl)
  shopt -u nullglob
  [ ${#wheels[@]} -gt 0 ] || return 0
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$deps" \
    "${wheels[@]}" || die "installing the carried wheels failed"
  export PYTHONPATH="$deps${PYTHONPATH:+:$PYTHONPATH}"
}

# install_python_package into folder $1 on a machine that may lack the CLI's headers: today's root
# CMakeLists looks for them even when only the extension is built; where they are missing, an
# empty folder ($2, created) stands in (nothing that is built includes them).
install_python_package_offline() {
  local site="$1" none="$2" defines=()
  mkdir -p "$none"
  have_header CLI/CLI.hpp || defines+=(-C "cmake.define.WARPFOLD_CLI11_INCLUDE=$none")
  have_header nlohmann/json.hpp || defines+=(-C "cmake.define.WARPFOLD_JSON_INCLUDE=$none")
  install_python_package "$site" "${defines[@]}"
}
