#!/usr/bin/env bash
# cli_signals.sh - an interrupted command leaves no temporary behind: gen and run are
# stopped while their temporary exists, sent SIGINT or SIGTERM, and must end by that
# signal (status 128 + signal) with no .tmp. file left; the temporaries of processes that
# no longer run (SIGKILL) are removed by the next command writing into that folder, and
# nothing else is.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"

# the interrupts that could not be made while a temporary existed (a few, on a fast machine;
# all of them: has_tmp no longer sees our temporaries' names, and the test checks nothing)
unchecked=0
# has_tmp DIR: a temporary of ours is in DIR
has_tmp() { ls -A "$1" 2>/dev/null | grep -q '\.tmp\.[A-Za-z0-9_.-]*-[0-9]*$'; }

# interrupt SIG DIR CMD...: starts CMD (with SIG at its default action: a background job of
# a script ignores SIGINT), stops it as soon as a temporary shows in DIR, sends SIG, and
# lets it go on (SIGKILL: ends it). Sets $status to its exit status and $caught to 1 when it was caught
# with the temporary (0: it finished first).
interrupt() {
  local sig=$1 dir=$2
  shift 2
  if [ "$sig" = KILL ]; then "$@" >/dev/null 2>"$work/sig-err" & else env --default-signal="$sig" "$@" >/dev/null 2>"$work/sig-err" & fi
  local pid=$! i
  caught=0
  for i in $(seq 1 4000); do
    if has_tmp "$dir"; then
      kill -STOP "$pid" 2>/dev/null && caught=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.002
  done
  kill -"$sig" "$pid" 2>/dev/null
  kill -CONT "$pid" 2>/dev/null
  wait "$pid"
  status=$?
}

# check_signal NAME SIG NUMBER DIR CMD...
check_signal() {
  local name=$1 sig=$2 num=$3 dir=$4 try
  shift 4
  for try in 1 2 3; do
    rm -rf "$dir"
    mkdir -p "$dir"
    interrupt "$sig" "$dir" "$@"
    [ "$caught" -eq 1 ] && break
  done
  if [ "$caught" -ne 1 ]; then
    echo "note: $name finished before its temporary was seen, 3 times; not checked"
    unchecked=$((unchecked + 1))
    return
  fi
  [ "$status" -eq $((128 + num)) ] && ok || fail "$name: exit status $status, expected $((128 + num)) ($sig): $(head -c 300 "$work/sig-err")"
  # Ctrl-C is told; SIGTERM (mpirun stopping the other ranks of a failed job) is not
  if [ "$sig" = INT ]; then
    grep -q "^stallsim: interrupted (its temporary files removed)$" "$work/sig-err" && ok || fail "$name: no interrupted message: $(head -c 300 "$work/sig-err")"
  else
    grep -q "interrupted" "$work/sig-err" && fail "$name: an interrupted message on SIG$sig: $(head -c 300 "$work/sig-err")" || ok
  fi
  if has_tmp "$dir"; then fail "$name: temporary left: $(ls -A "$dir")"; else ok; fi
}

"$stallsim" gen -o "$work/big.h5" --gpus 16 --iterations 100000 --seed 4 >/dev/null || fail "gen"
check_signal gen_sigint INT 2 "$work/g1" "$stallsim" gen -o "$work/g1/t.h5" --gpus 16 --iterations 100000
check_signal gen_sigterm TERM 15 "$work/g2" "$stallsim" gen -o "$work/g2/t.h5" --gpus 16 --iterations 100000
printf '[trace]\npath = big.h5\n[scenarios]\nmodel = pipeline\nworkers = 2, 4, 8\n[output]\nper_iteration = true\n' > "$work/big.ini"
check_signal run_sigint INT 2 "$work/r1" "$stallsim" run --explain --verbose "$work/big.ini" --out "$work/r1" --quiet
check_signal run_sigterm TERM 15 "$work/r2" "$stallsim" run --explain --verbose "$work/big.ini" --out "$work/r2" --quiet
# an output folder the interrupted run made (two levels here) is gone with it
for try in 1 2 3; do
  rm -rf "$work/r3"
  interrupt INT "$work/r3/new" "$stallsim" run --explain --verbose "$work/big.ini" --out "$work/r3/new" --quiet
  [ "$caught" -eq 1 ] && break
done
if [ "$caught" -eq 1 ]; then
  [ "$status" -eq 130 ] && [ ! -e "$work/r3" ] && ok || fail "run_sigint into a new folder: status $status, left: $(ls -R "$work/r3" 2>&1)"
else
  echo "note: run_sigint into a new folder finished before its temporary was seen, 3 times; not checked"
  unchecked=$((unchecked + 1))
