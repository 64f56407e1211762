#!/usr/bin/env bash
# record_eval.sh - records a set of scripts/workloads/pytorch_eval.py runs (a training loader and an evaluation
# loader, each with a Recorder of its own prefix) into a dataset folder, waiting for a quiet machine before each run.
# Usage, from the repository root after scripts/setup.sh:
#   scripts/validation/record_eval.sh DIR "COMMON ARGS" [POINT...]
# POINTs (default: w1 w2 w4 w2-pers w0) are w0 (synchronous, probed) w1 w2 w4 w2-pers w4-pers, any with -slowR (rank R's
# training storage --slow-factor times slower), each recorded twice
# (runs a and b; REPS="c d" for more): DIR/POINT-REP.h5 (the training loader) and DIR/POINT-REP-eval.h5 (the
# evaluation loader), one line per run in DIR/record.log with the job's own wall time. The raw record files go to
# $RAW (default /tmp/<folder name>-raw). Before each run the 1-minute load average must be at most $LOAD_MAX
# (default 1.0; lib_record.sh).
set -u
. "$(dirname "$0")/lib_record.sh"
record_begin "$0" "$@"
shift 2
args_of() { point_args "$1" || { echo "record_eval.sh: unknown point $1 (wN or wN-pers, -slowR)" >&2; return 1; }; }
for p in ${*:-w1 w2 w4 w2-pers w0}; do
  a=$(args_of "$p") || exit 2
  for rep in ${REPS:-a b}; do
    wait_quiet
    rm -rf "$raw/$p-$rep"
    t0=$(date -u +%FT%TZ)
    msg=$(/usr/bin/python3 scripts/workloads/pytorch_eval.py $common $a --out "$raw/$p-$rep/run" 2>&1 | grep '^pytorch_eval:')
    build/stallsim import pytorch "$raw/$p-$rep/run" -o "$out/$p-$rep.h5" >/dev/null &&
      build/stallsim import pytorch "$raw/$p-$rep/run-eval" -o "$out/$p-$rep-eval.h5" >/dev/null ||
      { echo "import $p-$rep failed" >&2; exit 1; }
    echo "$t0 $p-$rep load-before=$load (waited ${waited}s) load-after=$(cut -d' ' -f1 /proc/loadavg) args: $common $a | $msg" | tee -a "$out/record.log"
  done
done
