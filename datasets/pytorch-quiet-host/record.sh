#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-quiet-host/record.sh [POINT...]
# Records scripts/workloads/pytorch_bench.py (2 ranks, fixed CPU work in its steps and loaders) at each point:
# quiet-wN-R on a quiet machine, hog-wN-R beside one process that spins on a core the whole run, half-wN-R beside
# one that spins half of every 10 ms. scripts/validation/record_quiet_host.sh does the work.
exec "$(dirname "$0")/../../scripts/validation/record_quiet_host.sh" datasets/pytorch-quiet-host \
  "--nproc 2 --batch 8 --iterations 60 --epochs 2 --latency 0.004 --decode 0.001 --compute 0.015 --compute-cpu --fixed-work" \
  ${@:-quiet-w1-a quiet-w1-b quiet-w2-a quiet-w2-b quiet-w4-a quiet-w4-b hog-w1-a hog-w1-b hog-w2-a half-w1-a half-w2-a}
