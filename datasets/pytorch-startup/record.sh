#!/usr/bin/env bash
# record.sh - records the held-out runs of datasets/pytorch-startup: scripts/validation/record_startup.sh with the workload's defaults.
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup/record.sh [POINT...]
# The workload's defaults: spawned workers that burn 300 ms each at start, batch 8, 4 ms storage, 15 ms step, 3 epochs x 100
# batches. Points by default: w1 w2 w3 w2-pers w0 w2-fork w2-slow1 w2-long. This set waited for a load of at most 1.5,
# checking every 60 s.
[ $# -gt 0 ] || set -- w1 w2 w3 w2-pers w0 w2-fork w2-slow1 w2-long
LOAD_MAX=${LOAD_MAX:-1.5} WAIT_STEP=${WAIT_STEP:-60} \
  exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup "" "$@"
