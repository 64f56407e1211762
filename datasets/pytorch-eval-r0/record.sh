#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-eval-r0/record.sh [POINT...]
# Records scripts/workloads/pytorch_eval.py with --eval-rank0 (2 ranks; after every epoch rank 0 alone evaluates,
# its evaluation loader recorded with world_size=1, while rank 1 waits in the next epoch's first all-reduce) at each
# point twice (runs a and b). Points: w0 w1 w2 w4 w2-pers w4-pers. scripts/validation/record_eval.sh does the work.
exec "$(dirname "$0")/../../scripts/validation/record_eval.sh" datasets/pytorch-eval-r0 \
  "--nproc 2 --batch 16 --iterations 70 --eval-iterations 12 --epochs 3 --latency 0.005 --decode 0.0004 --compute 0.018 --eval-compute 0.006 --eval-rank0" \
  "${@:-w1 w2 w4 w2-pers w4-pers w0}"
