#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the whole test suite.
# ARRVM_SANITIZE=1 runs it under AddressSanitizer + UBSan (build-asan/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# The sources are clang-formatted (.clang-format; scripts/format.sh fixes them).
./scripts/format.sh --check
build_dir=${ARRVM_BUILD_DIR:-build}
if [ "${ARRVM_SANITIZE:-0}" = "1" ]; then
  build_dir=${ARRVM_BUILD_DIR:-build-asan}
  # CBC's own leaks (tests/lsan.supp) are not ours to fix.
  export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  # The tests ask for more memory than exists (a base at the size limit) and
  # expect the allocator's refusal, which ASan otherwise reports as an error.
  export ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi
# A private kernel/merge cache, so the run neither depends on nor pollutes ~/.cache.
export ARRVM_CACHE_DIR=${ARRVM_CACHE_DIR:-$PWD/$build_dir/test-cache}
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
# The docs' shell commands (scripts/doc_commands.py): the install and its
# pkg-config consumers, the Python one-liners, and the README's fuzz runs
# (tests/fuzz/run.sh, clang, build-fuzz/) capped at 10 s each.
# ARRVM_DOC_COMMANDS=0 skips them; under ARRVM_SANITIZE they do not run (they
# name build/).
if [ "${ARRVM_SANITIZE:-0}" != "1" ] && [ "${ARRVM_DOC_COMMANDS:-1}" = "1" ]; then
  /usr/bin/python3 scripts/doc_commands.py
fi