fi
# under mpirun: the launcher's SIGTERM reaches the ranks, which remove the temporary
if [ "$have_mpi" = 1 ] && command -v pgrep >/dev/null; then
  for try in 1 2 3; do
    rm -rf "$work/m"
    mkdir -p "$work/m"
    mpi_cmd 2
    "${mpi_cmd_words[@]}" "$stallsim" run --explain --verbose "$work/big.ini" --out "$work/m" --quiet >/dev/null 2>&1 &
    mp=$!
    caught=0
    for i in $(seq 1 4000); do
      if has_tmp "$work/m"; then
        ranks=$(pgrep -P "$mp")
        [ -n "$ranks" ] && kill -STOP $ranks 2>/dev/null && caught=1
        break
      fi
      kill -0 "$mp" 2>/dev/null || break
      sleep 0.002
    done
    kill -TERM "$mp" 2>/dev/null
    sleep 0.3
    [ -n "${ranks:-}" ] && kill -CONT $ranks 2>/dev/null
    wait "$mp"
    status=$?
    [ "$caught" -eq 1 ] && break
  done
  if [ "$caught" -eq 1 ]; then
    [ "$status" -ne 0 ] && ok || fail "mpirun: SIGTERM, yet status 0"
    sleep 0.5
    if has_tmp "$work/m"; then fail "mpirun: temporary left: $(ls -A "$work/m")"; else ok; fi
  else
    echo "note: the MPI run finished before its temporary was seen, 3 times; not checked"
    unchecked=$((unchecked + 1))
  fi
fi

