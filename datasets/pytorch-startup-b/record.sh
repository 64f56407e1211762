#!/usr/bin/env bash
# record.sh - records the held-out runs of datasets/pytorch-startup-b: scripts/validation/record_startup.sh with this set's workload.
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-b/record.sh [POINT...]
# The workload: spawned workers that burn 150 ms each at start, batch 12, 3 ms storage, 20 ms step, 3 epochs x 80 batches.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-b \
  "--init-ms 150 --batch 12 --storage-ms 3 --step-ms 20 --epochs 3 --batches 80" "$@"
