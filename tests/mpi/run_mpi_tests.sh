#!/usr/bin/env bash
# The mpi backend against ref (backends/mpi/README.md):
#   run_mpi_tests.sh BUILD_DIR share   -np 2 and -np 3 (CTest mpi_share, run by scripts/test.sh;
#                                      about 2 minutes on 2 cores)
#   run_mpi_tests.sh BUILD_DIR full    -np 1, 2, 3, 4, node cpu and node ref, 300 random programs
#                                      (on demand; about 15 minutes on 2 cores)
# Traces: tests/data/*.trace and the 15 benchmark programs recorded at their
# tiny size (arrvm bench --record, with ref). Each is replayed with
# `mpirun -np N arrvm replay TRACE --backend mpi`, which checks every sync
# against the contents the trace carries, and run by arrvm_mpi_trace_check,
# which runs it on ref and mpi side by side and compares every sync and every
# base left live (so traces whose syncs carry no contents are checked too).
# Random programs (arrvm_mpi_random_test, singleton and greedy partitions),
# the poisoning test (arrvm_mpi_poison_test) and a count of the row programs
# run by rows complete the set.
set -euo pipefail
build=$(cd "${1:?usage: run_mpi_tests.sh BUILD_DIR share|full}" && pwd)
mode=${2:-share}
src=$(cd "$(dirname "$0")/../.." && pwd)
mpirun=(mpirun --oversubscribe --allow-run-as-root --mca btl self,vader)
# Oversubscribed ranks on a small machine: one thread each; the ranks share
# one kernel cache on disk, so each kernel is compiled once.
export OMP_NUM_THREADS=1
# The ASan build: Open MPI keeps what MPI_Init allocates past MPI_Finalize,
# and LeakSanitizer cannot tell its stacks (libraries without frame
# pointers) from ours, so the ranks run without leak detection; ASan's and
# UBSan's other checks stay on. (No effect on other builds.)
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ARRVM_CACHE_DIR=${ARRVM_CACHE_DIR:-$build/mpi-cache}

traces_dir=$build/mpi-traces
if [ ! -f "$traces_dir/heat_equation.trace" ]; then
  "$build/arrvm" bench --size tiny --fusers singleton --backends ref --record "$traces_dir" > "$build/mpi-record.log" 2>&1 || {
    cat "$build/mpi-record.log"; exit 1; }
fi
traces=("$src"/tests/data/*.trace "$traces_dir"/*.trace)

# Per rank count: the node backend of the replays, that of the side-by-side
# check, the random programs on node ref, and those on node cpu.
case $mode in
  share) runs=("2 cpu ref 60 0" "3 ref cpu 60 0") ;;
  full) runs=()
        for np in 1 2 3 4; do runs+=("$np cpu ref 300 30" "$np ref cpu 0 0"); done ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

fail=0
start=$SECONDS
for run in "${runs[@]}"; do
  read -r np replay_node check_node seeds_ref seeds_cpu <<< "$run"
  n_ok=0
  for t in "${traces[@]}"; do
    if out=$(ARRVM_MPI_NODE_BACKEND=$replay_node "${mpirun[@]}" -np "$np" "$build/arrvm" replay "$t" --backend mpi 2>&1); then
      n_ok=$((n_ok + 1))
    else
      echo "FAIL np=$np node=$replay_node replay $(basename "$t")"; echo "$out" | tail -20; fail=1
    fi
  done
  echo "np=$np node=$replay_node: arrvm replay verified $n_ok of ${#traces[@]} traces"
  if out=$(ARRVM_MPI_NODE_BACKEND=$check_node "${mpirun[@]}" -np "$np" "$build/arrvm_mpi_trace_check" "${traces[@]}" 2>&1); then
    echo "np=$np node=$check_node: side by side with ref: $(grep -c '^ok' <<< "$out") of ${#traces[@]} traces equal"
  else
    echo "FAIL np=$np node=$check_node side-by-side check:"; echo "$out" | grep -v '^ok' | tail -20; fail=1
  fi
  # Random programs mostly on node ref: each builds two fresh backends, and
  # the distribution logic, not the node's kernels, is what they test.
  if [ "$seeds_ref" -gt 0 ]; then
    ARRVM_MPI_NODE_BACKEND=ref "${mpirun[@]}" -np "$np" "$build/arrvm_mpi_random_test" 0 "$seeds_ref" || fail=1
  fi
  if [ "$seeds_cpu" -gt 0 ]; then
    ARRVM_CACHE=on ARRVM_MPI_NODE_BACKEND=cpu "${mpirun[@]}" -np "$np" "$build/arrvm_mpi_random_test" 1000 "$seeds_cpu" || fail=1
  fi
  if [ "$seeds_ref" -gt 0 ]; then  # once per rank count
    "${mpirun[@]}" -np "$np" "$build/arrvm_mpi_poison_test" || fail=1
  fi
done
# Row programs and nests run whole, by rows (mpi_backend.cpp run_rows):
# tests/data/row_programs.trace (softmax, normalizations, a standardization,
# an epilogue reading another row's sum; 9x13, 4x1, 1x6) verified above;
# here its row programs must have run as such on 3 ranks, and not at all
# without the row-fusion pass.
count_rows() {
  ARRVM_PROFILE=1 ARRVM_PASSES=$1 "${mpirun[@]}" -np 3 "$build/arrvm" replay "$src/tests/data/row_programs.trace" \
    --backend mpi 2>&1 | sed -n 's/.*row-fusion \([0-9]*\).*/\1/p' | head -1
}
rows_on=$(count_rows default)
rows_off=$(count_rows -row-fusion)
if [ "${rows_on:-0}" -gt 0 ] && [ "${rows_off:-1}" = 0 ]; then
  echo "row programs on 3 ranks: $rows_on run by rows (0 without row-fusion)"
else
  echo "FAIL: row programs on 3 ranks: '$rows_on' run by rows, '$rows_off' without row-fusion"; fail=1
fi
# An error on one rank only (here its compiler fails; in life, memory that one
# rank cannot get) ends the job on every rank with the error: never a hang.
status=0
out=$(timeout 300 "${mpirun[@]}" -np 2 sh -c \
  'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export ARRVM_CC=false ARRVM_CACHE=off; fi; exec "$0" replay "$1" --backend mpi' \
  "$build/arrvm" "$traces_dir/heat_equation.trace" 2>&1) || status=$?
if [ "$status" = 0 ] || [ "$status" = 124 ] || ! grep -q "aborting every rank" <<< "$out"; then
  echo "FAIL: one rank failing alone: exit status $status (124: hung)"; echo "$out" | tail -20; fail=1
else
  echo "one rank failing alone: every rank ended (exit status $status) with the error"
fi
echo "mpi tests ($mode): $([ $fail = 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s"
exit $fail
