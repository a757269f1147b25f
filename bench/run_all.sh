#!/usr/bin/env bash
# Runs every benchmark of bench/ once, one after another (never two at a time:
# the numbers are only comparable within one run on a quiet machine), writing
# each table to OUT_DIR (default build/bench-results). Takes about 30-60 min on
# 2 cores. Build first (scripts/setup.sh).
#   bench/run_all.sh [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
b=${ARRVM_BUILD_DIR:-build}
out=${1:-$b/bench-results}
mkdir -p "$out/traces" "$out/tiny"
export ARRVM_CACHE_DIR=${ARRVM_CACHE_DIR:-$out/cache}
fusers=singleton,linear,greedy,unintrusive,optimal,ilp
step() { echo "== $*"; local t0=$SECONDS; "$@"; echo "(rc $?, $((SECONDS - t0)) s)"; }
{
  step "$b/cpu_vs_c" --repeat 3
  step "$b/cpu_vs_c" --launch --repeat 10
  step "$b/arrvm" bench --fusers "$fusers" --backends cpu --record "$out/traces"
  step "$b/arrvm" bench --fusers "$fusers" --backends opencl
  for t in "$out"/traces/*.trace; do
    for f in ${fusers//,/ }; do
      printf '%-28s %-12s ' "$(basename "$t")" "$f"
      "$b/arrvm" replay "$t" --fuser "$f" --json | python3 -c \
        'import json,sys; r=json.load(sys.stdin); print("verified" if r["verified"] else "MISMATCH", r["cost"], r["blocks"])'
    done
  done
  # The merge-cache study (seed 001 Fig. 15-17) on the tiny sizes, where fusion
  # time weighs most against execution.
  step "$b/arrvm" bench --size tiny --fusers greedy --record "$out/tiny"
  for t in "$out"/tiny/*.trace; do step "$b/arrvm" replay "$t" --cache-study; done
  step "$b/merge_cache_bench"
  step "$b/opencl_bench"
  step "$b/fusion_bench"
} 2>&1 | tee "$out/all.txt"
