#!/usr/bin/env bash
# cli_answer.sh - the answer on one screen (sim/cli/ANSWER.md): after the table at most 20
# lines, none over 100 characters; the flags' legend iff a cut has a flag; --explain prints
# the long notes, --verbose the calibration; the slowest loader only where one stands out.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
cd "$work" || exit 1
ex=$src/config/examples
ds=$src/datasets

# limits FILE: the lines after the table's rows (the first line that is no row, after the
# header) obey the limits, and the legend line is there iff a ranked cut has flags
limits() {
  /usr/bin/python3 - "$1" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("   scenario "))
end = head + 1
while end < len(lines) and lines[end][:3] in ("M  ", "*  ", "   "):
    end += 1
if end < len(lines) and re.match(r"^\.\.\. \d+ more rows: ", lines[end]):  # (the table's last line)
    end += 1
after = lines[end:]
assert 0 < len(after) <= 20, ("lines after the table", len(after))
wide = [l for l in after if len(l) > 100]
assert not wide, ("wider than 100", wide)
# a cut is one line, or two where its label would not fit: the label, then its figures
cuts = [l + (after[i + 1] if i + 1 < len(after) and after[i + 1].startswith("     ") else "")
        for i, l in enumerate(after) if re.match(r"^  \d\. ", l)]
flagged = [l for l in cuts if re.search(r"%\s+(tie|ahead|heal|sync|over|busy|only below|pays off|unsure|skewed)\b", l)]
legend = [l for l in after if l.startswith("flags:")]
assert bool(flagged) == bool(legend), ("legend", flagged, legend)
assert any(l.startswith("more: --explain") for l in after), "no pointer line"
assert not any(l.startswith("more: --explain") and "…" in l for l in after), "the pointer line cut"
assert not any(l.startswith(("calibration:", "note:")) for l in lines), "calibration or notes by default"
print("%d lines after the table, %d ranked cuts, %d flagged" % (len(after), len(cuts), len(flagged)))
PY
}
# check NAME FILE: limits, as a check
check() { limits "$2" && ok || fail "$1: $(tail -22 "$2")"; }

# the examples: which-fix (heals, flags), demo (independent model, no intervals),
# whatif-workers (pipeline, no heals)
for name in which-fix demo whatif-workers; do
  "$stallsim" run "$ex/$name.ini" --out "$name" > "$name.txt" 2> "$name.err" || fail "$name: run"
  check "$name" "$name.txt"
done
# the checks can fail: a 21-line answer, a line of 101 characters, a legend without flags
{ sed -n '1,/^M  /p' which-fix.txt; for i in $(seq 21); do echo "line $i"; done; } > long.txt
limits long.txt >/dev/null 2>&1 && fail "21 lines passed the check" || ok
{ sed -n '1,/^M  /p' which-fix.txt; printf '%0101d\n' 0; echo "more: --explain"; } > wide.txt
limits wide.txt >/dev/null 2>&1 && fail "a 101-character line passed the check" || ok
grep -v "^flags:" which-fix.txt > nolegend.txt
limits nolegend.txt >/dev/null 2>&1 && fail "flags without a legend passed" || ok
# which-fix's cuts: the interval as "(lo … hi%)", the steady state, the flags; its GPU 3
grep -qE "^  1\. pipe .* -7[0-9]\.[0-9]% \(-[0-9.]+ … -[0-9.]+%\) +steady +-7[0-9]\.[0-9]%  .*heal" which-fix.txt &&
  grep -q "^GPUs to fix first (pipeline): GPU 3 -" which-fix.txt && ok || fail "which-fix: cuts or GPUs to fix first"
# "GPUs to fix first" flags a GPU unsure where its heal's whole-run interval reaches the
# measured run (summary.csv: run_time_hi at or above the measured run_time), as the JSON says
# (the demo's GPU 3 is sure; a real run with two faults, pytorch-twofaults, has unsure heals)
"$stallsim" run "$ex/which-fix.ini" --out wfj --json --quiet > wfj.json || fail "which-fix --json"
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nheal = none, each\n' "$ds/pytorch-twofaults/base.h5" > tf.ini
"$stallsim" run tf.ini --out tfj --json --quiet > tfj.json && "$stallsim" run tf.ini --out tfj > tf.txt ||
  fail "twofaults heals"
for c in "wfj which-fix.txt" "tfj tf.txt"; do
  set -- $c
