#!/usr/bin/env bash
# The mpi backend against ref (backends/mpi/README.md):
#   run_mpi_tests.sh BUILD_DIR share   -np 2 and -np 3: every trace, 60 random programs (CTest: mpi_share)
#   run_mpi_tests.sh BUILD_DIR full    -np 1, 2, 3, 4: every trace, 300 random programs
# Traces: tests/data/*.trace and the 15 benchmark programs recorded at their
# tiny size (arrvm bench --record, with ref), each replayed with
# `mpirun -np N arrvm replay TRACE --backend mpi` (node backend: cpu, or
# ARRVM_MPI_NODE_BACKEND), which checks every sync.
set -euo pipefail
build=$(cd "${1:?usage: run_mpi_tests.sh BUILD_DIR share|full}" && pwd)
mode=${2:-share}
src=$(cd "$(dirname "$0")/../.." && pwd)
mpirun=(mpirun --oversubscribe --allow-run-as-root --mca btl self,vader)
# Oversubscribed ranks on a small machine: one thread each; the ranks share
# one kernel cache on disk, so each kernel is compiled once.
export OMP_NUM_THREADS=1
export ARRVM_CACHE_DIR=${ARRVM_CACHE_DIR:-$build/mpi-cache}

traces_dir=$build/mpi-traces
if [ ! -f "$traces_dir/heat_equation.trace" ]; then
  "$build/arrvm" bench --size tiny --fusers singleton --backends ref --record "$traces_dir" > "$build/mpi-record.log" 2>&1 || {
    cat "$build/mpi-record.log"; exit 1; }
fi
traces=("$src"/tests/data/*.trace "$traces_dir"/*.trace)

case $mode in
  share) ranks=(2 3); seeds=60 ;;
  full) ranks=(1 2 3 4); seeds=300 ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

fail=0
for np in "${ranks[@]}"; do
  for t in "${traces[@]}"; do
    if out=$("${mpirun[@]}" -np "$np" "$build/arrvm" replay "$t" --backend mpi 2>&1); then
      echo "ok   np=$np $(basename "$t")"
    else
      echo "FAIL np=$np $(basename "$t")"; echo "$out" | tail -20; fail=1
    fi
  done
  # Random programs run on node backend ref: each builds two fresh backends,
  # and the distribution logic, not the node's kernels, is what they test.
  if ARRVM_MPI_NODE_BACKEND=ref "${mpirun[@]}" -np "$np" "$build/arrvm_mpi_random_test" 0 "$seeds"; then :; else fail=1; fi
done
exit $fail
