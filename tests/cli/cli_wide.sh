#!/usr/bin/env bash
# cli_wide.sh - a pipeline sweep on more GPUs than an HDF5 attribute can hold per-GPU
# values for (64 KB: about 8,190 doubles): the per-GPU calibration goes to datasets, the
# summary's per-GPU straggler shares to an array field, and the printed calibration stays
# short (GPUs with differing settings are summarised, not listed one by one).
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
"$stallsim" gen -o "$work/w.h5" --gpus 9000 --iterations 40 --seed 3 --slow-gpu 7:3 >/dev/null || fail "gen"
printf '[trace]\npath = w.h5\nwarmup_iterations = 5\n[scenarios]\nmodel = pipeline\n' > "$work/w.ini"
"$stallsim" run --explain --verbose "$work/w.ini" --out "$work/r" > "$work/out.txt" 2>&1 && ok || fail "sweep on 9000 GPUs: $(tail -3 "$work/out.txt")"
[ "$(wc -c < "$work/out.txt")" -lt 20000 ] && ok || fail "the printed output is $(wc -c < "$work/out.txt") bytes"
$py - "$work/r/results.h5" <<'PY' && ok || fail "per-GPU arrays in results.h5"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
for k in ("workers", "prefetch", "worker_gap", "delivery"):
    assert f["calibration"][k].shape == (9000,), k
assert f["summary"]["straggler_share"].shape[1:] == (9000,)
PY
# the trace's loader_workers attribute holds 4 bytes per GPU: past about 16,000 GPUs it needs
# the file format of HDF5 1.8, which the writer asks for from 15,000 on; h5py reads it back
"$stallsim" gen -o "$work/x.h5" --gpus 16400 --iterations 3 > "$work/gx.txt" 2>&1 && ok || fail "gen on 16400 GPUs: $(cat "$work/gx.txt")"
$py - "$work/x.h5" <<'PY' && ok || fail "loader_workers of 16400 GPUs"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["loader_workers"].shape == (16400,), f.attrs["loader_workers"].shape
    assert f.attrs["gpus"] == 16400
PY
finish
