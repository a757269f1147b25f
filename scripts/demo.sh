#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the demo: a small program on
# the C++ Array API, recorded to a trace, then replayed and verified; then the
# benchmark table (arrvm bench) at tiny sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the demo runs: the demo program, the arrvm program, the Python extension.
./scripts/setup.sh arrvm_demo arrvm_cli arrvm_python
build_dir=${ARRVM_BUILD_DIR:-build}
trace="$build_dir/demo.trace"
ARRVM_TRACE="$trace" "$build_dir/arrvm_demo"
echo
echo "== arrvm replay $trace"
"$build_dir/arrvm" replay "$trace"
echo
echo "== ARRVM_EAGER=off arrvm bench --size tiny --repeat 3 --fusers singleton,linear,greedy"
# The benchmark table at tiny sizes (times are too short to mean much; the
# partition costs and the checksums against NumPy are the point here).
# (ARRVM_EAGER=off: at tiny sizes the eager path would run every operation
# at once, and no fuser would have a batch to partition.)
ARRVM_EAGER=off "$build_dir/arrvm" bench --size tiny --repeat 3 --fusers singleton,linear,greedy
echo
echo "== python3 -m arrvm examples/python/heat.py: an unmodified NumPy script, NumPy vs arrvm"
PYTHONPATH="$PWD/$build_dir/python" /usr/bin/python3 bench/python/speedup.py examples/python/heat.py 1000 100
