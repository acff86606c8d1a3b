#!/usr/bin/env bash
# Downloads into .whl/ the wheels that scripts/python-check.sh installs on a GPU machine without a
# package registry (CPython 3.12, x86-64 Linux): the package's build and test dependencies, and
# cuda-cccl for the bench's cuda.compute comparison. One version of each.
set -euo pipefail
cd "$(dirname "$0")/.."
wheels=(scikit-build-core==1.1.2 nanobind==3.1.0 pathspec==1.1.1 packaging==26.4 pytest==9.2.0 pluggy==1.7.0
        iniconfig==2.3.1 pygments==2.21.0 cuda-cccl==1.2.1)
platforms=()
for p in manylinux_2_28 manylinux_2_27 manylinux_2_26 manylinux_2_17 manylinux2014 manylinux1; do
  platforms+=(--platform "${p}_x86_64")
done
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  "${platforms[@]}" -d .whl "${wheels[@]}"
ls -l .whl
