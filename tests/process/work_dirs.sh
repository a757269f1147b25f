#!/usr/bin/env bash
# No compiler work directory outlives its compile (issue 18): runs
# exit_helper (tests/process/exit_helper.c) in each way a program can leave
# (_exit without cleanup, SIGKILL after a compile, a failed compile, a clean
# exit) with TMPDIR set to a fresh directory, and checks that the directory
# is empty afterwards. Also checks that a work directory left by a process
# killed during a compile is removed by the next process (once old enough).
#   work_dirs.sh PATH/TO/exit_helper
set -uo pipefail
helper=${1:?usage: work_dirs.sh PATH/TO/exit_helper}
failed=0
for v in $(env | sed -n 's/^\(ARRVM_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

run_mode() {
  local mode=$1 want=$2 dir status
  dir=$(mktemp -d "${TMPDIR:-/tmp}/arrvm-workdirs-test.XXXXXX")
  TMPDIR=$dir "$helper" "$mode" 2>&1
  status=$?
  local left
  left=$(find "$dir" -mindepth 1 | head -20)
  if [ "$status" -ne "$want" ]; then
    echo "FAILED: mode $mode exited with status $status, expected $want"
    failed=1
  elif [ -n "$left" ]; then
    echo "FAILED: mode $mode left in TMPDIR:"
    echo "$left"
    failed=1
  else
    echo "ok: mode $mode (status $status), TMPDIR empty"
  fi
  rm -rf "$dir"
}

run_mode exit 0
run_mode kill 137
run_mode fail 0
run_mode clean 0
run_mode bgclean 0

# Tiered: _exit while the kernel compiles in the background. The compiler
# runs on as an orphan; once it is done, nothing may be left.
cc_dir=$(mktemp -d "${TMPDIR:-/tmp}/arrvm-workdirs-cc.XXXXXX")
printf '#!/bin/sh\nsleep 1\nexec cc "$@"\n' >"$cc_dir/slow-cc"
chmod +x "$cc_dir/slow-cc"
dir=$(mktemp -d "${TMPDIR:-/tmp}/arrvm-workdirs-test.XXXXXX")
TMPDIR=$dir "$helper" bgexit "$cc_dir/slow-cc" 2>&1
status=$?
for _ in $(seq 100); do [ -z "$(ls -A "$dir")" ] && break; sleep 0.2; done
left=$(find "$dir" -mindepth 1 | head -20)
if [ "$status" -ne 0 ] || [ -n "$left" ]; then
  echo "FAILED: mode bgexit: status $status (expected 0), left in TMPDIR: ${left:-nothing}"
  failed=1
else
  echo "ok: mode bgexit (exit during a background compile), TMPDIR empty once the compiler finished"
fi
rm -rf "$dir" "$cc_dir"

# Killed during a compile: the compiler runs on as an orphan; once it is
# done, nothing may be left. The "compiler" SIGKILLs exit_helper (its
# parent's parent), then compiles.
cc_dir=$(mktemp -d "${TMPDIR:-/tmp}/arrvm-workdirs-cc.XXXXXX")
cat >"$cc_dir/killing-cc" <<'CC'
#!/bin/sh
kill -KILL "$(ps -o ppid= -p "$PPID" | tr -d ' ')"
sleep 0.3
exec cc "$@"
CC
chmod +x "$cc_dir/killing-cc"
dir=$(mktemp -d "${TMPDIR:-/tmp}/arrvm-workdirs-test.XXXXXX")
TMPDIR=$dir "$helper" midcompile "$cc_dir/killing-cc" 2>&1
status=$?
for _ in $(seq 50); do [ -z "$(ls -A "$dir")" ] && break; sleep 0.2; done
left=$(find "$dir" -mindepth 1 | head -20)
if [ "$status" -ne 137 ] || [ -n "$left" ]; then
  echo "FAILED: mode midcompile: status $status (expected 137), left in TMPDIR: ${left:-nothing}"
  failed=1
else
  echo "ok: mode midcompile (killed during the compile), TMPDIR empty once the compiler finished"
fi
rm -rf "$dir" "$cc_dir"

# A directory as a process killed mid-compile leaves it: a dead pid, an
# hour old. The next process removes it; a fresh one and one of a live
# process stay.
dir=$(mktemp -d "${TMPDIR:-/tmp}/arrvm-workdirs-test.XXXXXX")
sh -c 'exit 0' &
dead=$!
wait $dead
mkdir -p "$dir/arrvm-cc-$dead-AAAAAA" "$dir/arrvm-cc-$dead-BBBBBB" "$dir/arrvm-cc-$$-CCCCCC"
echo 'int x;' > "$dir/arrvm-cc-$dead-AAAAAA/k0.c"
touch -d '2 hours ago' "$dir/arrvm-cc-$dead-AAAAAA" "$dir/arrvm-cc-$$-CCCCCC"
TMPDIR=$dir "$helper" exit >/dev/null
left=$(cd "$dir" && ls | sort | tr '\n' ' ')
want=$(printf '%s\n' "arrvm-cc-$dead-BBBBBB" "arrvm-cc-$$-CCCCCC" | sort | tr '\n' ' ')
if [ "$left" = "$want" ]; then
  echo "ok: the stale work directory of a killed compile was removed, the others kept"
else
  echo "FAILED: after a run TMPDIR holds: $left(expected $want)"
  failed=1
fi
rm -rf "$dir"
exit $failed
