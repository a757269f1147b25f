#!/usr/bin/env bash
# Several processes on one cache directory (issue 18, Done-when 5).
#
#   cache_faults.sh ARRVM [ROUNDS] [TRACE...]
#
# ARRVM is the arrvm program; TRACEs default to a few recorded benchmark
# traces (tests/fuzz/corpus/trace), whose syncs carry the results NumPy
# checked. Every replay runs on the cpu backend (kernel cache on disk) with
# greedy (merge cache on disk) and compares each sync with the trace.
#
#  1. 8 processes replay the traces at once into one cold ARRVM_CACHE_DIR:
#     every one must verify.
#  2. ROUNDS times (default 3): 8 processes replay into another cold
#     directory, and some of them are killed with SIGKILL at a random moment
#     (0-3 s) while they fill it.
#  3. 8 processes replay again from the directory the killed ones left: every
#     one must verify, and a last sequential replay must run with every
#     kernel from the disk cache.
#
# Prints the figures (runs, kills, outcomes, cache entries, leftovers) and
# exits non-zero if any replay that was not killed failed.
set -uo pipefail
arrvm=${1:?usage: cache_faults.sh ARRVM [ROUNDS] [TRACE...]}
rounds=${2:-3}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
  for t in leibnitz_pi monte_carlo_pi rosenbrock heat_equation gauss; do
    traces+=("$here/../fuzz/corpus/trace/$t.jsonl")
  done
fi
for v in $(env | sed -n 's/^\(ARRVM_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
work=$(mktemp -d "${TMPDIR:-/tmp}/arrvm-cache-faults.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work/tmp   # the processes' compiler work directories
mkdir -p "$TMPDIR"
procs=8
failed=0
runs=0 verified=0 killed=0 died_other=0 finished_before_kill=0

# One replay of every trace, in an order that depends on the process number.
replay_all() {  # cache_dir index logfile
  local cache=$1 i=$2 log=$3 n=${#traces[@]} k t
  for ((k = 0; k < n; ++k)); do
    t=${traces[$(( (k + i) % n ))]}
    ARRVM_CACHE_DIR=$cache "$arrvm" replay "$t" --backend cpu --fuser greedy >>"$log" 2>&1 || return $?
  done
}

# Starts $procs replays into $1 at once and waits; every one must verify.
all_verify() {  # cache_dir label
  local cache=$1 label=$2 pids=() i st ok=0
  for ((i = 0; i < procs; ++i)); do
    replay_all "$cache" "$i" "$work/$label.$i.log" &
    pids+=($!)
  done
  for ((i = 0; i < procs; ++i)); do
    wait "${pids[$i]}"
    st=$?
    runs=$((runs + 1))
    if [ $st -eq 0 ]; then
      ok=$((ok + 1))
      verified=$((verified + 1))
    else
      echo "FAILED: $label process $i exited $st:"
      tail -5 "$work/$label.$i.log"
      failed=1
    fi
  done
  echo "$label: $ok of $procs processes verified every trace"
}

echo "cache_faults: ${#traces[@]} traces, $procs processes, $rounds kill rounds"
all_verify "$work/cold" cold

# Kill rounds: each process is a subshell running the replays one after the
# other; SIGKILL goes to the running arrvm (the subshell stops with it).
cache=$work/killed
for ((r = 0; r < rounds; ++r)); do
  pids=()
  for ((i = 0; i < procs; ++i)); do
    replay_all "$cache" "$i" "$work/round$r.$i.log" &
    pids+=($!)
  done
  sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", rand() * 3 }')"
  victims=0
  for ((i = 0; i < procs; ++i)); do
    [ $((RANDOM % 4)) -eq 0 ] && continue  # a quarter run on to the end
    # The arrvm processes of subshell i (its children).
    for c in $(pgrep -P "${pids[$i]}" -x arrvm); do
      kill -KILL "$c" 2>/dev/null && victims=$((victims + 1))
    done
    kill -KILL "${pids[$i]}" 2>/dev/null
  done
  for ((i = 0; i < procs; ++i)); do
    wait "${pids[$i]}"
    st=$?
    runs=$((runs + 1))
    case $st in
      0) finished_before_kill=$((finished_before_kill + 1)) ;;
      137) ;;  # killed
      *)  # failed on its own: a fault
        died_other=$((died_other + 1))
        echo "FAILED: round $r process $i exited $st:"
        tail -5 "$work/round$r.$i.log"
        failed=1
        ;;
    esac
  done
  killed=$((killed + victims))
done
# Compilers of killed processes run on as orphans and remove their work
# directories when done: give them a moment.
for _ in $(seq 100); do
  [ -z "$(find "$TMPDIR" -maxdepth 1 -name 'arrvm-cc-*' -print -quit)" ] && break
  sleep 0.2
done
entries=$(find "$cache" -name '*.kernel' | wc -l)
merges=$(find "$cache" -name '*.merge' | wc -l)
tmp_left=$(find "$cache" -name '*.tmp.*' | wc -l)
cc_left=$(find "$TMPDIR" -maxdepth 1 -name 'arrvm-cc-*' | wc -l)
# A kill in the instant a disk hit is being loaded (its own directory lives
# for that dlopen) or between a compile and its cleanup may leave one: the
# next process removes those of dead processes once 10 minutes old. Age
# them, and check that the next run (below) removes them.
[ "$cc_left" -gt 0 ] && find "$TMPDIR" -maxdepth 1 -name 'arrvm-cc-*' -exec touch -d '1 hour ago' {} +
echo "kill rounds: $rounds rounds, $killed arrvm processes killed, $finished_before_kill replayers completed (not killed, all verified), $died_other failed on their own"
echo "cache after the kills: $entries kernels, $merges partitions, $tmp_left temporary files of killed writers, $cc_left work directories of killed processes (removed by the next run: $([ "$cc_left" -gt 0 ] && echo checked below || echo none to remove))"

all_verify "$cache" after-kills
cc_after=$(find "$TMPDIR" -maxdepth 1 -name 'arrvm-cc-*' | wc -l)
if [ "$cc_after" -ne 0 ]; then
  echo "FAILED: compiler work directories still in TMPDIR after the next run:"
  find "$TMPDIR" -mindepth 1
  failed=1
fi
# One more, alone, with --json: everything the killed processes stored must load.
for t in "${traces[@]}"; do
  out=$(ARRVM_CACHE_DIR=$cache "$arrvm" replay "$t" --backend cpu --fuser greedy --json 2>>"$work/final.err")
  st=$?
  runs=$((runs + 1))
  misses=$(printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["cache"]["kernel_misses"])' 2>/dev/null)
  if [ $st -ne 0 ] || [ "$misses" != "0" ]; then
    echo "FAILED: final replay of $(basename "$t"): status $st, kernel misses ${misses:-?}"
    failed=1
  else
    verified=$((verified + 1))
  fi
done
echo "figures: runs=$runs verified=$verified killed=$killed failed_unkilled=$died_other work_dirs_left=$cc_left tmp_files_left=$tmp_left result=$([ $failed -eq 0 ] && echo PASS || echo FAIL)"
exit $failed
