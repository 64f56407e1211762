#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-quiet-host/record.sh [POINT...]
# Records scripts/workloads/pytorch_bench.py (2 ranks, fixed CPU work in its steps and loaders) at each point:
# quiet-wN-R on a quiet machine, hog-wN-R beside one process that spins on a core the whole run, half-wN-R beside
# one that spins half of every 10 ms. Each run goes to DIR/POINT.h5 with one line in record.log (the host's load
# before and after, the job's own wall time). Raw record files go to $RAW (default /tmp/pytorch-quiet-host-raw).
# Before each run the 1-minute load average must be at most $LOAD_MAX (default 1.0; lib_record.sh).
set -u
. "$(dirname "$0")/../../scripts/validation/lib_record.sh"
record_begin "$0" datasets/pytorch-quiet-host \
  "--nproc 2 --batch 8 --iterations 60 --epochs 2 --latency 0.004 --decode 0.001 --compute 0.015 --compute-cpu --fixed-work"
shift 2
SPIN='while True: pass'
HALF='import time
while True:
    t = time.perf_counter() + 0.005
    while time.perf_counter() < t: pass
    time.sleep(0.005)'
for p in ${*:-quiet-w1-a quiet-w1-b quiet-w2-a quiet-w2-b quiet-w4-a quiet-w4-b hog-w1-a hog-w1-b hog-w2-a half-w1-a half-w2-a}; do
  kind=${p%%-*} rest=${p#*-}
  w=${rest%-*}
  a=$(point_args "$w") || { echo "record.sh: unknown point $p (quiet|hog|half-wN-R)" >&2; exit 2; }
  wait_quiet
  hog=""
  case $kind in
    quiet) ;;
    hog) /usr/bin/python3 -c "$SPIN" & hog=$! ;;
    half) /usr/bin/python3 -c "$HALF" & hog=$! ;;
    *) echo "record.sh: unknown point $p" >&2; exit 2 ;;
  esac
  [ -n "$hog" ] && sleep 2
  rm -rf "$raw/$p"
  t0=$(date -u +%FT%TZ)
  msg=$(/usr/bin/python3 scripts/workloads/pytorch_bench.py $common $a --out "$raw/$p/run" 2>&1 | grep '^pytorch_bench:')
  [ -n "$hog" ] && { kill "$hog"; wait "$hog" 2>/dev/null; }
  build/stallsim import pytorch "$raw/$p/run" -o "$out/$p.h5" >/dev/null || { echo "import $p failed" >&2; exit 1; }
  echo "$t0 $p load-before=$load (waited ${waited}s) load-after=$(cut -d' ' -f1 /proc/loadavg) args: $common $a | $msg" |
    tee -a "$out/record.log"
done
