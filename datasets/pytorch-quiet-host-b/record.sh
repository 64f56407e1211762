#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-quiet-host-b/record.sh [POINT...]
# Records scripts/workloads/pytorch_bench.py (2 ranks; most of the CPU work in the loaders, a fixed count of
# operations) at each point: quiet-wN-R on a quiet machine, hog-wN-R beside one process that spins on a core the
# whole run, two-wN-R beside two that each spin half of every 10 ms. scripts/validation/record_quiet_host.sh does
# the work.
exec "$(dirname "$0")/../../scripts/validation/record_quiet_host.sh" datasets/pytorch-quiet-host-b \
  "--nproc 2 --batch 8 --iterations 60 --epochs 2 --latency 0.002 --decode 0.003 --compute 0.010 --compute-cpu --fixed-work" \
  ${@:-quiet-w1-a quiet-w1-b quiet-w2-a quiet-w2-b quiet-w3-a quiet-w3-b hog-w1-a hog-w2-a two-w1-a two-w2-a}
