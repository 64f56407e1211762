#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-i/record.sh [POINT...]
# The workload: 2 ranks, spawned workers that burn 100 ms each at start, batch 10, 3 ms storage, 20 ms step,
# 3 epochs x 70 batches. Its points: w0 (probed with spawn) w1 w2 w3 w2-pers.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-i \
  "--ranks 2 --init-ms 100 --batch 10 --storage-ms 3 --step-ms 20 --epochs 3 --batches 70" "${@:-w1 w2 w3 w2-pers w0}"