/usr/bin/python3 - $1.json $1/summary.csv $2 <<'PY' && ok || fail "GPUs to fix first, unsure: $(grep 'fix first' $2)"
import csv, json, re, sys
heal = json.load(open(sys.argv[1]))["ranking"]["heal"]
rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[2]))}
meas = float(next(iter(rows.values()))["run_time"])
line = [l for l in open(sys.argv[3]) if l.startswith("GPUs to fix first (pipeline):")][0]
ranked = [h for h in heal if h["ranked"] and h["model"] == "pipeline"][:2]  # the line lists two at most
assert ranked, heal
for h in ranked:
    r = rows[h["scenario"]]
    assert h["interval_reaches_no_change"] == (float(r["run_time_hi"]) >= meas), (h, r["run_time_hi"], meas)
    m = re.search(r"GPU %d [-+][\d.]+%%( unsure)? \(" % h["gpu"], line)
    assert m and bool(m.group(1)) == h["interval_reaches_no_change"], (h, line)
print(sys.argv[3], [(h["gpu"], h["interval_reaches_no_change"]) for h in ranked])
PY
done
grep -qE "^GPUs to fix first \(pipeline\): .*GPU [0-9]+ -[0-9.]*% unsure" tf.txt && ! grep -q "fix first.*unsure" which-fix.txt && ok ||
  fail "unsure heals: $(grep 'fix first' tf.txt which-fix.txt)"
# where only the heals are unsure (more workers with the heals: every ranked cut is sure),
# the legend still says what unsure means
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 3, 4, 6\nheal = none, each\n' \
  "$ds/pytorch-twofaults/base.h5" > tf2.ini
"$stallsim" run tf2.ini --out tf2 > tf2.txt || fail "twofaults, workers and heals"
! grep -q "^  [0-9]\. .* unsure" tf2.txt && grep -qE "^GPUs to fix first \(pipeline\): .*GPU [0-9]+ -[0-9.]*% unsure" tf2.txt &&
  grep -q "^flags: .*unsure" tf2.txt && ok || fail "unsure heals without unsure cuts: $(sed -n '/largest/,$p' tf2.txt)"
# the demo trace's GPU 3 is slow: named, with and without heals in the sweep
for name in which-fix demo whatif-workers; do
  grep -q "^slowest loader: GPU 3 (largest stall in" "$name.txt" && ok || fail "$name: no slowest loader"
done

# --explain: the notes and caveats in full; --verbose: the calibration (its lines only then)
"$stallsim" run "$ex/which-fix.ini" --out wf2 --explain > explain.txt 2>&1 || fail "which-fix --explain"
grep -q "^note: the trace does not record the fetches' CPU time, so fetch_scale scales whole fetches" explain.txt &&
  grep -q "^  (loaders now ahead: the trace's loaders were behind" explain.txt && ! grep -q "^calibration:" explain.txt &&
  ok || fail "--explain: $(grep -c . explain.txt) lines"
"$stallsim" run "$ex/which-fix.ini" --out wf3 --verbose > verbose.txt 2>&1 || fail "which-fix --verbose"
grep -q "^calibration: 4 GPUs, from the first" verbose.txt && ! grep -q "^note:" verbose.txt && ok ||
  fail "--verbose: $(head -3 verbose.txt)"
# the notes the default run folds are counted in its pointer line
n=$(grep -c "^note:" explain.txt)
grep -q "^more: --explain ($n notes," which-fix.txt && ok || fail "pointer: $n notes: $(grep '^more' which-fix.txt)"
# --json carries the notes and the calibration lines
"$stallsim" run "$ex/which-fix.ini" --out wf4 --json > wf.json 2>/dev/null || fail "which-fix --json"
/usr/bin/python3 -c "
import json, sys
d = json.load(open('wf.json'))
assert len(d['notes']) == $n and d['notes'][0].startswith('the trace'), d['notes']
assert any(c.startswith('4 GPUs, from the first') for c in d['calibration']), d['calibration']
assert d['findings']['slowest_loader_gpu'] == 3, d['findings']" && ok || fail "--json: notes, calibration, finding"
# the usage names both flags
"$stallsim" run --help | grep -q "^  --explain " && "$stallsim" run --help | grep -q "^  --verbose " &&
  "$stallsim" --help | grep -q "\[--explain\]" && "$stallsim" --help | grep -q "\[--verbose\]" && ok ||
  fail "usage without --explain or --verbose"

