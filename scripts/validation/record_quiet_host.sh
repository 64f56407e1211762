#!/usr/bin/env bash
# record_quiet_host.sh - records scripts/workloads/pytorch_bench.py runs on a quiet machine and beside other
# processes into a dataset folder, for [pipeline] quiet_host (scripts/validation/quiet_host_check.py).
# Usage, from the repository root after scripts/setup.sh:
#   scripts/validation/record_quiet_host.sh DIR "COMMON ARGS" POINT...
# POINTs are KIND-wN-R: N workers, run R (a, b, ...); KIND quiet (nothing else running), hog (beside one process
# that spins on a core the whole run), half (one that spins half of every 10 ms) or two (two such). Each run goes
# to DIR/POINT.h5 with one line in DIR/record.log (the host's load before and after, the job's own wall time). Raw
# record files go to $RAW (default /tmp/<folder name>-raw). Before each run the 1-minute load average must be at
# most $LOAD_MAX (default 1.0; lib_record.sh).
set -u
. "$(dirname "$0")/lib_record.sh"
record_begin "$0" "$@"
shift 2
SPIN='while True: pass'
HALF='import time
while True:
    t = time.perf_counter() + 0.005
    while time.perf_counter() < t: pass
    time.sleep(0.005)'
for p in "$@"; do
  kind=${p%%-*} rest=${p#*-}
  w=${rest%-*}
  a=$(point_args "$w") || { echo "record_quiet_host.sh: unknown point $p (quiet|hog|half|two-wN-R)" >&2; exit 2; }
  wait_quiet
  hogs=()
  case $kind in
    quiet) ;;
    hog) /usr/bin/python3 -c "$SPIN" & hogs+=($!) ;;
    half) /usr/bin/python3 -c "$HALF" & hogs+=($!) ;;
    two) /usr/bin/python3 -c "$HALF" & hogs+=($!); /usr/bin/python3 -c "$HALF" & hogs+=($!) ;;
    *) echo "record_quiet_host.sh: unknown point $p" >&2; exit 2 ;;
  esac
  [ ${#hogs[@]} -gt 0 ] && sleep 2
  rm -rf "$raw/$p"
  t0=$(date -u +%FT%TZ)
  msg=$(/usr/bin/python3 scripts/workloads/pytorch_bench.py $common $a --out "$raw/$p/run" 2>&1 | grep '^pytorch_bench:')
  for h in "${hogs[@]}"; do kill "$h"; wait "$h" 2>/dev/null; done
  build/stallsim import pytorch "$raw/$p/run" -o "$out/$p.h5" >/dev/null || { echo "import $p failed" >&2; exit 1; }
  echo "$t0 $p load-before=$load (waited ${waited}s) load-after=$(cut -d' ' -f1 /proc/loadavg) args: $common $a | $msg" |
    tee -a "$out/record.log"
done
