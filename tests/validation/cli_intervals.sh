#!/usr/bin/env bash
# cli_intervals.sh - the 90 % intervals: the generated class table is what the development and
# calibration runs give (scripts/validation/intervals.py --check), and each row's interval follows
# from its class and the trace by hand (MODELS-pipeline.md, "Intervals").
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
root=$(cd "$src" && pwd)
[ -d "$root/datasets/pytorch-grid-t" ] || { echo "skipped: datasets/pytorch-grid-t is missing"; exit 77; }

$py "$root/scripts/validation/intervals.py" --stallsim "$stallsim" --check > "$work/check.txt" 2>&1 && ok ||
  fail "the interval table is out of date: $(tail -1 "$work/check.txt")"

trace=$root/datasets/pytorch-grid-t/w2-x1-p2-slow3.h5
cat > "$work/iv.ini" <<INI
[trace]
path = $trace
[scenarios]
model = pipeline
workers = auto, 0, 4
fetch_scale = 1, 0.5
heal = none, 3
INI
"$stallsim" run --explain --verbose "$work/iv.ini" --out "$work/iv" > "$work/iv.txt" 2>&1 && ok || fail "run: $(tail -3 "$work/iv.txt")"
$py - "$trace" "$work/iv/summary.csv" "$root/sim/models/ss_pipeline_intervals.c" "$work/iv.txt" <<'PY' && ok || fail "intervals by hand"
import csv, re, sys, h5py, numpy as np
t = h5py.File(sys.argv[1], "r")["timeline"]
ix, it = t["index"][:], t["iteration_time"][:].max(axis=1)
N = len(ix)
# the measured run's variability: its summarised rows (index >= 11) in the trace's two halves
a = it[(ix >= 11) & (np.arange(N) < N / 2)].mean()
b = it[(ix >= 11) & (np.arange(N) >= N / 2)].mean()
v = abs(a - b) / ((a + b) / 2)
halves = v
# other processes' largest share of the cores while it was recorded, in quadrature with it
f = h5py.File(sys.argv[1], "r")
o = max(0.0, float(np.nan_to_num(f["host_cpu_busy"][:] - f["host_cpu_job"][:]).max())) if "host_cpu_busy" in f else 0.0
v = float(np.hypot(v, o))
cls = {m.group(1): (int(m.group(2)), [float(m.group(3)), float(m.group(4))], [float(m.group(5)), float(m.group(6))],
                    [float(m.group(7)), float(m.group(8))])
       for m in re.finditer(r'\{"([^"]+)", (\d+), \{([^,]+), ([^}]+)\}, \{([^,]+), ([^}]+)\}, \{([^,]+), ([^}]+)\}\}',
                            open(sys.argv[3]).read())}
assert len(cls) == 8, cls
rows = list(csv.DictReader(open(sys.argv[2])))
seen = set()
for r in rows[1:]:
    n, s, run, m = cls[r["error_class"]]
    seen.add(r["error_class"])
    for col, P, e, mk in (("iter_time", float(r["iter_time_mean"]), s, m[0]), ("run_time", float(r["run_time"]), run, m[1])):
        sc = (mk ** 2 + v ** 2) ** 0.5  # the scale of errors: the class's model error, the trace's variability
        lo, hi = P / (1 + e[1] * sc), P / (1 + e[0] * sc)
        assert abs(float(r[col + "_lo"]) - lo) <= 1e-9 * lo and abs(float(r[col + "_hi"]) - hi) <= 1e-9 * hi, (r["scenario"], col)
    # the class: the baseline; heal; loaders now ahead or bound (no sync, the cores far from busy)
    if r["scenario"].endswith("w-auto_p2_fs1_cs1"):
        assert r["error_class"] == "baseline", r
    elif "_heal-" in r["scenario"]:
        assert r["error_class"] == "heal", r
    elif r["error_class"] != "loaders now ahead":  # calm: the trace and the row each under half busy
        calm = float(rows[0]["cpu_load_pct"]) < 50 and float(r["cpu_load_pct"]) < 50
        assert r["error_class"] == ("loader bound on calm cores" if calm else "loader bound"), r