# a healthy run of four symmetric GPUs (no slow rank): no slowest loader, with heals or not;
# a real slow rank (datasets/pytorch-fixfirst, rank 2): named
if [ -f "$ds/pytorch-twoslow/healthy-rep.h5" ] && [ -f "$ds/pytorch-fixfirst/base-a.h5" ]; then
  for t in twoslow/healthy-rep fixfirst/base-a; do
    for heal in none "none, each"; do
      tag=$(basename "$t")-${heal//[ ,]/}
      printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nheal = %s\n' "$ds/pytorch-$t.h5" "$heal" > "$tag.ini"
      "$stallsim" run "$tag.ini" --out "$tag" > "$tag.txt" 2>&1 || fail "$tag: run"
      check "$tag" "$tag.txt"
    done
  done
  ! grep -q "^slowest loader" healthy-rep-none.txt healthy-rep-noneeach.txt && ok ||
    fail "a healthy run names a slowest loader: $(grep -h '^slowest' healthy-rep-*.txt)"
  grep -q "^slowest loader: GPU 2 " base-a-none.txt && grep -q "^slowest loader: GPU 2 " base-a-noneeach.txt && ok ||
    fail "the slow rank 2 is not named: $(grep -h '^slowest' base-a-*.txt)"
  # a rank whose batches come later but whose fetches take no longer is not a slow loader:
  # a rank slow in its training step (pytorch-seq/cslow1), and symmetric 1-worker ranks out
  # of phase (pytorch-cnn/w1-x1), each GPU's median fetch within the floor of the others'
  for t in seq/cslow1 cnn/w1-x1; do
    tag=phase-$(basename "$t")
    printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\n' "$ds/pytorch-$t.h5" > "$tag.ini"
    "$stallsim" run "$tag.ini" --out "$tag" > "$tag.txt" 2>&1 || fail "$tag: run"
    ! grep -q "^slowest loader" "$tag.txt" && ok || fail "$tag: names a slowest loader: $(grep '^slowest' "$tag.txt")"
  done
else
  echo "note: the committed real runs are missing: the healthy and slow-rank checks are skipped"
fi

# a long scenario label (a set of healed GPUs) is cut, not wrapped past 100 characters
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nheal = none, 0+1+2\nworkers = auto, auto*2\nfetch_scale = 1, 0.5\n' \
  "$ds/demo-4gpu.h5" > longlab.ini
"$stallsim" run longlab.ini --out longlab --set scenarios.prefetch=auto,4 > longlab.txt 2>&1 || fail "long labels: run"
check "long labels" longlab.txt
# a prefetch factor given and never auto, and workers doubled: the fidelity line names the
# two keys whose lists lack the trace's value, and no other
"$stallsim" run "$ex/whatif-workers.ini" --set scenarios.prefetch=4 --set scenarios.workers=auto*2 --out nofidp > nofidp.txt 2>&1 &&
  grep -q "^fidelity: no baseline replay; add workers = auto, prefetch = auto$" nofidp.txt &&
  ok || fail "fidelity line with a fixed prefetch: $(grep fidelity nofidp.txt)"
# a sweep with no row replaying the trace's own settings (an explicit value is not auto):
# the fidelity line says which key lacks it; with auto back, the replay's error
"$stallsim" run "$ex/whatif-workers.ini" --set scenarios.persistent_workers=false,true --out nofid > nofid.txt 2>&1 &&
  grep -q "^fidelity: no baseline replay; add persistent_workers = auto$" nofid.txt &&
  "$stallsim" run "$ex/whatif-workers.ini" --set scenarios.persistent_workers=auto,true --out fid > fid.txt 2>&1 &&
  grep -q "^fidelity: the baseline replay is " fid.txt && ! grep -q "no baseline replay" fid.txt && ok ||
  fail "the fidelity line without a baseline: $(grep fidelity nofid.txt fid.txt)"
# the measured contention that the model does not match, said where a row changes the load
zk=$ds/pytorch-grid-zk/w8-x1-p2.h5
if [ -e "$zk" ]; then
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 1, 4\n' "$zk" > cont.ini
  "$stallsim" run cont.ini --out cont > cont.txt 2>&1 && check cont cont.txt
  /usr/bin/python3 - "$zk" cont.txt <<'PY' && ok || fail "the contention line: $(grep -i contention cont.txt)"
import re, sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
c, q = f["fetch_cpu_time"][:], f["fetch_wait_time"][:]
measured = (c + q).sum() / c.sum()  # the pool's fetches: (CPU + wait) / CPU
line = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith("contention (recorded):")]
m = re.match(r"contention \(recorded\): fetches took ([\d.]+)x their CPU time, the model ([\d.]+)x: load changes less sure$", line[0])
assert m and abs(float(m.group(1)) - measured) < 0.006, (line, measured)
assert abs(float(m.group(2)) / float(m.group(1)) - 1) > 0.25 or float(m.group(1)) > 2.0, line
PY
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto\n' "$zk" > cont0.ini
  "$stallsim" run cont0.ini --out cont0 > cont0.txt 2>&1 && ! grep -q "^contention" cont0.txt && ok \
    || fail "a contention line where no row changes the load: $(grep -i contention cont0.txt)"
