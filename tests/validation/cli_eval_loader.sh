#!/usr/bin/env bash
# cli_eval_loader.sh - the job's evaluation loader ([trace] eval_path) on a recorded job with
# an evaluation pass after every epoch (datasets/pytorch-eval): the measured row's whole run
# is the job's span over both loaders, computed here from the two traces' own datasets
# (pass starts, rows, pass stops, time_origin); every row's whole run is that span plus the
# changes that `run` gives on each trace alone; the span agrees with the job's own clock;
# the same at 1 and 3 ranks; and the errors name the key.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
data=$(cd "$src" && pwd)/datasets/pytorch-eval
train=$data/w1-a.h5 eval=$data/w1-a-eval.h5
[ -e "$train" ] && [ -e "$eval" ] || { echo "skipped: $train or $eval is missing"; exit 77; }

sweep() { # sweep INI TRACE [EVAL] [WARMUP]
  cat > "$1" <<INI
[trace]
path = $2
eval_path = ${3:-none}
warmup_iterations = ${4:-11}
[scenarios]
model = pipeline
workers = auto, 2, 4
persistent_workers = auto, true
heal = none, 1
INI
}
sweep "$work/both.ini" "$train" "$eval"
sweep "$work/train.ini" "$train"
sweep "$work/eval.ini" "$eval" "" 0
for w in both train eval; do
  "$stallsim" run "$work/$w.ini" --out "$work/$w" > "$work/$w.txt" 2>&1 && ok || fail "run $w: $(cat "$work/$w.txt")"
done
! grep -q "ran inside training epochs" "$work/both.txt" && ok || fail "an evaluation between the epochs called inside them"
grep -q "^evaluation loader: .* replayed under each row's loader settings" "$work/both.txt" && ok \
  || fail "the answer does not say what the evaluation loader takes: $(cat "$work/both.txt")"
grep -q "eval_path" "$work/train.txt" && ok || fail "without eval_path the answer does not point to it: $(cat "$work/train.txt")"

$py - "$train" "$eval" "$work" "$data/record.log" <<'PY' && ok || fail "the whole runs against the hand-worked span and sums"
import csv, datetime, re, sys, h5py, numpy as np
train, ev, work, log = sys.argv[1:5]

def span(path):
    """the measured whole run's start and end, s since 1970: the first epoch's earliest first
    ask's loop's iter(loader), and the last GPU's end of its last row plus its pass stop"""
    f = h5py.File(path, "r")
    t = f["timeline"]
    ep, ts, st, it = t["epoch"][:], t["train_start"][:], t["stall_time"][:], t["iteration_time"][:]
    origin = datetime.datetime.strptime(f.attrs["time_origin"].decode() if isinstance(f.attrs["time_origin"], bytes)
                                        else f.attrs["time_origin"], "%Y-%m-%dT%H:%M:%S.%f")
    o = (origin - datetime.datetime(1970, 1, 1)).total_seconds()
    ask = ts[0] - st[0]
    g = int(np.argmin(ask))
    start = min(ask[g], f["pass_start_time"][0][g])
    end = ts[-1] - st[-1] + it[-1]
    job = max(end.max(), (end + f["pass_stop_time"][-1]).max())
    return o + start, o + job

(a0, a1), (b0, b1) = span(train), span(ev)
J = max(a1, b1) - min(a0, b0)
rows = {w: {r["scenario"]: r for r in csv.DictReader(open("%s/%s/summary.csv" % (work, w)))} for w in ("both", "train", "eval")}
def close(x, y, what, tol=1e-6):
    assert abs(x - y) <= tol * (1 + abs(y)), (what, x, y)
both = rows["both"]
close(float(both["measured"]["run_time"]), J, "measured run_time: the job's span")
T, E = float(rows["train"]["measured"]["run_time"]), float(rows["eval"]["measured"]["run_time"])
assert J < T + E, (J, T, E)  # the training trace's between-pass time holds the evaluation passes
n = 0
for name, r in both.items():
    if name == "measured":
        continue
    want = J + float(rows["train"][name]["run_time"]) - T + float(rows["eval"][name]["run_time"]) - E
    close(float(r["run_time"]), want, name + " run_time")
    close(float(r["run_change_pct"]), 100 * (want / J - 1), name + " run_change_pct")
    lo, hi = float(r["run_time_lo"]), float(r["run_time_hi"])
    assert lo < float(r["run_time"]) < hi, (name, lo, hi)
    close(float(r["iter_time_mean"]), float(rows["train"][name]["iter_time_mean"]), name + " steady (the training trace's)")
    n += 1
