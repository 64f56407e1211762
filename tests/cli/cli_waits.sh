#!/usr/bin/env bash
# cli_waits.sh - the waits model (sim/models/MODELS-waits.md) on a trace without fetch
# times: a hand-made table of waits and step times, imported with `import table`, replayed
# with heal = each; every row's iteration time and stall against the definition computed
# here in Python, the baseline equal to the measured run, and the loader models refused
# on such a trace with a message that names the waits model.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: $py cannot import h5py and numpy"; exit 77; }
$py - "$work/w.csv" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(3)
G, E, N = 3, 2, 40
with open(sys.argv[1], "w") as f:
    f.write("rank,epoch,step,iteration_time,stall_time\n")
    for e in range(E):
        for k in range(N):
            w = rng.uniform(0.001, 0.01, G)
            w[2] += 0.03 * (k % 3 == 0)  # rank 2 waits long every third step
            T = 0.05 + w.max()
            for g in range(G):
                f.write("%d,%d,%d,%.9f,%.9f\n" % (g, e, k, T, w[g]))
PY
"$stallsim" import table "$work/w.csv" -o "$work/w.h5" >"$work/imp.txt" 2>&1 && ok || fail "import: $(cat "$work/imp.txt")"
grep -q 'model = waits' "$work/imp.txt" && ok || fail "import does not point to the waits model: $(cat "$work/imp.txt")"
cat >"$work/w.ini" <<INI
[trace]
path = $work/w.h5
warmup_iterations = 0
[scenarios]
model = waits
heal = none, each, 0+1
[output]
dir = $work/out
per_iteration = true
INI
"$stallsim" run "$work/w.ini" >"$work/run.txt" 2>&1 && ok || fail "run: $(tail -3 "$work/run.txt")"
$py - "$work/w.h5" "$work/out/results.h5" "$work/out/summary.csv" <<'PY' && ok || fail "the waits model against its definition"
import csv, sys
import h5py, numpy as np
t = h5py.File(sys.argv[1], "r")["timeline"]
it, st = t["iteration_time"][:], t["stall_time"][:]
res = h5py.File(sys.argv[2], "r")["scenarios"]
rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[3]))}
T, W = it.max(1), st.max(1)
C = np.maximum(0, T - W)
def heal(H):
    w = st.copy()
    keep = [g for g in range(st.shape[1]) if g not in H]
    m = np.median(st[:, keep], axis=1)
    for g in H:
        w[:, g] = m
    return C + w.max(1), w.max(1)
cases = {"waits": [], "waits_heal-0": [0], "waits_heal-1": [1], "waits_heal-2": [2], "waits_heal-0-1": [0, 1]}
for name, H in cases.items():
    want_it, want_st = heal(H) if H else (T, W)
    got = res[name]
    assert np.allclose(got["iteration_time"][:], want_it, rtol=0, atol=1e-12), name
    assert np.allclose(got["stall"][:], want_st, rtol=0, atol=1e-12), name
    assert abs(float(rows[name]["iter_time_mean"]) - want_it.mean()) < 1e-12, name
# healing the rank that waits long every third step is the one that pays
assert float(rows["waits_heal-2"]["iter_time_mean"]) < float(rows["waits_heal-0"]["iter_time_mean"])
PY
grep -q "GPUs to fix first (waits): GPU 2 " "$work/run.txt" && ok || fail "GPU 2 not first to fix: $(grep -i 'fix first' "$work/run.txt")"
grep -q "heal=G: GPU G's wait in each row becomes the other GPUs' median" "$work/run.txt" && ok ||
  fail "the waits model's heal legend"
# compare says what the waits of a trace without fetch times say, as computed here
"$stallsim" compare "$work/w.h5" --warmup 0 >"$work/cmp.txt" 2>&1 && ok || fail "compare: $(tail -2 "$work/cmp.txt")"
$py - "$work/w.h5" "$(grep '^waits (' "$work/cmp.txt")" <<'PY' && ok || fail "compare's waits line: $(grep '^waits' "$work/cmp.txt")"
import re, sys
import h5py, numpy as np
t = h5py.File(sys.argv[1], "r")["timeline"]
it, st = t["iteration_time"][:], t["stall_time"][:]
m = re.search(r"GPU (\d+) alone waited longest in ([\d.]+)% .* costs ([\d.]+) s per iteration, ([\d.]+) s over the whole run", sys.argv[2])
assert m, sys.argv[2]
alone = [(r == r.max()).sum() == 1 and r.argmax() == 2 for r in st]
assert m.group(1) == "2" and abs(float(m.group(2)) - 100 * np.mean(alone)) < 0.05, (m.groups(), np.mean(alone))
assert abs(float(m.group(3)) - st.max(1).mean()) < 5e-5 and abs(float(m.group(4)) - st.max(1).sum()) < 5e-3, m.groups()
PY
# the loader models need fetch times, and say which model does not
sed 's/^model = waits/model = pipeline/' "$work/w.ini" >"$work/p.ini"
"$stallsim" run "$work/p.ini" >"$work/p.txt" 2>&1; rc=$?
# a configuration error (exit 2): the trace is sound, the scenario file asks what it cannot give
[ $rc -eq 2 ] && ok || fail "the pipeline model on a trace without fetch times: exit $rc"
grep -q 'no fetch timings.*`model = waits`' "$work/p.txt" && ok || fail "refusal without the waits model: $(cat "$work/p.txt")"
# compare --match: a real run that records no loader (a table) is set beside the row that
# holds --scenario's text, of any model; without --scenario, it says how
"$stallsim" compare "$work/out" "$work/w.h5" --match --scenario heal-2 --warmup 0 >"$work/m.txt" 2>&1 &&
  $py - "$work/m.txt" "$work/out/summary.csv" "$work/w.h5" <<'PY' && ok || fail "compare --match --scenario on a table trace: $(cat "$work/m.txt")"
import csv, sys, h5py
text = open(sys.argv[1]).read()
row = next(r for r in csv.DictReader(open(sys.argv[2])) if r["label"] == "waits heal=2")
with h5py.File(sys.argv[3]) as f:
    real = f["timeline/iteration_time"][()].max(axis=1).mean()
pred = float(row["iter_time_mean"])
want = "w.h5     -            %10.4f %10.4f %+7.1f%%      -  out: waits heal=2" % (real, pred, 100 * (pred / real - 1))
assert any(l.startswith(want) for l in text.splitlines()), (want, text)
assert "a real run whose trace records no loader settings (1 here) is set beside the row of any model whose scenario holds heal-2" in text, text
PY
"$stallsim" compare "$work/out" "$work/w.h5" --match --warmup 0 2>&1 | grep -q "the trace records no loader settings: give --scenario TEXT" &&
  ok || fail "compare --match on a table trace without --scenario"
finish