fi
# every ranked cut unsure: one line says none is sure to help; where a cut is sure, no such line
za=$ds/pytorch-grid-za/w4-x0.5-p4.h5
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 1, 2, 8\nprefetch = auto, 2\n' "$za" > unsure.ini
"$stallsim" run unsure.ini --out unsure > unsure.txt 2>&1 && check unsure unsure.txt
/usr/bin/python3 - unsure.txt <<'PY' && ok || fail "none is sure: $(tail -12 unsure.txt)"
import re, sys
text = open(sys.argv[1]).read().splitlines()
cuts = [l for l in text if re.match(r"^  \d\. ", l)]
assert cuts and all(re.search(r"\bunsure\b", l) for l in cuts), cuts
assert "none is sure to help: every interval reaches no change (record the base again: compare --spread)" in text, text
PY
grep -q "^  1\. .*-[0-9.]*% (-[0-9.]* … -[0-9.]*%)" whatif-workers.txt && ! grep -q "^none is sure" whatif-workers.txt && ok ||
  fail "a sure cut, and no 'none is sure' line: $(grep -A3 largest whatif-workers.txt)"
# time between epochs that every row keeps: said where it holds more than a tenth of the whole run,
# with the seconds of the trace by hand (each later epoch's earliest ask less the epoch before's
# last end; a generated trace has no pass starts, so the workers' starts are in it)
"$stallsim" gen -o gap.h5 --gpus 2 --iterations 12 --epochs 3 --seed 3 > /dev/null || fail "gen gap.h5"
printf '[trace]\npath = gap.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\n' > gap.ini
"$stallsim" run gap.ini --out gap > gap.txt 2>&1 && check gap gap.txt
/usr/bin/python3 - gap.h5 gap.txt gap/summary.csv <<'PY' && ok || fail "between epochs kept: $(grep -i between gap.txt)"
import csv, re, sys, h5py, numpy as np
t = h5py.File(sys.argv[1], "r")["timeline"]
ep, ask = t["epoch"][:], t["train_start"][:] - t["stall_time"][:]
end = ask + t["iteration_time"][:]
es = sorted(set(ep.tolist()))
kept = sum(ask[ep == b].min() - end[ep == a].max() for a, b in zip(es, es[1:]))
whole = float(next(csv.DictReader(open(sys.argv[3])))["run_time"])
line = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith("between epochs:")]
assert len(line) == 1 and kept > 0.1 * whole, (line, kept, whole)
m = re.match(r"between epochs: ([\d.]+) s \((\d+)%\) kept as measured: workers' starts, evaluation, checkpoints$", line[0])
assert m and abs(float(m.group(1)) - kept) < 0.01 and int(m.group(2)) == round(100 * kept / whole), (line, kept, whole)
PY
# with pass starts but no pass stops: the leads are taken out, the workers' stops stay in
cp gap.h5 gapstart.h5
/usr/bin/python3 - gapstart.h5 <<'PY' || fail "python edit (pass starts)"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    t = f["timeline"]
    ep, ask = t["epoch"][:], t["train_start"][:] - t["stall_time"][:]
    first = np.array([ask[ep == e][0] for e in sorted(set(ep.tolist()))])
    f.create_dataset("pass_start_time", data=first - 0.05).attrs["units"] = "s"
PY
printf '[trace]\npath = gapstart.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\n' > gapstart.ini
"$stallsim" run gapstart.ini --out gapstart > gapstart.txt 2>&1 && check gapstart gapstart.txt
/usr/bin/python3 - gap.txt gapstart.txt <<'PY' && ok || fail "between epochs without pass stops: $(grep -i between gapstart.txt)"
import re, sys
def kept(path):
    line = [l for l in open(path).read().splitlines() if l.startswith("between epochs:")]
    assert len(line) == 1, line
    return float(re.match(r"between epochs: ([\d.]+) s", line[0]).group(1)), line[0]
