#!/usr/bin/env bash
# Weak scaling of the mpi backend (backends/mpi/README.md): 1, 2 and 4 ranks,
# the work and the arrays growing with the ranks:
#   heat_equation  N x N grid, N = N0*sqrt(P)        (cells ∝ P)
#   black_scholes  n = n0*P options                   (elements ∝ P)
#   nbody          n = m0*sqrt(P) bodies              (the n x n pair matrices, and the work, ∝ P)
# Each point is the best of REPEAT runs (mpi_bench weak: the kernels compiled
# in a warm-up run first; wall time and CPU time of the slowest rank).
#   weak_scaling.sh BUILD_DIR [REPEAT]
set -euo pipefail
build=$(cd "${1:?usage: weak_scaling.sh BUILD_DIR [REPEAT]}" && pwd)
repeat=${2:-3}
mpirun=(mpirun --oversubscribe --allow-run-as-root --mca btl self,vader)
export OMP_NUM_THREADS=1 ARRVM_BACKEND=mpi
export ARRVM_CACHE_DIR=${ARRVM_CACHE_DIR:-$build/mpi-cache}
size() {  # NAME P -> N ITERATIONS
  case $1 in
    heat_equation) /usr/bin/python3 -c "import math; print(round(1000*math.sqrt($2)), 10)" ;;
    black_scholes) echo $((1000000 * $2)) 5 ;;
    nbody) /usr/bin/python3 -c "import math; print(round(700*math.sqrt($2)), 3)" ;;
  esac
}
for name in heat_equation black_scholes nbody; do
  for np in 1 2 4; do
    read -r n it <<< "$(size $name $np)"
    best=""
    for _ in $(seq "$repeat"); do
      line=$("${mpirun[@]}" -x ARRVM_BACKEND -x OMP_NUM_THREADS -np "$np" "$build/mpi_bench" weak "$name" "$n" "$it")
      t=$(sed -E 's/.* time=([0-9.]+) s.*/\1/' <<< "$line")
      if [ -z "$best" ] || awk -v a="$t" -v b="$(sed -E 's/.* time=([0-9.]+) s.*/\1/' <<< "$best")" 'BEGIN{exit !(a<b)}'; then
        best=$line
      fi
    done
    echo "$best"
  done
done
