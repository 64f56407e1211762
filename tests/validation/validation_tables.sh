#!/usr/bin/env bash
# validation_tables.sh - the generated validation tables are up to date and consistent.
# scripts/validation/tables.py regenerates them into a scratch folder. The test fails when
# the committed datasets/VALIDATION-tables.md or datasets/validation-points.csv differ.
# It also recomputes every row's error from its predicted and real values, checks that the
# held-out rows are exactly those of the sets recorded after the last freeze, the calibration
# rows those of the calibration grids (intervals.py CAL), and that VALIDATION.md and README.md quote the summary as generated. Skipped (77) without numpy and matplotlib for /usr/bin/python3.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
root=$(cd "$src" && pwd)
$py -c "import h5py, numpy, matplotlib" 2>/dev/null ||
  { echo "skipped: $py lacks h5py, numpy or matplotlib"; exit 77; }
[ -d "$root/datasets/pytorch-startup" ] || { echo "skipped: datasets/pytorch-startup is missing"; exit 77; }
md=$root/datasets/VALIDATION-tables.md
pts=$root/datasets/validation-points.csv
export MPLCONFIGDIR=$work/mplconfig

# same_file COMMITTED GENERATED: fails with the first differing lines
same_file() {
  if cmp -s "$1" "$2"; then ok
  else fail "$1 is out of date (run /usr/bin/python3 scripts/validation/tables.py): $(diff "$1" "$2" | head -6)"; fi
}

# 1. regenerated, the files are the committed ones
if $py "$root/scripts/validation/tables.py" --stallsim "$stallsim" --out "$work/gen" --no-plot > "$work/log" 2>&1
then ok; else fail "tables.py failed: $(tail -5 "$work/log")"; fi
same_file "$md" "$work/gen/VALIDATION-tables.md"
same_file "$pts" "$work/gen/validation-points.csv"

# the comparison above can fail: one changed digit in a copy is seen
sed '2s/[0-9]/#/' "$pts" > "$work/changed.csv"
cmp -s "$work/changed.csv" "$work/gen/validation-points.csv" && fail "a changed copy compares equal" || ok

# 2. every row's error is predicted / real - 1, to the CSV's rounding
$py - "$pts" > "$work/check" 2>&1 <<'PY' && ok || fail "points: $(head -5 "$work/check")"
import csv, sys
HELD = ("pytorch-startup", "pytorch-startup-b", "pytorch-startup-c", "pytorch-startup-d", "pytorch-startup-e",
        "pytorch-startup-f", "pytorch-startup-g", "pytorch-startup-h", "pytorch-startup-i", "pytorch-startup-j",
        "pytorch-startup-k", "pytorch-startup-l", "pytorch-startup-m", "pytorch-startup-n", "pytorch-grid-zq",
        "pytorch-grid-zr", "pytorch-startup-o", "pytorch-eval", "pytorch-eval-r0",
        "pytorch-eval-4r", "pytorch-eval-slow", "pytorch-grid-zs")
CAL = tuple("pytorch-grid-" + c for c in ("u", "zc", "zl", "z", "za", "zb", "zd", "ze", "zf", "zh", "zi", "zj", "zk",
                                          "zm", "zn", "zo", "zp"))
bad, n, splits = [], 0, set()
for r in csv.DictReader(open(sys.argv[1])):
    n += 1
    p, q, e = float(r["predicted"]), float(r["real"]), float(r["error_pct"])
    if abs(100 * (p / q - 1) - e) > 0.01 + 1e-4 * abs(e):
        bad.append("%s %s: error %s, predicted/real gives %.3f" % (r["dataset"], r["target"], e, 100 * (p / q - 1)))
    if r["kind"] not in ("steady", "run"):
        bad.append("kind %s" % r["kind"])
    want = "held-out" if r["dataset"] in HELD else "calibration" if r["dataset"] in CAL else "dev"
    if r["split"] != want:
        bad.append("%s marked %s" % (r["dataset"], r["split"]))
    # each point's goal: 2 % for a baseline replay, 5 or 8 % for a prediction
    if r["goal_pct"] not in (("2",) if r["scenario"] == "baseline replay" else ("5", "8")):
        bad.append("%s %s %s: goal %s" % (r["dataset"], r["target"], r["kind"], r["goal_pct"]))
    # (a bound whose denominator is not positive is left out: MODELS-pipeline.md, "Intervals")
    if r["lo"] and r["hi"] and not 0 < float(r["lo"]) <= float(r["hi"]):
        bad.append("%s %s: interval %s to %s" % (r["dataset"], r["target"], r["lo"], r["hi"]))
    splits.add((r["split"], r["kind"]))
if n < 1000 or len(splits) != 6:
    bad.append("%d rows, split and kind pairs %s" % (n, sorted(splits)))
print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
PY

# the summary's "within its goal" counts, recounted from the points and their goals
$py - "$pts" "$md" > "$work/goals" 2>&1 <<'PY' && ok || fail "within its goal: $(head -5 "$work/goals")"
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
label = {"dev": "development", "calibration": "calibration", "held-out": "held out"}
want = {}
for r in rows:
    what = "baseline replay" if r["scenario"] == "baseline replay" else "prediction"
    key = (label[r["split"]], "%s (%s)" % (what, "steady state" if r["kind"] == "steady" else "whole run"))
    n, met = want.get(key, (0, 0))
    want[key] = (n + 1, met + (abs(float(r["error_pct"])) <= float(r["goal_pct"])))
seen = 0
for l in open(sys.argv[2]):
    c = [x.strip() for x in l.strip().strip("|").split("|")]
    if len(c) == 9 and (c[0], c[1]) in want:
        n, met = want[(c[0], c[1])]
        assert int(c[2]) == n and c[6] == "%d (%.0f %%)" % (met, 100.0 * met / n), (c, n, met)
        seen += 1
assert seen == len(want), (seen, sorted(want))
PY
# 3. VALIDATION.md quotes the summary table as generated
awk '/^## Summary/ { s = 1; next } /^## / { s = 0 } s && /^\| (development|calibration|held out) \|/' "$md" > "$work/summary"
[ "$(wc -l < "$work/summary")" -ge 6 ] && ok || fail "no summary rows in $md"
while IFS= read -r line; do
  grep -qxF "$line" "$root/datasets/VALIDATION.md" && ok || fail "VALIDATION.md lacks the summary row: $line"
done < "$work/summary"
# and README's trust table quotes the same rows
while IFS= read -r line; do
  grep -qxF "$line" "$root/README.md" && ok || fail "README.md's trust table lacks the summary row: $line"
done < "$work/summary"
finish