assert {"baseline", "heal", "loader bound on calm cores"} <= seen, seen
assert rows[0]["error_class"] == "" and rows[0]["iter_time_lo"] == "", rows[0]
# the ranked answer shows each cut's interval as a change against the measured run
m0 = float(rows[0]["run_time"])
text = open(sys.argv[4]).read()
lines = re.findall(r"^  \d\. (\S.*?)\s+([-+][\d.]+)% \(([-+][\d.]+) … ([-+][\d.]+)%\) whole run", text, re.M)
assert lines, text
byrun = {round(float(r["run_change_pct"]), 2): r for r in rows[1:]}
for lab, ch, lo, hi in lines:
    r = byrun[round(float(ch), 2)]
    assert abs(float(lo) - 100 * (float(r["run_time_lo"]) / m0 - 1)) < 0.051, (lab, lo)
    assert abs(float(hi) - 100 * (float(r["run_time_hi"]) / m0 - 1)) < 0.051, (lab, hi)
# --explain says what sets the width: v, and each class's m and s, to the printed digit
# (a trace without the host sampler's datasets: its others' share is not recorded, and counts 0)
hv = re.search(r"^interval width: the trace's halves differ by ([\d.]+)% and (?:other processes used ([\d.]+)% of its "
               r"cores|other processes' use of its cores is not recorded), v = ([\d.]+)% together", text, re.M)
assert hv and abs(float(hv.group(1)) - 100 * halves) < 0.051 and abs(float(hv.group(3)) - 100 * v) < 0.051, (hv, halves, v)
assert (hv.group(2) is None) == ("host_cpu_busy" not in f), hv.group(0)
assert hv.group(2) is None or abs(float(hv.group(2)) - 100 * o) < 0.051, (hv, o)
# (the baseline's line says its real value is the measured run, against the replay)
shown = re.findall(r"^  (\S.*?)\s+m = ([\d.]+)% steady, ([\d.]+)% whole run: s = ([\d.]+)%, ([\d.]+)%; the "
                   r"(?:real value|measured run) ([-+][\d.]+) … ([-+][\d.]+)% \(steady\), ([-+][\d.]+) … ([-+][\d.]+)% "
                   r"\(whole run\) of the (?:prediction|replay: its fidelity; a repeat of the run differs more \(compare "
                   r"--spread\))$", text, re.M)
assert {c for c, *_ in shown} == seen, (shown, seen)
for c, ms, mr, ss, sr, lo_s, hi_s, lo_r, hi_r in shown:
    m = cls[c][3]
    for shown_m, shown_s, mk, z, lo, hi in ((ms, ss, m[0], cls[c][1], lo_s, hi_s), (mr, sr, m[1], cls[c][2], lo_r, hi_r)):
        sc = (mk ** 2 + v ** 2) ** 0.5
        assert abs(float(shown_m) - 100 * mk) < 0.051 and abs(float(shown_s) - 100 * sc) < 0.051, (c, mk)
        # where the real value lies against the prediction: the interval's ends as changes
        assert abs(float(lo) - 100 * (1 / (1 + z[1] * sc) - 1)) < 0.051, (c, lo)
        assert abs(float(hi) - 100 * (1 / (1 + z[0] * sc) - 1)) < 0.051, (c, hi)
