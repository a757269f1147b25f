#!/usr/bin/env bash
# Installs the Debian packages libarrvm needs (only those missing) and builds
# it in Release into build/ (or $ARRVM_BUILD_DIR). ARRVM_SANITIZE=1 builds
# with AddressSanitizer + UndefinedBehaviorSanitizer instead.
#   scripts/setup.sh [TARGET ...]   builds only those CMake targets (the demo:
#                                   the library, the arrvm program, the Python
#                                   extension); none: everything (the tests)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make pkg-config coinor-libcbc-dev libspdlog-dev nlohmann-json3-dev
          doctest-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libssl-dev python3-numpy
          python3-dev pybind11-dev python3-pybind11 python3-pytest libopenmpi-dev openmpi-bin
          graphviz python3-matplotlib python3-scipy ccache clang-format
          clang libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build_dir=${ARRVM_BUILD_DIR:-build}
cmake_args=(-DCMAKE_BUILD_TYPE=Release)
# ccache makes rebuilds of an unchanged tree (CI reruns, ASan after Release) cheap.
if command -v ccache >/dev/null; then
  cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
if [ "${ARRVM_SANITIZE:-0}" = "1" ]; then
  build_dir=${ARRVM_BUILD_DIR:-build-asan}
  cmake_args+=(-DARRVM_SANITIZE=ON)
fi
cmake -S . -B "$build_dir" "${cmake_args[@]}" >/dev/null
if [ $# -gt 0 ]; then
  cmake --build "$build_dir" -j"$(nproc)" --target "$@"
else
  cmake --build "$build_dir" -j"$(nproc)"
fi
echo "setup: built ${*:-everything} into $build_dir"