assert n == 12, n
# the job's own clock (rank 0's, from before the first epoch to after the last evaluation
# pass): within 1 %
m = re.search(r"in ([\d.]+) s", next(l for l in open(log) if " w1-a " in l))
assert abs(J / float(m.group(1)) - 1) < 0.01, (J, m.group(1))
PY

# [pipeline] sync_every is the training loop's: the evaluation loader's replay takes 1 (it
# all-reduces no gradients), so each row adds what the evaluation trace alone adds at 1
for w in both train; do
  "$stallsim" run "$work/$w.ini" --set pipeline.sync_every=2 --out "$work/$w-se2" > "$work/$w-se2.txt" 2>&1 && ok ||
    fail "run $w, sync_every 2: $(cat "$work/$w-se2.txt")"
done
$py - "$work" <<'PY' && ok || fail "sync_every reaches the evaluation loader's replay"
import csv, sys
work = sys.argv[1]
rows = {w: {r["scenario"]: float(r["run_time"]) for r in csv.DictReader(open("%s/%s/summary.csv" % (work, w)))}
        for w in ("both", "both-se2", "train-se2", "eval")}
J, T, E = rows["both"]["measured"], rows["train-se2"]["measured"], rows["eval"]["measured"]
n = 0
for name, v in rows["both-se2"].items():
    if name == "measured":
        continue
    want = J + rows["train-se2"][name] - T + rows["eval"][name] - E
    assert abs(v - want) <= 1e-6 * want, (name, v, want)
    n += 1
assert n == 12, n
PY

# compare --with-eval: a real run of another setting summarised over both loaders, as run's
# measured row is; without it, a warning that the results count an evaluation loader
"$stallsim" compare "$work/both" "$data/w2-a.h5" --match --with-eval --csv "$work/cmp.csv" > "$work/cmp.txt" 2>&1 && ok \
  || fail "compare --with-eval: $(cat "$work/cmp.txt")"
! grep -q "warning" "$work/cmp.txt" && ok || fail "compare --with-eval warns: $(cat "$work/cmp.txt")"
sweep "$work/w2.ini" "$data/w2-a.h5" "$data/w2-a-eval.h5"
"$stallsim" run "$work/w2.ini" --out "$work/w2" --quiet && ok || fail "run on w2-a"
$py - "$work/cmp.csv" "$work/w2/summary.csv" <<'PY' && ok || fail "compare --with-eval's real whole run is not run's measured one"
import csv, sys
real = next(r for r in csv.DictReader(open(sys.argv[1])) if r["source"].endswith("w2-a.h5"))
want = float(next(csv.DictReader(open(sys.argv[2])))["run_time"])
assert abs(float(real["run_time"]) - want) <= 1e-9 * want, (real["run_time"], want)
PY
"$stallsim" compare "$work/both" "$data/w2-a.h5" --match > "$work/cmp0.txt" 2>&1
grep -q "warning: .*both counts an evaluation loader .* give --with-eval" "$work/cmp0.txt" && ok \
  || fail "compare without --with-eval does not warn: $(cat "$work/cmp0.txt")"
# and sets no whole run beside a prediction of another span
grep -q "^the whole run's time (run_time): not set beside the predictions" "$work/cmp0.txt" &&
  [ "$(grep -c "run_time" "$work/cmp0.txt")" -eq 1 ] && ok || fail "compare without --with-eval matched whole runs: $(cat "$work/cmp0.txt")"

# an evaluation loader of rank 0 alone (a Recorder of world_size 1: one GPU) takes each
# scenario less its heal: a heal row adds what its unhealed twin adds
$py - "$eval" "$work/one.h5" <<'PY' && ok || fail "a one-GPU copy of the evaluation trace"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "w") as g:
    G = int(f.attrs["gpus"])
    for k, v in f.attrs.items():
        a = np.asarray(v)
        g.attrs[k] = v[:1] if a.ndim == 1 and a.shape[0] == G else v
    g.attrs["gpus"] = np.asarray(f.attrs["gpus"]).dtype.type(1)
    def copy(name, obj):
        if isinstance(obj, h5py.Group):
            g.require_group(name)
            return
        d = obj[()]
        if d.ndim >= 1 and d.shape[-1] == G and name not in ("timeline/epoch", "timeline/index"):
            d = d[..., :1]
        ds = g.create_dataset(name, data=d)
        for k, v in obj.attrs.items():
            ds.attrs[k] = v
    f.visititems(copy)