print("intervals: %d rows, variability %.4f, %d ranked lines" % (len(rows) - 1, v, len(lines)))
PY
# a [pipeline] key away from its default changes the replay of the trace's own loaders: that
# row is no longer of the class baseline, whose narrow interval is the plain replay's error
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto\n[pipeline]\nstep_gap = 0.005\n' "$trace" > "$work/gap.ini"
"$stallsim" run -q "$work/gap.ini" --out "$work/gap" > "$work/gap.txt" 2>&1 || fail "run with step_gap: $(tail -3 "$work/gap.txt")"
$py - "$work/gap/summary.csv" "$work/iv/summary.csv" <<'PY' && ok || fail "a row with a [pipeline] key changed is not of the class baseline"
import csv, sys
gap = list(csv.DictReader(open(sys.argv[1])))[1]
own = next(r for r in csv.DictReader(open(sys.argv[2])) if r["scenario"] == gap["scenario"])
assert own["error_class"] == "baseline", own
assert gap["error_class"] not in ("", "baseline"), gap
assert float(gap["iter_time_mean"]) > float(own["iter_time_mean"]), (gap, own)
print("step_gap: the own loaders' row is of the class", gap["error_class"])
PY
# the trace's halves are its own: summarising one epoch ([trace] epoch) leaves them as they are
"$stallsim" run --explain "$work/iv.ini" --set trace.epoch=0 --out "$work/ep0" > "$work/ep0.txt" 2>&1 ||
  fail "run with one epoch: $(tail -3 "$work/ep0.txt")"
h_all=$(grep -o "^interval width: the trace's halves differ by [0-9.]*%" "$work/iv.txt")
h_one=$(grep -o "^interval width: the trace's halves differ by [0-9.]*%" "$work/ep0.txt")
[ -n "$h_all" ] && [ "$h_all" = "$h_one" ] && [ "$h_all" != "interval width: the trace's halves differ by 0.00%" ] &&
  ok || fail "the halves with one epoch summarised: '$h_one' against '$h_all'"
# a trace recorded while other processes used its cores: their share widens every interval
# with the halves' difference, in quadrature (the --explain line says both)
busy=$root/datasets/pytorch-grid-zm/w2-x1-p2-slow3.h5
if [ -e "$busy" ]; then
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\n' "$busy" > "$work/busy.ini"
  "$stallsim" run --explain "$work/busy.ini" --out "$work/busy" > "$work/busy.txt" 2>&1 || fail "run: $(tail -3 "$work/busy.txt")"
  $py - "$busy" "$work/busy/summary.csv" "$root/sim/models/ss_pipeline_intervals.c" "$work/busy.txt" <<'PY' && ok || fail "intervals of a busy host's trace"
import csv, re, sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
ix, it = f["timeline/index"][:], f["timeline/iteration_time"][:].max(axis=1)
N = len(ix)
a = it[(ix >= 11) & (np.arange(N) < N / 2)].mean()
b = it[(ix >= 11) & (np.arange(N) >= N / 2)].mean()
halves = abs(a - b) / ((a + b) / 2)
o = max(0.0, float(np.nan_to_num(f["host_cpu_busy"][:] - f["host_cpu_job"][:]).max()))
assert o > 0.05, o  # (this trace was recorded beside other processes)
v = float(np.hypot(halves, o))
text = open(sys.argv[4]).read()
hv = re.search(r"^interval width: the trace's halves differ by ([\d.]+)% and other processes used ([\d.]+)% of its "
               r"cores, v = ([\d.]+)% together", text, re.M)
assert hv and abs(float(hv.group(2)) - 100 * o) < 0.051 and abs(float(hv.group(3)) - 100 * v) < 0.051, (hv, o, v)
cls = {m.group(1): ([float(m.group(3)), float(m.group(4))], [float(m.group(7)), float(m.group(8))])
       for m in re.finditer(r'\{"([^"]+)", (\d+), \{([^,]+), ([^}]+)\}, \{([^,]+), ([^}]+)\}, \{([^,]+), ([^}]+)\}\}',
                            open(sys.argv[3]).read())}
rows = list(csv.DictReader(open(sys.argv[2])))
for r in rows[1:]:
    e, m = cls[r["error_class"]]
    sc = (m[0] ** 2 + v ** 2) ** 0.5
    P = float(r["iter_time_mean"])
    assert abs(float(r["iter_time_lo"]) - P / (1 + e[1] * sc)) <= 1e-9 * P, r["scenario"]
    assert abs(float(r["iter_time_hi"]) - P / (1 + e[0] * sc)) <= 1e-9 * P, r["scenario"]
