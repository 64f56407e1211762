#!/usr/bin/env bash
# record.sh - records the held-out runs of datasets/pytorch-startup-e: scripts/validation/record_startup.sh with this set's workload.
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-e/record.sh [POINT...]
# The workload: one rank, spawned workers that burn 400 ms each at start, batch 8, 5 ms storage, 30 ms step,
# 4 short epochs x 50 batches. Its points: w1 w2 w3 w2-pers w0.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-e \
  "--ranks 1 --init-ms 400 --batch 8 --storage-ms 5 --step-ms 30 --epochs 4 --batches 50" "${@:-w1 w2 w3 w2-pers w0}"
