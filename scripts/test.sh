#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the whole test suite.
# ARRVM_SANITIZE=1 runs it under AddressSanitizer + UBSan (build-asan/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
build_dir=${ARRVM_BUILD_DIR:-build}
[ "${ARRVM_SANITIZE:-0}" = "1" ] && build_dir=${ARRVM_BUILD_DIR:-build-asan}
# A private kernel/merge cache, so the run neither depends on nor pollutes ~/.cache.
export ARRVM_CACHE_DIR=${ARRVM_CACHE_DIR:-$PWD/$build_dir/test-cache}
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