print("busy host: o %.4f, v %.4f" % (o, v))
PY
else
  echo "note: $busy is missing: other processes' share in the intervals is not checked"
fi
# a run whose iteration times jump: a quarter of a generated trace's rows made 50 % slower
# is flagged with its rows and change (against the median quarter: +50 %), in the terminal
# and the JSON; the trace as generated is not
"$stallsim" gen -o "$work/u.h5" --gpus 2 --iterations 400 --epochs 1 --seed 3 > /dev/null || fail "gen"
cp "$work/u.h5" "$work/even.h5"
$py - "$work/u.h5" <<'PY' || fail "python edit (a slower quarter)"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    it = f["timeline/iteration_time"][:]
    it[200:300] *= 1.5
    f["timeline/iteration_time"][...] = it
PY
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\n' "$work/u.h5" > "$work/u.ini"
"$stallsim" run --explain --verbose "$work/u.ini" --out "$work/u" > "$work/u.txt" 2>&1 &&
  grep -q "^uneven run (measured): the iterations past the warm-up in rows 200-299 (its third quarter) took +50% against the median quarter" "$work/u.txt" \
  && ok || fail "uneven run: $(grep -i uneven "$work/u.txt")"
"$stallsim" run --explain --verbose "$work/u.ini" --out "$work/uj" --json 2>/dev/null > "$work/u.json" &&
  $py -c "import json,sys; f=json.load(open(sys.argv[1]))['findings']; assert f['uneven_quarter'] == 2 and abs(f['uneven_change'] - 0.5) < 0.02, f" "$work/u.json" \
  && ok || fail "uneven run in JSON"
"$stallsim" run --explain --verbose "$work/u.ini" --set trace.path="$work/even.h5" --out "$work/e" > "$work/e.txt" 2>&1 &&
  ! grep -q "uneven run" "$work/e.txt" && ok || fail "an even run flagged: $(grep -i uneven "$work/e.txt")"
# a ranked cut whose interval reaches the measured run (its upper end a change of 0 or
# more) is flagged "unsure", in the terminal and the JSON, and no other cut is
y=$root/datasets/pytorch-grid-v/w1-x1-p2.h5
if [ -e "$y" ]; then
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\nfetch_scale = 1, 0.9, 0.5\n' \
    "$y" > "$work/un.ini"
  "$stallsim" run "$work/un.ini" --out "$work/un" > "$work/un.txt" 2>&1 || fail "run: $(tail -3 "$work/un.txt")"
  "$stallsim" run "$work/un.ini" --out "$work/unj" --json 2>/dev/null > "$work/un.json" || fail "run --json"
  $py - "$work/un.txt" "$work/un.json" <<'PY' && ok || fail "the unsure flag"
import json, re, sys
text = open(sys.argv[1]).read()
top = json.load(open(sys.argv[2]))["ranking"]["top"]
full = re.findall(r"^  \d\. .*$", text, re.M)
assert top and len(full) == len(top), (len(full), len(top), text)
seen = set()
for t, line in zip(top, full):
    unsure = t["change_hi_pct"] is None or t["change_hi_pct"] >= 0
    assert t["interval_reaches_no_change"] == unsure, t
    assert ("unsure" in line.split("steady")[-1]) == unsure, line
    seen.add(unsure)
# the legend, in its long or its short form (the short one where several flags are shown)
legend = "unsure = interval reaches no change" in text or "unsure: may not gain" in text
assert legend == (True in seen), text
assert seen == {True, False}, "this sweep should have sure and unsure cuts: %s" % seen
print("unsure flags:", [t["interval_reaches_no_change"] for t in top])
PY
else
  echo "note: $y is missing: the unsure flag is not checked"
fi
finish
