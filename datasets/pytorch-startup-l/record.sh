#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-l/record.sh [POINT...]
# The workload: 2 ranks, forked workers (Linux's default) that burn 100 ms each at start, batch 8, 4 ms storage,
# 15 ms step, 3 epochs x 80 batches. Its points: w0 (probed with fork, two passes) w1 w2 w3 w2-pers.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-l \
  "--ranks 2 --start fork --init-ms 100 --batch 8 --storage-ms 4 --step-ms 15 --epochs 3 --batches 80" \
  "${@:-w1 w2 w3 w2-pers w0}"
