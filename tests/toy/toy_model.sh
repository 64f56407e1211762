#!/usr/bin/env bash
# toy_model.sh - a toy third model added through the model table alone (stallsim_toy, see
# tests/toy/): a sweep with it runs, gives the hand formula's numbers, and is the same at
# 1, 2 and 3 ranks (it is stateful, so each scenario must stay whole on one rank). Its own
# option ([toy] overlap) and note come through its file and table row alone.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
"$stallsim" gen -o "$work/t.h5" --gpus 3 --iterations 400 --epochs 2 --seed 4 >/dev/null || fail "gen"
cat > "$work/toy.ini" <<INI
[trace]
path = t.h5
[scenarios]
model = toy, independent
fetch_scale = 1, 0.5, 2
[toy]
overlap = 0.75
[run]
slab_iterations = 300
INI
"$stallsim" run --explain --verbose "$work/toy.ini" --out "$work/r1" > "$work/out1.txt" && ok || fail "toy sweep on 1 rank"
grep -q "^note: the toy rows overlap each fetch with 0.75 of the previous step$" "$work/out1.txt" && ok \
  || fail "the toy model's note"
"$stallsim" run --explain --verbose --help | grep -A1 '^\[toy\]' | grep -q '^  overlap = 1 ' && ok || fail "run --help lists [toy] overlap"
"$stallsim" run --explain --verbose "$work/toy.ini" --set toy.overlaps=1 --out "$work/rx" 2>&1 | grep -q "unknown key 'overlaps' in section \[toy\]" \
  && ok || fail "an unknown [toy] key is named"
"$stallsim" run --explain --verbose "$work/toy.ini" --set toy.overlap=-1 --out "$work/rx" 2>&1 | grep -q "toy.overlap = '-1' must not be negative" \
  && ok || fail "a bad [toy] value is refused"
grep -q "^toy_fs0.5,toy," "$work/r1/summary.csv" && ok || fail "toy rows in summary.csv"
if [ "$have_mpi" = 1 ]; then
  for np in 2 3; do
    mpirun_t $np "$stallsim" run --explain --verbose "$work/toy.ini" --out "$work/r$np" --quiet && ok || fail "toy sweep on $np ranks"
    same_file "$work/r1/summary.csv" "$work/r$np/summary.csv" "toy summary at $np ranks"
  done
else
  echo "note: mpirun not found: the rank-count checks of the toy model are skipped"
fi
# the toy's mean iteration time from its definition, over the summarised iterations
$py - "$work/t.h5" "$work/r1/summary.csv" <<'PY' && ok || fail "toy values against its formula"
import csv, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
tl = f["timeline"]
ep, ix = tl["epoch"][:], tl["index"][:]
ft, it, st = tl["fetch_time"][:], tl["iteration_time"][:], tl["stall_time"][:]
rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[2]))}
for fs in (1.0, 0.5, 2.0):
    prev_c, last_e, vals = 0.0, None, []
    for k in range(len(ep)):
        if ep[k] != last_e:
            prev_c, last_e = 0.0, ep[k]
        c = it[k].max() - st[k].max()
        stall = np.maximum(0.0, fs * ft[k] - 0.75 * prev_c)
        if ix[k] >= 11:
            vals.append(stall.max() + c)
        prev_c = c
    name = "toy_fs%g" % fs
    got = float(rows[name]["iter_time_mean"])
    assert abs(got - np.mean(vals)) < 1e-9, (name, got, np.mean(vals))
    assert int(rows[name]["iterations"]) == len(vals)
PY
finish