(a, _), (b, line) = kept(sys.argv[1]), kept(sys.argv[2])
assert line.endswith("kept as measured: workers' stops, evaluation (see eval_path)"), line
assert abs((a - b) - 0.1) < 0.051, (a, b)  # two later epochs' leads of 0.05 s left out
PY
! grep -q "^between epochs:" whatif-workers.txt && ok || fail "a between-epochs line on a short break"
# a sweep of more than 40 rows: the table shows its first 40 and says how many more, the
# answer keeps its limits, and labels too long for one line put each cut on two lines,
# its label whole; --explain prints every row
g=$ds/pytorch-grid-zg/w2-x1-p2-slow3.h5
if [ -e "$g" ]; then
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 1, 4\nprefetch = auto, 4\nfetch_scale = 1, 0.5\ncompute_scale = 1, 0.5\npersistent_workers = auto, true\nheal = none, 3\n' \
    "$g" > big.ini
  "$stallsim" run big.ini --out big > big.txt 2>&1 && limits big.txt > /dev/null &&
    "$stallsim" run big.ini --out bigx --explain > bigx.txt 2>&1 &&
    /usr/bin/python3 - big.txt bigx.txt big/summary.csv <<'PY' && ok || fail "a long sweep's table: $(head -3 big.txt)"
import csv, re, sys
short, full = (open(p, encoding="utf-8").read().splitlines() for p in sys.argv[1:3])
n = len(list(csv.DictReader(open(sys.argv[3]))))
assert n > 40, n
rows = lambda ls: [l for l in ls if l[:3] in ("M  ", "*  ") or re.match(r"^   pipe ", l)]
assert len(rows(short)) == 40 and len(rows(full)) == n, (len(rows(short)), len(rows(full)), n)
assert "... %d more rows: summary.csv has every row, and --explain prints them all" % (n - 40) in short
cut = [i for i, l in enumerate(short) if re.match(r"^  \d\. pipe ", l)]
assert cut and all(short[i + 1].startswith("     ") and "%" in short[i + 1] and "%" not in short[i] for i in cut), cut
labels = [short[i].split(". ", 1)[1] for i in cut]
assert len(set(labels)) == len(labels), labels
# the model's legend, too wide for one line, goes on two, each abbreviation whole
assert any("pw= persistent_workers" in l for l in short) and not any("…" in l for l in short if l.startswith(("pipe =", "  pw"))), short
PY
  # cuts that need more than all the cores (CPU sharing off, the steps ten times faster)
  # rank after every cut that does not, though they promise more
  g1=$ds/pytorch-grid-zg/w1-x1-p2.h5
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2, 8\nfetch_scale = 1, 0.1\ncompute_scale = 1, 0.1\n[pipeline]\ncpu_sharing = false\n' \
    "$g1" > over.ini
  "$stallsim" run over.ini --out overj --json 2>/dev/null > over.json &&
    /usr/bin/python3 - over.json overj/summary.csv <<'PY' && ok || fail "cuts that need more than all the cores rank last"
import csv, json, sys
top = json.load(open(sys.argv[1]))["ranking"]["top"]
rows = list(csv.DictReader(open(sys.argv[2])))
over = [t["cpu_load_pct"] > 100 for t in top]
assert top and over == sorted(over), [(t["scenario"], t["cpu_load_pct"]) for t in top]
best = min(float(r["run_change_pct"]) for r in rows if r["cpu_load_pct"] and float(r["cpu_load_pct"]) > 100)
assert best < top[0]["change_pct"] - 5 and not over[0], (best, top[0])
PY
else
  fail "$g is missing (committed with the repository)"
fi
# the first cut changes several settings: "one setting alone" gives the best ranked cuts
# that change one of the baseline's alone (a heal counts as one; this sweep has none), found here
# from summary.csv's columns; where the first cut changes one setting, no such line
one=$ds/pytorch-startup-k/w1-a.h5
if [ -e "$one" ]; then
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2, 3\nfetch_scale = 1, 0.5\npersistent_workers = auto, true\n' \
    "$one" > one.ini
  "$stallsim" run one.ini --out onej --json 2>/dev/null > one.json && "$stallsim" run one.ini --out ones > one.txt 2>&1 &&
    /usr/bin/python3 - one.json onej/summary.csv one.txt <<'PY' && check "one setting alone" one.txt || fail "one setting alone: $(tail -12 one.txt)"
