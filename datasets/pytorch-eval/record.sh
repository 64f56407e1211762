#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-eval/record.sh [POINT...]
# Records scripts/workloads/pytorch_eval.py (2 ranks, an evaluation pass after every epoch with a second loader of
# the same settings) at each point twice (runs a and b): POINT-REP.h5 (the training loader) and POINT-REP-eval.h5
# (the evaluation loader), one line per run in record.log. Points: w0 (synchronous, probed) w1 w2 w4 w2-pers, and
# w4-pers (asked by name). scripts/validation/record_eval.sh does the work.
exec "$(dirname "$0")/../../scripts/validation/record_eval.sh" datasets/pytorch-eval \
  "--nproc 2 --batch 16 --iterations 80 --eval-iterations 20 --epochs 3 --latency 0.004 --decode 0.0005 --compute 0.020 --eval-compute 0.008" \
  "${@:-w1 w2 w4 w2-pers w0}"
