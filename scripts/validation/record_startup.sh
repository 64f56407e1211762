#!/usr/bin/env bash
# record_startup.sh - records a held-out set of scripts/workloads/pytorch_startup.py runs into a dataset folder, waiting for a quiet machine before each run.
# Usage, from the repository root after scripts/setup.sh:
#   scripts/validation/record_startup.sh DIR "COMMON ARGS" [POINT...]
# DIR: the dataset folder (datasets/pytorch-startup-b); COMMON ARGS: the workload's arguments for every run
# (--init-ms, --batch, --storage-ms, --step-ms, --epochs, --batches). POINTs (default: all) are w0 w1 w2 w3 w2-pers
# w2-long w2-slow1 (and w2-fork, asked by name), each recorded twice (runs a and b; REPS="c d" for more). The raw record files go to
# $RAW (default /tmp/<folder name>-raw), the imported traces to DIR/<point>-<rep>.h5, one line per run to
# DIR/record.log. Before each run the 1-minute load average must be at most $LOAD_MAX (default 1.0; else sleep
# $WAIT_STEP s, default 20, and check again, up to 600 s).
set -u
. "$(dirname "$0")/lib_record.sh"
record_begin "$0" "$@"
shift 2
log=$out/record.log
py=/usr/bin/python3
args_of() {
  case $1 in
    w2-fork) echo "--workers 2 --start fork" ;;
    w2-long) echo "--workers 2 --epochs 2 --batches 300" ;;
    w2-slow1) echo "--workers 2 --slow-rank 1 --slow-factor 3" ;;
    *) point_args "$1" || { echo "record_startup.sh: unknown point $1" >&2; return 1; } ;;
  esac
}
points=${*:-w1 w2 w3 w2-pers w0 w2-slow1 w2-long}
for p in $points; do
  a=$(args_of "$p") || exit 2
  for rep in ${REPS:-a b}; do
    wait_quiet
    busy=$(awk "BEGIN{print ($load > ${LOAD_MAX:-1.0}) ? \"UNDER LOAD\" : \"quiet\"}")
    rm -rf "$raw/$p-$rep"
    t0=$(date -u +%FT%TZ)
    msg=$($py scripts/workloads/pytorch_startup.py $common $a --out "$raw/$p-$rep/run" 2>&1 | grep '^pytorch_startup:')
    build/stallsim import pytorch "$raw/$p-$rep/run" -o "$out/$p-$rep.h5" >/dev/null || { echo "import $p-$rep failed" >&2; exit 1; }
    end_load=$(cut -d' ' -f1 /proc/loadavg)
    echo "$t0 $p-$rep load-before=$load ($busy, waited ${waited}s) load-after=$end_load args: $common $a | $msg" | tee -a "$log"
  done
done
