#!/usr/bin/env bash
# record.sh - records the held-out runs of datasets/pytorch-startup-c: scripts/validation/record_startup.sh with this set's workload.
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-c/record.sh [POINT...]
# The workload: spawned workers that burn 250 ms each at start, batch 16, 2 ms storage, 25 ms step, 3 epochs x 70 batches.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-c \
  "--init-ms 250 --batch 16 --storage-ms 2 --step-ms 25 --epochs 3 --batches 70" "$@"