import csv, json, sys
rk = json.load(open(sys.argv[1]))["ranking"]
rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[2]))}
base = next(r for r in rows.values() if r["error_class"] == "baseline")
def changed(r):  # prefetch and persistent_workers count only where both have workers
    both = int(r["workers"]) >= 1 and int(base["workers"]) >= 1
    return (r["workers"] != base["workers"]) + (float(r["fetch_scale"]) != 1) + \
        (both and r["persistent_workers"] != base["persistent_workers"])
floor = max(1.0, abs(float(base["run_change_pct"])))
assert changed(rows[rk["top"][0]["scenario"]]) >= 2, rk["top"][0]
single = [r for r in rows.values() if r["model"] == "pipeline" and changed(r) == 1 and float(r["run_change_pct"]) < -floor]
single.sort(key=lambda r: (float(r["cpu_load_pct"]) > 100, float(r["run_change_pct"])))
want = [r["scenario"] for r in single[:2]]
got = [c["scenario"] for c in rk["one_setting_alone"]]
assert want and got == want, (got, want)
import h5py
h5 = [x.decode() for x in h5py.File(sys.argv[2].replace("summary.csv", "results.h5"), "r")["ranking/one_setting_alone"]["scenario"]]
assert h5 == want, (h5, want)
line = [l for l in open(sys.argv[3]).read().splitlines() if l.startswith("one setting alone: ")]
first = " %+.1f%% (" % float(single[0]["run_change_pct"])
assert len(line) == 1 and line[0].startswith("one setting alone: pipe W=") and first in line[0].split(";")[0], (line, first)
PY
  # from a trace without workers: W=4 is one setting (its prefetch factor and persistence
  # come with the workers), so among the cuts tied with the best (W=4 with storage twice as
  # fast, within a point) it comes first, the cheapest; and it changes one setting alone, so
  # no "one setting alone" line
  "$stallsim" gen -o sync1.h5 --gpus 2 --iterations 300 --workers 0 --seed 3 > /dev/null &&
    printf '[trace]\npath = sync1.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\nfetch_scale = 1, 0.5\n' > sync1.ini &&
    "$stallsim" run sync1.ini --out sync1 --json 2>/dev/null |
    /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)["ranking"]
top = [c["scenario"] for c in r["top"]]
assert top[:2] == ["pipeline_fetch-none_start-none_w-4_p2_fs1_cs1", "pipeline_fetch-none_start-none_w-4_p2_fs0.5_cs1"], top
assert r["top"][1]["change_pct"] < r["top"][0]["change_pct"] < r["top"][1]["change_pct"] + 1.0, r["top"][:2]
assert r["one_setting_alone"] == [], r["one_setting_alone"]' &&
    ok || fail "the cheapest of the tied cuts first, from a trace without workers"
  "$stallsim" run one.ini --set scenarios.fetch_scale=1 --set scenarios.persistent_workers=auto --out one2 --json 2>/dev/null |
    /usr/bin/python3 -c 'import json, sys; r = json.load(sys.stdin)["ranking"]; assert r["top"] and not r["one_setting_alone"], r' &&
    ok || fail "one setting alone where the first cut changes one setting"
else
  fail "$one is missing (committed with the repository)"
fi
# a trace without pass starts (gen writes none) keeps the time between epochs as measured:
# --explain says so for persistent workers too, naming such a scenario, and not where
# every scenario keeps the trace's workers as they were
"$stallsim" gen -o nopass.h5 --gpus 2 --iterations 60 --epochs 2 --workers 2 --seed 4 >/dev/null || fail "gen nopass"
printf '[trace]\npath = nopass.h5\n[scenarios]\nmodel = pipeline\npersistent_workers = auto, true\n' > nopass.ini
"$stallsim" run nopass.ini --out nopass --explain > nopass.txt 2>&1 &&
  grep -q "^note: the trace records no pass starts (when each epoch called iter(loader)), so scenarios with other or persistent workers, such as pipe pw=true, keep the time between epochs as measured" nopass.txt &&
  "$stallsim" run nopass.ini --set scenarios.persistent_workers=auto --out nopass2 --explain > nopass2.txt 2>&1 &&
  ! grep -q "records no pass starts" nopass2.txt && ok || fail "persistent workers on a trace without pass starts: $(cat nopass.txt)"
finish
