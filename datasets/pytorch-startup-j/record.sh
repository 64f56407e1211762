#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-j/record.sh [POINT...]
# The workload: 2 ranks, spawned workers, a dataset that holds an index of 1,281,167 file names (sent to every
# worker), batch 8, 4 ms storage, 15 ms step, 3 epochs x 80 batches. Its points: w0 (probed with spawn) w1 w2 w3 w2-pers.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-j \
  "--ranks 2 --init-ms 0 --index-files 1281167 --batch 8 --storage-ms 4 --step-ms 15 --epochs 3 --batches 80" \
  "${@:-w1 w2 w3 w2-pers w0}"
