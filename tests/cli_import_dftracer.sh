#!/usr/bin/env bash
# cli_import_dftracer.sh - `stallsim import dftracer` on the real 8-rank DLIO trace (in
# place from the shared folder): stalls equal the loop.iter durations, iteration times the
# step spans, fetch times the reads inside each wait, all computed here independently with
# Python's json; .pfw.gz gives the same trace; `info` and `run` work on it; damaged and
# mismatched inputs give errors naming file and line.
. "$(dirname "$0")/lib_cli.sh" "$@"
py=/usr/bin/python3
tgz=$shared/reference/dftracer-dlio-8rank/dftracer-dlio.tar.gz
[ -f "$tgz" ] || { echo "skipped: no reference DLIO trace at $tgz"; exit 77; }
mkdir -p "$work/pfw" && tar -xzf "$tgz" -C "$work/pfw" || { fail "extract $tgz"; finish; exit 1; }

"$stallsim" import dftracer "$work/pfw" -o "$work/d.h5" > "$work/out.txt" 2>&1 || fail "import: $(cat "$work/out.txt")"
grep -q "8 GPUs, 20 iterations" "$work/out.txt" && ok || fail "import summary: $(cat "$work/out.txt")"
grep -q "warning" "$work/out.txt" && fail "unexpected warning: $(cat "$work/out.txt")" || ok

$py - "$work/pfw" "$work/d.h5" <<'PY' || fail "values against the events"
import datetime, json, sys, h5py, numpy as np
folder, trace = sys.argv[1], sys.argv[2]
exp = {k: np.zeros((20, 8)) for k in ("fetch_start", "fetch_time", "train_start", "iteration_time", "stall_time")}
epochs = steps = None
with h5py.File(trace) as f:
    origin = datetime.datetime.fromisoformat(f.attrs["time_origin"].decode() if isinstance(f.attrs["time_origin"], bytes) else f.attrs["time_origin"])
    origin_us = round(origin.replace(tzinfo=datetime.timezone.utc).timestamp() * 1e6)
    got = {k: f["timeline/" + k][()] for k in exp}
    gep, gix = f["timeline/epoch"][()], f["timeline/index"][()]
    assert f.attrs["fetch_times"] in (b"measured", "measured"), f.attrs["fetch_times"]
    lw = f.attrs["loader_workers"] if "loader_workers" in f.attrs else None
    assert lw is not None and list(lw) == [0] * 8, lw
for g in range(8):
    ev = []
    for line in open(f"{folder}/trace-{g}-of-8.pfw"):
        line = line.strip()
        if line in ("[", "]", ""): continue
        ev.append(json.loads(line))
    loops = [e for e in ev if e["name"] == "loop.iter"]
    yields = [e for e in ev if e["name"] == "loop.yield"]
    reads = [e for e in ev if e["name"] in ("TorchDataset.__getitem__", "HDF5Reader.read_index")]
    assert len(loops) == 20 and len(yields) == 20
    ep, prev, rows = 0, None, []
    for e in loops:
        s = int(e["args"]["step"])
        if prev is None or s <= prev: ep += 1
        prev = s
        rows.append((ep, s, e))
    for k, (ep, s, e) in enumerate(rows):
        ask, stall = e["ts"], e["dur"]
        last = k + 1 == len(rows) or rows[k + 1][0] != ep
        if last:
            y = [y for y in yields if int(y["args"]["step"]) == s and y["ts"] >= ask][0]
            end = y["ts"] + y["dur"]
        else:
            end = rows[k + 1][2]["ts"]
        inside = [r for r in reads if r["tid"] == e["tid"] and ask <= r["ts"] and r["ts"] + r["dur"] <= ask + stall]
        assert inside, (g, k)
        t0 = min(r["ts"] for r in inside); t1 = max(r["ts"] + r["dur"] for r in inside)
        exp["stall_time"][k, g] = stall / 1e6
        exp["iteration_time"][k, g] = (end - ask) / 1e6
        exp["train_start"][k, g] = (ask + stall - origin_us) / 1e6
        exp["fetch_start"][k, g] = (t0 - origin_us) / 1e6
        exp["fetch_time"][k, g] = (t1 - t0) / 1e6
        if g == 0:
            assert gep[k] == ep and gix[k] == s, (k, gep[k], gix[k], ep, s)
for k in exp:
    err = np.max(np.abs(got[k] - exp[k]))
    assert err < 1e-9, (k, err)
# the figures the README quotes: rank 0's first stall and the step span after it
print("ok: rank 0 epoch 1 step 1 stall %.6f s, iteration %.6f s" % (got["stall_time"][0, 0], got["iteration_time"][0, 0]))
PY
[ $? -eq 0 ] && ok

