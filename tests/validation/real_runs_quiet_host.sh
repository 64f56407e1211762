#!/usr/bin/env bash
# real_runs_quiet_host.sh - [pipeline] quiet_host against real runs: bases recorded beside
# other processes (datasets/pytorch-quiet-host, -b) predict quiet runs of other worker counts;
# with quiet_host the mean |error| is less than without, in both measures, and at least as
# many quiet runs fall inside the intervals (scripts/validation/quiet_host_check.py).
. "$(dirname "$0")/../lib/lib_real_runs.sh" "$@"
for set in pytorch-quiet-host pytorch-quiet-host-b; do
  [ -d "$ds/$set" ] || { echo "skipped: $set is missing"; continue; }
  /usr/bin/python3 "$src/scripts/validation/quiet_host_check.py" --stallsim "$stallsim" --data "$ds/$set" \
    > "$work/$set.txt" 2>&1 || { fail "$set: quiet_host_check.py: $(tail -3 "$work/$set.txt")"; continue; }
  /usr/bin/python3 - "$work/$set.txt" <<'PY' && ok || fail "$set: quiet_host does not beat the recorded load: $(tail -2 "$work/$set.txt")"
import re, sys
got = {}
for line in open(sys.argv[1]):
    m = re.match(r"quiet_host = (\w+): mean \|error\| steady ([\d.]+) %, whole run ([\d.]+) % over (\d+) predictions; "
                 r"quiet runs inside: (\d+) and (\d+) of (\d+)", line)
    if m:
        got[m.group(1)] = [float(x) for x in m.groups()[1:]]
keep, alone = got["false"], got["true"]
assert alone[2] == keep[2] > 0, (keep, alone)
assert alone[0] < keep[0] and alone[1] < keep[1], (keep, alone)
assert alone[3] + alone[4] >= keep[3] + keep[4], (keep, alone)
PY
done

# the answer on a quiet host: each ranked cut is a change against the baseline replay (the
# job alone), recomputed here from summary.csv's run_time; its fidelity is not measured, so
# no warning; without quiet_host the same cuts are against the measured run
base=$ds/pytorch-quiet-host-b/hog-w1-a.h5
if [ -e "$base" ]; then
  for quiet in true false; do
    printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2, 3\npersistent_workers = auto, true\n[pipeline]\nquiet_host = %s\n' \
      "$base" "$quiet" > "$work/answer-$quiet.ini"
    "$stallsim" run "$work/answer-$quiet.ini" --out "$work/answer-$quiet" > "$work/answer-$quiet.txt" 2>&1 ||
      fail "answer, quiet_host = $quiet: run: $(tail -2 "$work/answer-$quiet.txt")"
    "$stallsim" run "$work/answer-$quiet.ini" --out "$work/answer-$quiet" --json > "$work/answer-$quiet.json" 2>/dev/null ||
      fail "answer, quiet_host = $quiet: run --json"
    /usr/bin/python3 - "$work/answer-$quiet" "$quiet" <<'PY' && ok || fail "answer, quiet_host = $quiet: the cuts' reference"
import csv, json, sys
out, quiet = sys.argv[1], sys.argv[2] == "true"
rows = {r["scenario"]: r for r in csv.DictReader(open(out + "/summary.csv"))}
base = "pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1"
ref = base if quiet else "measured"
d = json.load(open(out + ".json"))
text = open(out + ".txt").read()
top = d["ranking"]["top"]
assert top, "no cut ranked"
for cut in top:
    assert cut["against"] == ref, (cut["scenario"], cut["against"])
    want = 100 * (float(rows[cut["scenario"]]["run_time"]) / float(rows[ref]["run_time"]) - 1)
    assert abs(cut["change_pct"] - want) < 1e-6, (cut["scenario"], cut["change_pct"], want)
    assert cut["change_pct"] <= -1.0, cut
# persistent workers alone change the quiet job by under 1 %: not a cut against the job alone
pw = [c for c in top if c["scenario"] == base + "_pw-true"]
if quiet:
    assert not pw and d["ranking"]["baseline_error_pct"]["pipeline"] is None, (pw, d["ranking"]["baseline_error_pct"])
    assert "fidelity: not measured (quiet_host" in text and "the model does not describe" not in text, text
    assert "each against the baseline replay *" in text, text
