#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-eval-slow/record.sh [POINT...]
# Records scripts/workloads/pytorch_eval.py with --eval-rank0 (2 ranks; after every epoch rank 0 alone evaluates,
# its evaluation loader recorded with world_size=1, while rank 1 waits in the next epoch's first all-reduce) at each
# point twice (runs a and b). Points: w1-slow0 w2-slow0 (rank 0's training storage 3 times slower) and w1 w2 (fixed).
# scripts/validation/record_eval.sh does the work.
exec "$(dirname "$0")/../../scripts/validation/record_eval.sh" datasets/pytorch-eval-slow \
  "--nproc 2 --batch 16 --iterations 60 --eval-iterations 10 --epochs 3 --latency 0.004 --decode 0.0004 --compute 0.016 --eval-compute 0.006 --eval-rank0 --slow-factor 3" \
  "${@:-w1-slow0 w2-slow0 w1 w2}"
