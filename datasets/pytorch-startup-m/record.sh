#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-m/record.sh [POINT...]
# The workload: 2 ranks, spawned workers, a dataset that holds an index of 600,000 file names (sent to every
# worker), batch 16, 2 ms storage, 25 ms step, 3 epochs x 60 batches.
# Its points: w0 (probed with spawn, two passes) w1 w2 w3 w2-pers.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-m \
  "--ranks 2 --init-ms 0 --index-files 600000 --batch 16 --storage-ms 2 --step-ms 25 --epochs 3 --batches 60" \
  "${@:-w1 w2 w3 w2-pers w0}"