"$stallsim" info "$work/d.h5" > "$work/info.txt" || fail "info"
grep -Eq "^gpus: +8$" "$work/info.txt" && ok || fail "info gpus: $(head -5 "$work/info.txt")"
grep -Eq "^epochs: +5 " "$work/info.txt" && ok || fail "info epochs: $(head -5 "$work/info.txt")"

# gzip-compressed files: the same trace
mkdir -p "$work/gz" && for f in "$work"/pfw/*.pfw; do gzip -c "$f" > "$work/gz/$(basename "$f").gz"; done
"$stallsim" import dftracer "$work"/gz/*.pfw.gz -o "$work/dgz.h5" > /dev/null 2>&1 || fail "import .pfw.gz"
h5diff "$work/d.h5" "$work/dgz.h5" /timeline /timeline > /dev/null && ok || fail ".pfw.gz gives another timeline"

# the independent replay runs on it
cat > "$work/d.ini" <<INI
[trace]
path = d.h5
warmup_iterations = 0
[scenarios]
fetch_align = none, min
start_align = none
INI
"$stallsim" run "$work/d.ini" --out "$work/run" --quiet > "$work/run.txt" 2>&1 || fail "run: $(cat "$work/run.txt")"
[ -s "$work/run/summary.csv" ] && grep -q "independent" "$work/run/summary.csv" && ok || fail "run summary"

# errors name the file and the line
mkdir -p "$work/bad"
cp "$work"/pfw/*.pfw "$work/bad/"
sed -i '700s/.*/{"name":"loop.iter",/' "$work/bad/trace-3-of-8.pfw"
"$stallsim" import dftracer "$work/bad" -o "$work/x.h5" > "$work/e.txt" 2>&1 && fail "damaged JSON accepted"
grep -q "trace-3-of-8.pfw:700: not valid JSON" "$work/e.txt" && ok || fail "damaged JSON message: $(cat "$work/e.txt")"
[ ! -e "$work/x.h5" ] && ok || fail "an output was left after an error"

cp "$work/pfw/trace-3-of-8.pfw" "$work/bad/"
head -n 1000 "$work/pfw/trace-5-of-8.pfw" > "$work/bad/trace-5-of-8.pfw"
"$stallsim" import dftracer "$work/bad" -o "$work/x.h5" > "$work/e.txt" 2>&1 && fail "a short rank accepted"
grep -q "trace-5-of-8.pfw ends after .* steps, but .*trace-0-of-8.pfw has more (line [0-9]*)" "$work/e.txt" && ok ||
  fail "short rank message: $(cat "$work/e.txt")"

cp "$work/pfw/trace-5-of-8.pfw" "$work/bad/"
# rank 6 skips a step: its step 2 of epoch 1 becomes step 3
$py - "$work/bad/trace-6-of-8.pfw" <<'PY'
import sys
p = sys.argv[1]; out = []
for line in open(p):
    if '"name":"loop.iter"' in line and '"step":"2"' in line and not out.count("done"):
        line = line.replace('"step":"2"', '"step":"3"', 1); out.append("done")
    out.append(line)
open(p, "w").writelines(x for x in out if x != "done")
PY
"$stallsim" import dftracer "$work/bad" -o "$work/x.h5" > "$work/e.txt" 2>&1 && fail "a mismatched rank accepted"
grep -Eq "trace-6-of-8.pfw:[0-9]+: step 3 of epoch 1, but .*trace-0-of-8.pfw:[0-9]+ has step 2 of epoch 1" "$work/e.txt" && ok ||
  fail "mismatched rank message: $(cat "$work/e.txt")"

"$stallsim" import dftracer "$work/pfw/trace-0-of-8.pfw" "$work/pfw/trace-0-of-8.pfw" -o "$work/x.h5" > "$work/e.txt" 2>&1 &&
  fail "one rank twice accepted"
grep -q "both are rank 0" "$work/e.txt" && ok || fail "same rank message: $(cat "$work/e.txt")"
"$stallsim" import dftracer "$work/nothing" -o "$work/x.h5" > "$work/e.txt" 2>&1; [ $? -eq 1 ] && grep -q "nothing: cannot open" "$work/e.txt" && ok ||
  fail "missing input: $(cat "$work/e.txt")"
"$stallsim" import dftracer --bogus "$work/pfw" -o "$work/x.h5" > /dev/null 2>&1; [ $? -eq 2 ] && ok || fail "unknown option exit status"
"$stallsim" import dftracer --help | grep -q "loop.iter or fetch.iter" && ok || fail "help"
finish
