#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-eval-4r/record.sh [POINT...]
# Records scripts/workloads/pytorch_eval.py on 4 ranks (an evaluation pass after every epoch on every rank, with a
# second loader of the same settings) at each point twice (runs a and b). Points: w1 w2 w4 w2-pers w4-pers.
# scripts/validation/record_eval.sh does the work.
exec "$(dirname "$0")/../../scripts/validation/record_eval.sh" datasets/pytorch-eval-4r \
  "--nproc 4 --batch 12 --iterations 50 --eval-iterations 10 --epochs 3 --latency 0.003 --decode 0.0006 --compute 0.024 --eval-compute 0.010" \
  "${@:-w1 w2 w4 w2-pers w4-pers}"
