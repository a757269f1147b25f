#!/usr/bin/env bash
# Unchanged programs under mpirun with ARRVM_BACKEND=mpi (backends/mpi/README.md):
# the C++ demo (examples/demo.cpp, built as arrvm_demo) and, where the Python
# package is built (BUILD_DIR/python), the NumPy script examples/python/heat.py
# run by `python3 -m arrvm`. Every rank prints; what each rank prints under
# -np N must equal the output of the single-process run on the cpu backend
# (timings stripped).
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
  want=$(ARRVM_BACKEND=cpu PYTHONPATH=$build/python $prog | normalize) || {
    echo "FAIL $prog does not run on the cpu backend"; fail=1; continue; }
  nlines=$(grep -c . <<< "$want" || true)
  for np in "${nps[@]}"; do
    # Each rank's output in its own file (lines of different ranks would interleave).
    outdir=$(mktemp -d)
    # shellcheck disable=SC2086
    if ! ARRVM_BACKEND=mpi "${mpirun[@]}" -x ARRVM_BACKEND -x PYTHONPATH=$build/python --output-filename "$outdir" \
         -np "$np" $prog > "$outdir/all" 2>&1; then
      echo "FAIL np=$np $prog: exit status"; tail -20 "$outdir/all"; fail=1; rm -rf "$outdir"; continue
    fi
    bad=0
    for r in $(seq 0 $((np - 1))); do
      f=$(find "$outdir" -path "*rank.$r/stdout" | head -1)
      got=$(cat "$f" 2>/dev/null | normalize)
      if [ "$got" != "$want" ]; then
        echo "FAIL np=$np rank $r $prog:"; diff <(echo "$want") <(echo "$got") | head -10; bad=1
      fi
    done
    rm -rf "$outdir"
    if [ $bad = 0 ]; then
      echo "ok   np=$np $prog: every rank printed the single-process cpu run's $nlines lines"
    else
      fail=1
    fi
  done
done
exit $fail