else:
    assert "each against the baseline replay" not in text, text
# a base recorded beside other processes: where no cut is sure, the answer says why
if "none is sure to help" in text:
    assert "its base shared its cores (" in text and "record it again on quiet cores" in text, text
print("quiet_host = %s: %d cuts against %s" % (quiet, len(top), ref))
PY
  done
  # every baseline row of the model is the job alone (workers = auto, 1: both replay the
  # trace's loader): none is said to miss the measured run
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 1, 2\n[pipeline]\nquiet_host = true\n' \
    "$base" > "$work/answer-two.ini"
  "$stallsim" run "$work/answer-two.ini" --out "$work/answer-two" --explain > "$work/answer-two.txt" 2>&1 &&
    [ "$(grep -c "not measured: with \[pipeline\] quiet_host" "$work/answer-two.txt")" -eq 2 ] &&
    ! grep -q "does not describe" "$work/answer-two.txt" && ok || fail "answer, two baseline rows: $(cat "$work/answer-two.txt")"
  # others under 5 % of the cores: the baseline replay stays a replay of the measured run
  /usr/bin/python3 - "$ds/pytorch-quiet-host-b/quiet-w1-a.h5" "$work/calm.h5" <<'PY' || fail "python edits (calm)"
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    f["host_cpu_busy"][...] = f["host_cpu_job"][()] + 0.02
PY
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2, 3\n[pipeline]\nquiet_host = true\n' \
    "$work/calm.h5" > "$work/answer-calm.ini"
  "$stallsim" run "$work/answer-calm.ini" --out "$work/answer-calm" --json > "$work/answer-calm.json" 2>/dev/null &&
    /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['ranking']
assert r['baseline_error_pct']['pipeline'] is not None and all(c['against'] == 'measured' for c in r['top']), r
" "$work/answer-calm.json" && ok || fail "answer, others under 5 %: $(head -c 600 "$work/answer-calm.json")"
  # a base whose others took most of the cores: its intervals have no upper bound (the bound's
  # denominator is not positive); the answer, compare --match and the JSON say so
  /usr/bin/python3 - "$base" "$work/crowded.h5" <<'PY' || fail "python edits (crowded)"
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    f["host_cpu_busy"][...] = 1.0
    f["host_cpu_job"][...] = 0.2
PY
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\n' "$work/crowded.h5" > "$work/crowded.ini"
  "$stallsim" run "$work/crowded.ini" --out "$work/crowded" > "$work/crowded.txt" 2>&1 &&
    "$stallsim" run "$work/crowded.ini" --out "$work/crowded" --json > "$work/crowded.json" 2>/dev/null &&
    "$stallsim" compare "$work/crowded" "$ds/pytorch-quiet-host-b/quiet-w2-a.h5" --match > "$work/crowded-cmp.txt" 2>&1 &&
    /usr/bin/python3 - "$work/crowded" <<'PY' && ok || fail "an interval open above: $(cat "$work/crowded.txt" "$work/crowded-cmp.txt")"
import csv, json, re, sys
out = sys.argv[1]
row = [r for r in csv.DictReader(open(out + "/summary.csv")) if r["scenario"].endswith("_w-2_p2_fs1_cs1")][0]
assert row["run_time_lo"] and not row["run_time_hi"], row
text = open(out + ".txt").read()
assert re.search(r"pipe W=2 +[-+][\d.]+% \([-+][\d.]+% … no bound\)", text), text
cut = json.load(open(out + ".json"))["ranking"]["top"][0]
assert cut["change_lo_pct"] is not None and cut["change_hi_pct"] is None and cut["interval_reaches_no_change"], cut
cmp = open(out + "-cmp.txt").read()
assert re.search(r"quiet-w2-a.h5 .* yes\*  .*\(90%: [\d.]+ … no bound\)", cmp), cmp
PY
else
  echo "skipped: the answer on a quiet host ($base is missing)"
fi
finish
