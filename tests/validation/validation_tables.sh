#!/usr/bin/env bash
# validation_tables.sh - the generated validation tables are up to date and consistent.
# scripts/validation/tables.py regenerates them into a scratch folder. The test fails when
# the committed datasets/VALIDATION-tables.md or datasets/validation-points.csv differ.
# It also recomputes every row's error from its predicted and real values, checks that the
# held-out rows are exactly those of the sets recorded after the last freeze, the calibration
# rows pytorch-grid-u's, and that VALIDATION.md and README.md quote the summary as generated. Skipped (77) without numpy and matplotlib for /usr/bin/python3.
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
HELD = ("pytorch-startup", "pytorch-startup-b", "pytorch-grid-z", "pytorch-grid-za")
CAL = ("pytorch-grid-u",)
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
    if r["lo"] and not 0 < float(r["lo"]) <= float(r["hi"]):
        bad.append("%s %s: interval %s to %s" % (r["dataset"], r["target"], r["lo"], r["hi"]))
    splits.add((r["split"], r["kind"]))
if n < 1000 or len(splits) != 6:
    bad.append("%d rows, split and kind pairs %s" % (n, sorted(splits)))
print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
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