PY
sed "s|^eval_path = .*|eval_path = $work/one.h5|" "$work/both.ini" > "$work/one.ini"
"$stallsim" run "$work/one.ini" --out "$work/one" > "$work/one.txt" 2>&1 && ok || fail "a one-GPU evaluation trace: $(cat "$work/one.txt")"
$py - "$work/one/summary.csv" "$work/train/summary.csv" <<'PY' && ok || fail "a one-GPU evaluation trace's heal rows"
import csv, sys
one = {r["scenario"]: float(r["run_time"]) for r in csv.DictReader(open(sys.argv[1]))}
alone = {r["scenario"]: float(r["run_time"]) for r in csv.DictReader(open(sys.argv[2]))}
n = 0
for name in one:
    if "_heal-" in name:
        twin = name.split("_heal-")[0]
        a, b = one[name] - alone[name], one[twin] - alone[twin]
        assert abs(a - b) <= 1e-9 * one[name], (name, a, b)
        n += 1
assert n == 6, n
PY

# compare --with-eval's errors name the trace and the option
if [ -e "$(cd "$src" && pwd)/datasets/pytorch-grid-zq/w1-x1-p2.h5" ]; then
  cp "$(cd "$src" && pwd)/datasets/pytorch-grid-zq/w1-x1-p2.h5" "$work/five.h5"
  cp "$eval" "$work/five-eval.h5"
  "$stallsim" compare "$work/five.h5" --with-eval > "$work/five.txt" 2>&1
  rc=$?
  [ $rc -eq 1 ] && grep -q "five.h5: --with-eval: .*five-eval.h5 has 2 GPUs, the training trace 5" "$work/five.txt" && ok \
    || fail "compare --with-eval on a trace of other GPUs: status $rc, $(cat "$work/five.txt")"
fi

# the same outputs at 1 and 3 ranks
if [ "$have_mpi" = 1 ]; then
  mpirun_t 3 "$stallsim" run "$work/both.ini" --out "$work/both3" --quiet > "$work/both3.txt" 2>&1 && ok \
    || fail "3 ranks: $(cat "$work/both3.txt")"
  same_file "$work/both/summary.csv" "$work/both3/summary.csv" "summary.csv at 1 and 3 ranks"
fi

# sweep = each: one list at a time (the first values; workers 2 and 4; pw true; heal 1), on
# both loaders alike
"$stallsim" run "$work/both.ini" --set scenarios.sweep=each --out "$work/each" > "$work/each.txt" 2>&1 &&
  [ "$(($(wc -l < "$work/each/summary.csv") - 1))" -eq 6 ] && grep -q "^evaluation loader: " "$work/each.txt" && ok ||
  fail "sweep = each with an evaluation loader: $(cat "$work/each.txt")"

# ranked by the steady state, persistent workers change the whole run alone (the evaluation
# loader's starts): such a cut is ranked beside the one without them, not dropped as the same
printf '[trace]\npath = %s\neval_path = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 1, 4\npersistent_workers = false, true\n[output]\nrank_by = steady\n' \
  "$data/w2-a.h5" "$data/w2-a-eval.h5" > "$work/st.ini"
"$stallsim" run "$work/st.ini" --out "$work/st" > "$work/st.txt" 2>&1
grep -q "^  [0-9]\. pipe W=4 pw=true " "$work/st.txt" && grep -q "^  [0-9]\. pipe W=4 pw=false " "$work/st.txt" && ok \
  || fail "rank_by = steady drops persistent workers: $(cat "$work/st.txt")"

# an evaluation loader without workers (made so: its recorded workers set to 0) beside a
# training loader with them: persistent_workers = true has no scenario there (PyTorch refuses
# it), so the evaluation trace takes the same scenario without persistence; the pw=true and
# pw=false rows then differ by the training trace's change alone
cp "$data/w2-a-eval.h5" "$work/sync-eval.h5"
$py - "$work/sync-eval.h5" <<'PY' || fail "python edit sync-eval"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["loader_workers"] = np.zeros_like(f.attrs["loader_workers"])
    f.attrs["workers"] = 0
PY
for w in se st0; do
  printf '[trace]\npath = %s\n%b[scenarios]\nmodel = pipeline\nworkers = auto, 4\npersistent_workers = false, true\n' \
    "$data/w2-a.h5" "$([ $w = se ] && echo "eval_path = $work/sync-eval.h5\n")" > "$work/$w.ini"
  "$stallsim" run "$work/$w.ini" --out "$work/$w" > "$work/$w.txt" 2>&1 || fail "a synchronous evaluation loader, $w: $(cat "$work/$w.txt")"
