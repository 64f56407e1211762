#!/usr/bin/env bash
# cli_trace_changed.sh - a trace written to while `run` reads it (here: the run stopped with
# SIGSTOP mid-sweep, the file touched, the run resumed) gives no results: status 1, a message
# naming the trace, and earlier results in the folder as they were. Skipped, saying so, when
# the run ends before it can be stopped (a machine fast enough to sweep 387 scenarios of 128 GPUs x 20,000 iterations in 0.2 s).
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
# a sweep of a few seconds: 387 pipeline scenarios (every GPU of 128 healed, 3 storage speeds)
"$stallsim" gen -o "$work/t.h5" --gpus 128 --iterations 20000 --seed 3 > /dev/null || fail "gen"
printf '[trace]\npath = t.h5\n[scenarios]\nmodel = pipeline\nheal = none, each\nfetch_scale = 1, 0.5, 0.25\n' > "$work/s.ini"
"$stallsim" run "$work/s.ini" --set scenarios.heal=none --out "$work/r" --quiet || fail "a first run"
cp "$work/r/summary.csv" "$work/before.csv"
stopped=0
for try in 1 2 3; do
  "$stallsim" run "$work/s.ini" --out "$work/r" --quiet > "$work/out" 2> "$work/err" &
  pid=$!
  sleep 0.2
  if kill -STOP "$pid" 2>/dev/null; then
    touch "$work/t.h5"
    kill -CONT "$pid"
    wait "$pid"
    rc=$?
    stopped=1
    break
  fi
  wait "$pid"
done
if [ $stopped -eq 0 ]; then
  echo "skipped: every run ended within 0.2 s, before it could be stopped"
  exit 77
fi
[ $rc -eq 1 ] && grep -q "t.h5: the trace changed while it was read (it was written to): the results" "$work/err" && ok ||
  fail "a trace touched mid-run: status $rc: $(cat "$work/err")"
cmp -s "$work/before.csv" "$work/r/summary.csv" && ok || fail "earlier results changed"
# an unchanged trace: a sweep writes its results
"$stallsim" run "$work/s.ini" --set scenarios.heal=none --out "$work/r2" --quiet && ok || fail "a run of an unchanged trace"
finish
