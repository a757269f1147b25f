#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan + UBSan, -DARRVM_FUZZ=ON) in
# build-fuzz/ and runs each for SECONDS (default 30).
#
#   tests/fuzz/run.sh [SECONDS] [HARNESS...]     HARNESS: trace, c_api (default both)
#
# FUZZ_JOBS=N runs N workers per harness (default 1). The corpus grows in
# build-fuzz/corpus/HARNESS, seeded from tests/fuzz/corpus/HARNESS (recorded
# benchmark traces, tests/data traces) and tests/data/fuzz/HARNESS (inputs
# that once crashed). A crash or hang leaves its input in
# build-fuzz/artifacts/HARNESS/ and makes this script fail; once fixed, copy
# the input to tests/data/fuzz/HARNESS/ so that ctest replays it.
# ARRVM_FUZZ_BUILD_DIR changes the build directory. Extra libFuzzer flags can
# be passed in FUZZ_FLAGS. FUZZ_KEEP_GOING=1 (long runs) goes on past crashes
# and hangs, collecting each in the artifacts directory; the script then fails
# if any was collected. FUZZ_MAX_SECONDS caps SECONDS (scripts/doc_commands.py
# runs the docs' long runs so).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
if [ -n "${FUZZ_MAX_SECONDS:-}" ] && [ "$seconds" -gt "$FUZZ_MAX_SECONDS" ]; then seconds=$FUZZ_MAX_SECONDS; fi
[ $# -gt 0 ] && shift
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(trace c_api)
build=${ARRVM_FUZZ_BUILD_DIR:-build-fuzz}

command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (scripts/setup.sh installs clang)" >&2; exit 2; }
cmake_args=(-DARRVM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
if command -v ccache >/dev/null; then
  cmake_args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" "${cmake_args[@]}" >/dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j"${FUZZ_BUILD_JOBS:-$(nproc)}" --target "${targets[@]}"

# The harnesses set their own configuration; the caller's must not leak in.
for v in $(env | sed -n 's/^\(ARRVM_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
root=$PWD
build_abs=$(cd "$build" && pwd)
for h in "${harnesses[@]}"; do
  corpus=$build/corpus/$h
  artifacts=$build/artifacts/$h
  # The fuzzer runs in logs/: with FUZZ_JOBS, libFuzzer writes fuzz-N.log
  # into its working directory.
  logs=$build/logs/$h
  mkdir -p "$corpus" "$artifacts" "$logs"
  seeds=("$root/tests/data/fuzz/$h")
  [ -d tests/fuzz/corpus/$h ] && seeds+=("$root/tests/fuzz/corpus/$h")
  echo "fuzz: $h for ${seconds}s (corpus $corpus, artifacts $artifacts, logs $logs)"
  extra=()
  [ "${FUZZ_JOBS:-1}" -gt 1 ] && extra+=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
  [ -f tests/fuzz/$h.dict ] && extra+=(-dict="$root/tests/fuzz/$h.dict")
  # Long runs: go on past a crash, hang or OOM (each one still lands in $artifacts).
  [ "${FUZZ_KEEP_GOING:-0}" = "1" ] && extra+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  # -max_len: small inputs run fast (longer seeds are cut); -timeout: a hang is a bug.
  if ! (cd "$logs" && "$build_abs/tests/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
      -max_len=16384 -print_final_stats=1 "${extra[@]}" \
      -artifact_prefix="$build_abs/artifacts/$h/" ${FUZZ_FLAGS:-} "$build_abs/corpus/$h" "${seeds[@]}"); then
    echo "fuzz: $h FAILED; inputs in $artifacts" >&2
    status=1
  fi
  if [ "${FUZZ_KEEP_GOING:-0}" = "1" ] && [ -n "$(ls -A "$artifacts")" ]; then
    echo "fuzz: $h collected crashes or hangs in $artifacts" >&2
    status=1
  fi
done
exit $status