done
$py - "$work/se/summary.csv" "$work/st0/summary.csv" <<'PY' && ok || fail "persistent workers beside a synchronous evaluation loader"
import csv, sys
se, st = ({r["scenario"]: float(r["run_time"]) for r in csv.DictReader(open(p))} for p in sys.argv[1:3])
for w in ("auto",):  # (workers = 4 gives the evaluation loader 4 workers too, whose persistence counts)
    t, f = [k for k in se if "_w-%s_" % w in k and k.endswith("_pw-true")], [k for k in se if "_w-%s_" % w in k and k.endswith("_pw-false")]
    assert len(t) == 1 and len(f) == 1, (t, f)
    d_se, d_st = se[t[0]] - se[f[0]], st[t[0]] - st[f[0]]
    assert abs(d_se - d_st) < 1e-9, (w, d_se, d_st)
PY

# an evaluation every few steps: a generated training trace with a 30 s pause in row 49's
# step (rows 50 on come 30 s later) and a generated evaluation trace placed inside it, 10 s
# after row 49's ask: accepted, with a warning that it ran inside the epochs
"$stallsim" gen -o "$work/mid.h5" --gpus 2 --iterations 100 --seed 4 > /dev/null &&
  "$stallsim" gen -o "$work/mid-eval.h5" --gpus 2 --iterations 10 --epochs 2 --seed 5 > /dev/null ||
  fail "gen the evaluation every few steps"
$py - "$work/mid.h5" "$work/mid-eval.h5" <<'PY' || fail "python edit mid"
import datetime, sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f, h5py.File(sys.argv[2], "r+") as g:
    t = f["timeline"]
    for k in ("fetch_start", "train_start"):
        v = t[k][()]
        v[50:] += 30.0
        t[k][...] = v
    it = t["iteration_time"][()]
    it[49] += 30.0
    t["iteration_time"][...] = it
    ask = float((t["train_start"][49] - t["stall_time"][49]).max())
    o = f.attrs["time_origin"]
    o = datetime.datetime.strptime(o.decode() if isinstance(o, bytes) else o, "%Y-%m-%dT%H:%M:%S.%f")
    e = g["timeline"]
    first = float((e["train_start"][0] - e["stall_time"][0]).min())
    g.attrs["time_origin"] = (o + datetime.timedelta(seconds=ask + 10.0 - first)).strftime("%Y-%m-%dT%H:%M:%S.%f")
PY
printf '[trace]\npath = %s\neval_path = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\n' "$work/mid.h5" "$work/mid-eval.h5" > "$work/mid.ini"
"$stallsim" run "$work/mid.ini" --out "$work/mid" > "$work/mid.txt" 2>&1 &&
  grep -q "warning: .*mid-eval.h5: the evaluation loader ran inside training epochs" "$work/mid.txt" && ok ||
  fail "an evaluation every few steps: $(cat "$work/mid.txt")"

# errors name the key: a missing file, another job's trace of other GPUs
sed "s|^eval_path = .*|eval_path = $work/none.h5|" "$work/both.ini" > "$work/missing.ini"
"$stallsim" run "$work/missing.ini" --out "$work/m" > "$work/m.txt" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "missing.ini:3: \[trace\] eval_path: .*none.h5" "$work/m.txt" && ok \
  || fail "a missing evaluation trace: status $rc, $(cat "$work/m.txt")"
# another run's evaluation loader: a warning that its passes lie outside the training run
sed "s|^eval_path = .*|eval_path = $data/w1-b-eval.h5|" "$work/both.ini" > "$work/mixed.ini"
"$stallsim" run "$work/mixed.ini" --out "$work/mx" > "$work/mx.txt" 2>&1
grep -q "warning: .*w1-b-eval.h5: the evaluation trace's 3 passes lie .* after the training trace's run, none between its epochs" \
  "$work/mx.txt" && ok || fail "another run's evaluation trace: $(cat "$work/mx.txt")"
