#!/usr/bin/env bash
# cli_pair.sh - summary.csv and results.h5 are one unit: pairs of runs with different
# settings started together into one folder must leave a summary.csv that is the one
# written with the results.h5 beside it (its digest is results.h5's summary_csv_fnv1a64,
# and its rows are results.h5's /summary), every time; compare reports a summary.csv that
# does not belong to its results.h5.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
pairs=${STALLSIM_PAIRS:-50}

"$stallsim" gen -o "$work/t.h5" --gpus 3 --iterations 200 --seed 8 >/dev/null || fail "gen"
printf '[trace]\npath = t.h5\n[scenarios]\nfetch_align = none\n' > "$work/a.ini"
printf '[trace]\npath = t.h5\n[scenarios]\nfetch_align = min, avg, median\nstart_align = none, min\n' > "$work/b.ini"
out=$work/out
mixed=0
for i in $(seq 1 "$pairs"); do
  "$stallsim" run "$work/a.ini" --out "$out" --quiet 2>>"$work/err" &
  p1=$!
  "$stallsim" run "$work/b.ini" --out "$out" --quiet 2>>"$work/err" &
  p2=$!
  wait $p1 || fail "pair $i: run a failed: $(tail -3 "$work/err")"
  wait $p2 || fail "pair $i: run b failed: $(tail -3 "$work/err")"
  mkdir -p "$work/pair$i"
  cp "$out/results.h5" "$out/summary.csv" "$work/pair$i/"
  n=$(wc -l < "$out/summary.csv")
  [ "$n" -eq 3 ] || [ "$n" -eq 8 ] || fail "pair $i: summary.csv of $n lines: $(tail -3 "$work/err")"
  [ "$n" -eq 8 ] && mixed=$((mixed + 1))
done
ls -A "$out" | grep -q '\.tmp\.' && fail "temporaries left: $(ls -A "$out")" || ok
echo "$pairs pairs: run b's results last $mixed times, run a's $((pairs - mixed)) times"

# every pair checked from the files alone (digest and rows), independently of stallsim
$py - "$work" "$pairs" <<'PY' || fail "pairs do not match"
import csv, sys, h5py
work, n = sys.argv[1], int(sys.argv[2])
def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h
bad = 0
for i in range(1, n + 1):
    d = "%s/pair%d" % (work, i)
    raw = open(d + "/summary.csv", "rb").read()
    rows = list(csv.DictReader(raw.decode().splitlines()))
    with h5py.File(d + "/results.h5", "r") as f:
        s = f["summary"][:]
        digest = f.attrs["summary_csv_fnv1a64"]
        digest = digest.decode() if isinstance(digest, bytes) else digest
        run_id = f.attrs["run_id"]
    names = [x.decode() for x in s["scenario"]]
    ok = digest == fnv(raw) and names == [r["scenario"] for r in rows] and all(
        float(r["iter_time_mean"]) == float(v) for r, v in zip(rows, s["iter_time_mean"]))
    if not ok:
        bad += 1
        print("pair %d: summary.csv (%d rows) is not results.h5's (%d rows, run %s)" % (i, len(rows), len(names), run_id))
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && ok

# compare warns about a summary.csv from elsewhere, and not about a matching one
"$stallsim" compare "$out" >/dev/null 2>"$work/cmp-err" || fail "compare"
grep -q "is not the one written" "$work/cmp-err" && fail "compare warns about a matching pair" || ok
cp "$work/pair1/summary.csv" "$work/a.csv"
# (a run of neither a's nor b's settings: its summary.csv differs from whichever pair is there)
"$stallsim" run "$work/a.ini" --set scenarios.fetch_align=max --out "$work/other" --quiet || fail "run other"
cp "$work/other/summary.csv" "$out/summary.csv"
cmp -s "$work/other/summary.csv" "$work/pair$pairs/summary.csv" && fail "the other run's summary.csv is the pair's" || ok
"$stallsim" compare "$out" >/dev/null 2>"$work/cmp-err" || fail "compare mismatched"
grep -q "summary.csv is not the one written with results.h5" "$work/cmp-err" && ok || fail "compare does not report the mismatched pair: $(cat "$work/cmp-err")"
finish
