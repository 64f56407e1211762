#!/usr/bin/env bash
# record.sh - records the held-out runs of datasets/pytorch-startup-b (scripts/workloads/pytorch_startup.py with its own workload), waiting for a quiet machine before each.
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-b/record.sh [POINT...]
# Each point twice (a, b; REPS="c d" for further runs); raw record files go to $RAW (default /tmp/pytorch-startup-b-raw), the
# imported traces to datasets/pytorch-startup-b/<point>-<rep>.h5, one line per run to record.log.
set -u
cd "$(dirname "$0")/../.."
out=datasets/pytorch-startup-b
raw=${RAW:-/tmp/pytorch-startup-b-raw}
log=$out/record.log
py=/usr/bin/python3
# the workload: spawned workers that burn 150 ms each at start, batch 12, 3 ms storage, 20 ms step, 3 epochs x 80 batches
common="--init-ms 150 --batch 12 --storage-ms 3 --step-ms 20 --epochs 3 --batches 80"
args_of() {
  case $1 in
    w0) echo "--workers 0" ;;
    w1) echo "--workers 1" ;;
    w2) echo "--workers 2" ;;
    w3) echo "--workers 3" ;;
    w2-pers) echo "--workers 2 --persistent" ;;
    w2-long) echo "--workers 2 --epochs 2 --batches 300" ;;
    w2-slow1) echo "--workers 2 --slow-rank 1 --slow-factor 3" ;;
    *) echo "record.sh: unknown point $1" >&2; return 1 ;;
  esac
}
points=${*:-w1 w2 w3 w2-pers w0 w2-slow1 w2-long}
for p in $points; do
  a=$(args_of "$p") || exit 2
  for rep in ${REPS:-a b}; do
    waited=0
    load=$(cut -d' ' -f1 /proc/loadavg)
    while awk "BEGIN{exit !($load > 1.0)}" && [ $waited -lt 600 ]; do
      sleep 20; waited=$((waited + 20)); load=$(cut -d' ' -f1 /proc/loadavg)
    done
    busy=$(awk "BEGIN{print ($load > 1.0) ? \"UNDER LOAD\" : \"quiet\"}")
    rm -rf "$raw/$p-$rep"
    t0=$(date -u +%FT%TZ)
    msg=$($py scripts/workloads/pytorch_startup.py $common $a --out "$raw/$p-$rep/run" 2>&1 | grep '^pytorch_startup:')
    build/stallsim import pytorch "$raw/$p-$rep/run" -o "$out/$p-$rep.h5" >/dev/null || { echo "import $p-$rep failed" >&2; exit 1; }
    end_load=$(cut -d' ' -f1 /proc/loadavg)
    echo "$t0 $p-$rep load-before=$load ($busy, waited ${waited}s) load-after=$end_load args: $common $a | $msg" | tee -a "$log"
  done
done
