#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-g/record.sh [POINT...]
# The workload: 1 rank, forked workers that burn 80 ms each at start, batch 16, 1.5 ms storage, 20 ms step,
# 3 epochs x 60 batches. Its points: w0 (probed with fork) w1 w2 w3.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-g \
  "--ranks 1 --start fork --init-ms 80 --batch 16 --storage-ms 1.5 --step-ms 20 --epochs 3 --batches 60" "${@:-w0 w1 w2 w3}"
