#!/usr/bin/env bash
# Unchanged programs under mpirun with ARRVM_BACKEND=mpi (backends/mpi/README.md):
# the C++ demo (examples/demo.cpp, built as arrvm_demo) and, where the Python
# package is built (BUILD_DIR/python), the NumPy script examples/python/heat.py
# run by `python3 -m arrvm`. Every rank prints; each distinct line printed
# under -np N must be a line of the single-process run on the cpu backend
# (timings stripped), and every rank must print all of them.
#   run_examples.sh BUILD_DIR [NP...]      (default: 1 2 3 4)
set -euo pipefail
build=$(cd "${1:?usage: run_examples.sh BUILD_DIR [NP...]}" && pwd)
shift
if [ $# -gt 0 ]; then nps=("$@"); else nps=(1 2 3 4); fi
src=$(cd "$(dirname "$0")/../.." && pwd)
mpirun=(mpirun --oversubscribe --allow-run-as-root --mca btl self,vader)
export OMP_NUM_THREADS=1
export ARRVM_CACHE_DIR=${ARRVM_CACHE_DIR:-$build/mpi-cache}
python=${PYTHON:-/usr/bin/python3}

programs=("$build/arrvm_demo")
if [ -f "$build/python/arrvm/__init__.py" ]; then
  programs+=("$python -m arrvm $src/examples/python/heat.py 200 60")
else
  echo "no Python package in $build/python: the Python example is skipped"
fi

# Timings and addresses differ from run to run: strip them.
normalize() { sed -E 's/[0-9]+\.[0-9]+ ?(s|ms|us)\b/T/g'; }

fail=0
for prog in "${programs[@]}"; do
  # shellcheck disable=SC2086
  want=$(ARRVM_BACKEND=cpu PYTHONPATH=$build/python $prog 2>&1 | normalize)
  nlines=$(grep -c . <<< "$want" || true)
  for np in "${nps[@]}"; do
    # shellcheck disable=SC2086
    got=$(ARRVM_BACKEND=mpi "${mpirun[@]}" -x ARRVM_BACKEND -x PYTHONPATH=$build/python -np "$np" $prog 2>&1 | normalize) || {
      echo "FAIL np=$np $prog: exit status"; echo "$got" | tail -20; fail=1; continue; }
    extra=$(grep -vxF -f <(echo "$want") <<< "$got" || true)
    short=$(sort <<< "$got" | uniq -c | awk -v np="$np" '$1 != np' | grep -c . || true)
    if [ -n "$extra" ] || [ "$short" != 0 ]; then
      echo "FAIL np=$np $prog"; echo "$extra" | head -10; fail=1
    else
      echo "ok   np=$np $prog: $nlines lines, identical to the single-process cpu run on every rank"
    fi
  done
done
exit $fail
