#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-f/record.sh [POINT...]
# The workload: 2 ranks, spawned workers that burn 150 ms each at start, batch 12, 2 ms storage, 25 ms step,
# 2 epochs x 100 batches. Its points: w0 (probed with spawn) w1 w2 w3.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-f \
  "--ranks 2 --init-ms 150 --batch 12 --storage-ms 2 --step-ms 25 --epochs 2 --batches 100" "${@:-w0 w1 w2 w3}"