# what an interrupted run had printed stays in its log: stdout into a file is written line by
# line (fully buffered, the calibration lines were lost with the process). The lines must
# be in the file while the run still runs; then SIGINT.
# Not seen while it ran: the regression. Seen, but the run ended between the poll and the stop
# (status 0; the sweep after the calibration takes a tenth of a second or more, so rarely):
# tried again, up to 3 times, then not checked.
for try in 1 2 3; do
  seen=0
  rm -rf "$work/lg"
  env --default-signal=INT "$stallsim" run --explain --verbose "$work/big.ini" --set scenarios.workers=1,2,3,4,6,8 --out "$work/lg" \
    > "$work/lg.out" 2>/dev/null &
  pid=$!
  for i in $(seq 1 4000); do
    grep -q '^calibration: ' "$work/lg.out" 2>/dev/null && { kill -STOP "$pid" 2>/dev/null && seen=1; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.002
  done
  kill -INT "$pid" 2>/dev/null
  kill -CONT "$pid" 2>/dev/null
  wait "$pid"
  status=$?
  [ "$seen" -eq 1 ] && [ "$status" -eq 0 ] || break
done
if [ "$seen" -eq 1 ] && [ "$status" -eq 0 ]; then
  echo "note: the run's log: the run ended before its stop, 3 times; not checked"
  unchecked=$((unchecked + 1))
else
  [ "$seen" -eq 1 ] && [ "$status" -eq 130 ] && grep -q '^calibration: ' "$work/lg.out" && ok ||
    fail "run's log into a file: calibration line seen while it ran: $seen, status $status, $(grep -c '' "$work/lg.out") lines"
fi


# a signal that was ignored when the command started stays ignored (nohup, background jobs)
# and does not end it
(trap '' TERM; "$stallsim" gen -o "$work/ign.h5" --gpus 16 --iterations 100000 >/dev/null 2>&1) &
pid=$!
sleep 0.05
kill -TERM "$pid" 2>/dev/null
wait "$pid" && [ -s "$work/ign.h5" ] && ok || fail "an ignored SIGTERM ended gen"

# ---------- stale temporaries ----------
sh -c 'exit 0' &
dead=$!
wait "$dead"
if kill -0 "$dead" 2>/dev/null; then dead=999999999; fi
out=$work/stale
mkdir -p "$out"
printf '[trace]\npath = big.h5\n' > "$work/small.ini"
"$stallsim" gen -o "$work/small.h5" --gpus 2 --iterations 40 >/dev/null
printf '[trace]\npath = small.h5\n' > "$work/small.ini"
for f in ".results.h5.tmp.$dead" ".summary.csv.tmp.$dead" ".results.h5.tmp.$dead.old" ".results.h5.tmp.$$" \
  ".other.h5.tmp.$dead" ".results.h5.tmp.${dead}x" "results.h5.tmp.$dead" ".results.h5.old.$dead"; do
  echo x > "$out/$f"
  touch -d '1 hour ago' "$out/$f"
done
echo x > "$out/.summary.csv.tmp.$((dead + 1))" # a dead process, but written a moment ago
kill -0 $((dead + 1)) 2>/dev/null && rm -f "$out/.summary.csv.tmp.$((dead + 1))"
"$stallsim" run --explain --verbose "$work/small.ini" --out "$out" --quiet 2>"$work/stale-err" || fail "run with stale temporaries: $(cat "$work/stale-err")"
for f in ".results.h5.tmp.$dead" ".summary.csv.tmp.$dead" ".results.h5.tmp.$dead.old"; do
  [ -e "$out/$f" ] && fail "stale $f not removed" || ok
  grep -qF "removed $out/$f" "$work/stale-err" && ok || fail "removal of $f not reported: $(cat "$work/stale-err")"
done
for f in ".results.h5.tmp.$$" ".other.h5.tmp.$dead" ".results.h5.tmp.${dead}x" "results.h5.tmp.$dead" \
  ".results.h5.old.$dead"; do
  [ -e "$out/$f" ] && ok || fail "$f removed: it is not a stale temporary of ours"
done
if [ -e "$out/.summary.csv.tmp.$((dead + 1))" ]; then
  ok
  grep -qF "$out/.summary.csv.tmp.$((dead + 1)): a temporary file of process" "$work/stale-err" && ok ||
    fail "a recent temporary of a process not running here is not reported: $(cat "$work/stale-err")"
fi
# names with their host: one of this machine whose process is gone is removed
# at once, however recent; one of another machine is kept while recent (its process cannot
# be asked), with a warning naming the host, and removed once old
host=$(uname -n | cut -d. -f1 | cut -c1-64 | tr -c 'A-Za-z0-9\n-' '-')
[ -n "$host" ] || host=host
hostbase=$host
ns=$(readlink /proc/self/ns/pid 2>/dev/null | tr -dc 0-9)
[ -n "$ns" ] && host=${host}_$ns # (and the process-id namespace: containers that share a host name)
out2=$work/stale2
mkdir -p "$out2"
for f in ".results.h5.tmp.$host-$dead" ".summary.csv.tmp.$host-$dead" ".results.h5.tmp.$host-$dead.old" \
  ".summary.csv.tmp.zz-other-node-$dead" ".results.h5.tmp.zz-other-node-$((dead + 2))" ".results.h5.tmp.$host-$$" \
  ".summary.csv.tmp.${hostbase}_1-$dead"; do
  echo x > "$out2/$f"
done
touch -d '1 hour ago' "$out2/.results.h5.tmp.zz-other-node-$((dead + 2))"
"$stallsim" run --explain --verbose "$work/small.ini" --out "$out2" --quiet 2>"$work/stale2-err" || fail "run with host-named temporaries: $(cat "$work/stale2-err")"
for f in ".results.h5.tmp.$host-$dead" ".summary.csv.tmp.$host-$dead" ".results.h5.tmp.$host-$dead.old" \
  ".results.h5.tmp.zz-other-node-$((dead + 2))"; do
  [ -e "$out2/$f" ] && fail "stale $f not removed: $(cat "$work/stale2-err")" || ok
done
[ -e "$out2/.results.h5.tmp.$host-$$" ] && ok || fail "the temporary of a running process ($$) was removed"
# this host's name in another process-id namespace (a container sharing the host name): not ours to ask
[ -e "$out2/.summary.csv.tmp.${hostbase}_1-$dead" ] && ok || fail "another namespace's recent temporary was removed"
if [ -e "$out2/.summary.csv.tmp.zz-other-node-$dead" ]; then
  ok
  grep -qF "$out2/.summary.csv.tmp.zz-other-node-$dead: a temporary file of process $dead on host zz-other-node" \
    "$work/stale2-err" && ok || fail "a recent temporary of another host is not named: $(cat "$work/stale2-err")"
else
  fail "a recent temporary of another host was removed"
fi
# the run's own temporaries carry this host's name: a SIGKILLed run's are gone at the next run
for try in 1 2 3; do
  rm -rf "$work/kout"
  mkdir -p "$work/kout"
  interrupt KILL "$work/kout" "$stallsim" run --explain --verbose "$work/big.ini" --out "$work/kout" --quiet
  [ "$caught" -eq 1 ] && break
done
if [ "$caught" -eq 1 ]; then
  left=$(ls -A "$work/kout" | grep '\.tmp\.' || true)
  echo "$left" | grep -q "^\.results\.h5\.tmp\.$host-[0-9]*$" && ok ||
    fail "a SIGKILLed run's temporary is not named .results.h5.tmp.$host-PID: $(ls -A "$work/kout")"
  "$stallsim" run --explain --verbose "$work/small.ini" --out "$work/kout" --quiet >/dev/null 2>"$work/kout-err" || fail "run after SIGKILL"
  ls -A "$work/kout" | grep -q '\.tmp\.' && fail "a SIGKILLed run's temporary outlived the next run: $(ls -A "$work/kout")" || ok
  grep -qF "removed $work/kout/$left" "$work/kout-err" && ok || fail "removal not reported: $(cat "$work/kout-err")"
else
  echo "note: run_sigkill finished before its temporary was seen, 3 times; not checked"
  unchecked=$((unchecked + 1))
fi
# gen sweeps beside its output too
echo x > "$work/g3.h5"
rm -f "$work/g3.h5"
echo x > "$work/.g3.h5.tmp.$dead"
touch -d '1 hour ago' "$work/.g3.h5.tmp.$dead"
"$stallsim" gen -o "$work/g3.h5" --gpus 1 --iterations 20 >/dev/null 2>&1 || fail "gen g3"
[ -e "$work/.g3.h5.tmp.$dead" ] && fail "gen left a stale temporary" || ok
[ "$unchecked" -le 3 ] && ok || fail "$unchecked interrupts finished before their temporary was seen: do our temporaries' names still match has_tmp?"
finish
