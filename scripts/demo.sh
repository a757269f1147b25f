#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the demo: a small program on
# the C++ Array API, recorded to a trace, then replayed and verified.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
build_dir=${ARRVM_BUILD_DIR:-build}
trace="$build_dir/demo.trace"
ARRVM_TRACE="$trace" "$build_dir/arrvm_demo"
echo
echo "== arrvm replay $trace"
"$build_dir/arrvm" replay "$trace"
