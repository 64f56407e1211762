#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-eval/record.sh [POINT...]
# Records scripts/workloads/pytorch_eval.py (2 ranks, an evaluation pass after every epoch with a second loader of
# the same settings) at each point twice (runs a and b): POINT-REP.h5 (the training loader) and POINT-REP-eval.h5
# (the evaluation loader), one line per run in record.log. Points: w0 (synchronous, probed) w1 w2 w4 w2-pers, and
# w4-pers (asked by name).
# Before each run the 1-minute load average must be at most $LOAD_MAX (default 1.0; else wait, up to 600 s).
set -u
cd "$(dirname "$0")/../.."
. scripts/validation/lib_record.sh
out=datasets/pytorch-eval
raw=${RAW:-/tmp/pytorch-eval-raw}
common="--nproc 2 --batch 16 --iterations 80 --eval-iterations 20 --epochs 3 --latency 0.004 --decode 0.0005 --compute 0.020 --eval-compute 0.008"
args_of() {
  case $1 in
    w0) echo "--workers 0" ;;
    w1) echo "--workers 1" ;;
    w2) echo "--workers 2" ;;
    w4) echo "--workers 4" ;;
    w2-pers) echo "--workers 2 --persistent" ;;
    w4-pers) echo "--workers 4 --persistent" ;;
    *) echo "record.sh: unknown point $1" >&2; return 1 ;;
  esac
}
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