"$stallsim" run "$work/mixed.ini" --out "$work/mx" --json > "$work/mx.json" 2> /dev/null
$py - "$work/mx.json" <<'PY' && ok || fail "the JSON's warnings lack the evaluation trace's: $(cat "$work/mx.json")"
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
sys.exit(0 if any("w1-b-eval.h5: the evaluation trace's 3 passes lie" in x for x in w) else 1)
PY
# the same evaluation trace moved: onto the training passes (one loop cannot wait in both
# loaders at once), or a year later (farther than the run lasts): errors, naming the key
moved() { # moved OUT SECONDS: the evaluation trace with its time_origin SECONDS later
  cp "$eval" "$1"
  $py - "$1" "$2" <<'PY'
import datetime, sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    o = f.attrs["time_origin"]
    o = o.decode() if isinstance(o, bytes) else o
    t = datetime.datetime.strptime(o, "%Y-%m-%dT%H:%M:%S.%f") + datetime.timedelta(seconds=float(sys.argv[2]))
    f.attrs["time_origin"] = t.strftime("%Y-%m-%dT%H:%M:%S.%f")
PY
}
shift=$($py -c "
import datetime, h5py
o = [h5py.File(p, 'r').attrs['time_origin'] for p in ('$train', '$eval')]
o = [datetime.datetime.strptime(x.decode() if isinstance(x, bytes) else x, '%Y-%m-%dT%H:%M:%S.%f') for x in o]
print((o[0] - o[1]).total_seconds())")
moved "$work/onto.h5" "$shift"
moved "$work/far.h5" 31536000
for m in onto far; do
  sed "s|^eval_path = .*|eval_path = $work/$m.h5|" "$work/both.ini" > "$work/$m.ini"
  "$stallsim" run "$work/$m.ini" --out "$work/$m" > "$work/$m.txt" 2>&1
  echo $? > "$work/$m.rc"
done
[ "$(cat "$work/onto.rc")" = 1 ] && grep -q "onto.ini:3: \[trace\] eval_path: .*onto.h5: GPU [01]'s training loop asked for a batch while it waited for an evaluation batch" "$work/onto.txt" && ok \
  || fail "an evaluation trace on top of the training passes: status $(cat "$work/onto.rc"), $(cat "$work/onto.txt")"
[ "$(cat "$work/far.rc")" = 1 ] && grep -q "far.ini:3: \[trace\] eval_path: .*far.h5: its passes lie .* s after the training trace's run, farther than that run lasts" "$work/far.txt" && ok \
  || fail "an evaluation trace a year later: status $(cat "$work/far.rc"), $(cat "$work/far.txt")"
[ ! -e "$work/onto/summary.csv" ] && [ ! -e "$work/far/summary.csv" ] && ok || fail "a refused pairing wrote a summary"
sed "s|^eval_path = .*|eval_path = $train|" "$work/both.ini" > "$work/same.ini"
"$stallsim" run "$work/same.ini" --out "$work/s" > "$work/s.txt" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "same.ini:3: \[trace\] eval_path: .* holds the training trace's own run" "$work/s.txt" && ok \
  || fail "the training trace as its own evaluation trace: status $rc, $(cat "$work/s.txt")"
# ... and so is one GPU of it (a 1-GPU evaluation trace is rank 0's evaluation loop)
$py - "$train" "$work/slice.h5" <<'PY' || fail "python: a 1-GPU slice"
import sys, h5py
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "w") as b:
    G = int(a.attrs["gpus"])
    for k, v in a.attrs.items():  # (per-GPU attributes: GPU 0's)
        b.attrs[k] = v[:1] if getattr(v, "shape", ()) == (G,) else v
    b.attrs["gpus"] = 1
    g = b.create_group("timeline")
    for k, d in a["timeline"].items(): g.create_dataset(k, data=d[()] if d.ndim == 1 else d[:, :1])
PY
sed "s|^eval_path = .*|eval_path = $work/slice.h5|" "$work/both.ini" > "$work/slice.ini"
"$stallsim" run "$work/slice.ini" --out "$work/sl" > "$work/sl.txt" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "slice.ini:3: \[trace\] eval_path: .*slice.h5 holds rows of the training trace ([0-9]* of its [0-9]* waits are a training ask.s own" "$work/sl.txt" &&
  [ ! -e "$work/sl/summary.csv" ] && ok || fail "one GPU of the training trace as the evaluation trace: status $rc, $(cat "$work/sl.txt")"
other=$(cd "$src" && pwd)/datasets/pytorch-grid-zq/w1-x1-p2.h5
if [ -e "$other" ]; then
  sed "s|^eval_path = .*|eval_path = $other|" "$work/both.ini" > "$work/other.ini"
  "$stallsim" run "$work/other.ini" --out "$work/o" > "$work/o.txt" 2>&1
  rc=$?
  [ $rc -eq 2 ] && grep -q "eval_path: .* has 5 GPUs, the training trace 2" "$work/o.txt" && ok \
    || fail "an evaluation trace of other GPUs: status $rc, $(cat "$work/o.txt")"
fi
finish
