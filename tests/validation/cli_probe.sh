#!/usr/bin/env bash
# cli_probe.sh - a synchronous trace's probe of one worker (MODELS-pipeline.md, "From a
# synchronous trace") against values computed here from the trace itself: each batch's
# delivery, the epochs' first stalls, and the time between passes and after the last, of a
# scenario with workers, with the probe's rule on and ablated (sync_probe).
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
export PYTHONPATH="$src/tests/lib${PYTHONPATH:+:$PYTHONPATH}" # wall_ratio.py
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
trace=$(cd "$src" && pwd)/datasets/pytorch-grid-zc/w0-x1-p2.h5 # 4 ranks, synchronous, probed, 2 epochs
[ -e "$trace" ] || { echo "skipped: $trace is missing"; exit 77; }

# The same trace with a probe's second pass (recorder probe file 2), whose lead and start-up
# differ from the first pass's: epochs after the first take them.
$py - "$trace" "$work/next.h5" <<'PY' || fail "a copy with the probe's second pass"
import shutil, sys, h5py
shutil.copyfile(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    f["probe_next_lead_time"] = 0.4 * f["probe_lead_time"][:]
    f["probe_next_startup_time"] = 0.5 * f["probe_startup_time"][:] + 0.01
PY

# CPU sharing off: every fetch keeps its measured time, so the replay follows by hand.
cat > "$work/p.ini" <<INI
[trace]
path = $trace
[scenarios]
model = pipeline
workers = auto, 1, 8
persistent_workers = auto, true
[pipeline]
cpu_sharing = false
[output]
per_iteration = true
INI
"$stallsim" run --quiet "$work/p.ini" --out "$work/on" > "$work/on.txt" 2>&1 && ok || fail "run: $(cat "$work/on.txt")"
STALLSIM_PIPELINE_OFF=sync_probe "$stallsim" run --quiet "$work/p.ini" --out "$work/off" > "$work/off.txt" 2>&1 &&
  ok || fail "run, sync_probe ablated: $(cat "$work/off.txt")"

sed "s|^path = .*|path = $work/next.h5|" "$work/p.ini" > "$work/n.ini"
"$stallsim" run --quiet "$work/n.ini" --out "$work/n_on" > "$work/n.txt" 2>&1 &&
  STALLSIM_PIPELINE_OFF=sync_probe "$stallsim" run --quiet "$work/n.ini" --out "$work/n_off" >> "$work/n.txt" 2>&1 &&
  ok || fail "run, a probe with a second pass: $(cat "$work/n.txt")"
# with probe_next ablated, the copy predicts as the original trace, which has no second pass
STALLSIM_PIPELINE_OFF=probe_next "$stallsim" run --quiet "$work/n.ini" --out "$work/n_ab" > "$work/nab.txt" 2>&1 &&
  cmp -s "$work/n_ab/summary.csv" "$work/on/summary.csv" && ! cmp -s "$work/n_on/summary.csv" "$work/on/summary.csv" &&
  ok || fail "probe_next ablated: $(cat "$work/nab.txt")"

cat > "$work/check.py" <<'PY'
import csv, sys, h5py, numpy as np
import wall_ratio as wr
f = h5py.File(sys.argv[1], "r")
t = f["timeline"]
ep, st, ts, fs, ft, it = (t[k][:] for k in ("epoch", "stall_time", "train_start", "fetch_start", "fetch_time",
                                             "iteration_time"))
G = st.shape[1]
lead, up, dl, qp = (f["probe_%s_time" % k][:] for k in ("lead", "startup", "delivery", "stop"))
# a later epoch's lead and start-up: the probe's second pass, else its first
lead2 = f["probe_next_lead_time"][:] if "probe_next_lead_time" in f else lead
up2 = f["probe_next_startup_time"][:] if "probe_next_startup_time" in f else up
assert ("probe_next_lead_time" in f) == (sys.argv[4] == "next"), "the copy has the second pass, the original not"
stop = f["pass_stop_time"][:]
pool, cores = f["cpu_pool"][:], f["cpu_pool_cores"][:]
assert (pool == 0).all(), "one pool of cores expected"
C = float(cores[0])
first = [i for i in range(len(ep)) if i == 0 or ep[i] != ep[i - 1]]
ask = ts - st
# the rows' iterations count in the whole run at the passes' wall time over their sum
ratio = wr.wall_ratio(ep, ts, st, it)
def close(a, b, what, tol=1e-9):
    assert abs(a - b) <= tol * (1 + abs(b)), (what, a, b)
def rows(d):
    return {r["scenario"]: r for r in csv.DictReader(open(d + "/summary.csv"))}
on, off = rows(sys.argv[2]), rows(sys.argv[3])
ron, roff = h5py.File(sys.argv[2] + "/results.h5", "r"), h5py.File(sys.argv[3] + "/results.h5", "r")
# measured deliveries of the synchronous rows: max(0, stall - max(0, done - ask))
dmeas = np.maximum(0.0, st - np.maximum(0.0, fs + ft - ask))
x = (ask + it)[-1]                      # each GPU's end of the last row
for w in (1, 8):
    for pw in ("", "_pw-true"):
        name = "pipeline_fetch-none_start-none_w-%d_p2_fs1_cs1%s" % (w, pw)
        assert on[name]["error_class"] == "from a probed synchronous trace", on[name]["error_class"]
        assert off[name]["error_class"] == "from a synchronous trace", off[name]["error_class"]
        beta = max(1.0, G * w / C) / max(1.0, G / C)   # one probe worker per GPU, side by side
        keeps = pw != ""
        # 1. an epoch's first stall: each GPU's first fetch starts beta u after its ask, and its
        #    loop waits from that ask (the replay keeps the GPUs' ask lags); the delivery is the
        #    measured one plus the probe's
        stall = ron["scenarios/%s/stall" % name][:]
        for k, i in enumerate(first):
            a = ask[i]
            u = beta * (up if k == 0 else up2) if (k == 0 or not keeps) else 0.0
            want = (np.maximum(0.0, u + ft[i]) + dmeas[i] + dl).max()
            close(stall[i], want, "%s: epoch %d's first stall" % (name, k))
        # 2. the time between passes and after the last: the rule adds, where the earliest
        #    GPU g_e of epoch e starts workers, w leads and (after the first) beta stops
        add = 0.0
        for k, i in enumerate(first):
            if k > 0 and keeps:
                continue
            g = int(np.argmin(ask[i]))
            add += w * (lead[g] if k == 0 else lead2[g]) + (beta * qp[g] if k > 0 else 0.0)
        z_off = max(0.0, (x + stop[-1]).max() - x.max())
        z_on = max(0.0, (x + stop[-1] + (0.0 if keeps else beta * qp)).max() - x.max())
        rest_on = float(on[name]["run_time"]) - ratio * ron["scenarios/%s/iteration_time" % name][:].sum()
        rest_off = float(off[name]["run_time"]) - ratio * roff["scenarios/%s/iteration_time" % name][:].sum()
        close(rest_on - rest_off, add + z_on - z_off, name + ": time between passes and after the last", 1e-7)
    # 3. with 8 workers the loaders keep ahead: past each epoch's first rows every stall is a
    #    delivery, the measured one plus the probe's on the GPU that waits longest
    name = "pipeline_fetch-none_start-none_w-8_p2_fs1_cs1"
    s_on = ron["scenarios/%s/stall_time" % name][:]
    late = [i for i in range(len(ep)) if i - max(j for j in first if j <= i) >= 16]
    ahead = [i for i in late if abs(s_on[i] - (dmeas[i] + dl)).max() <= 1e-9]
    assert len(ahead) >= 0.9 * len(late), ("rows whose stalls are their deliveries", len(ahead), len(late))
print("ok")
PY
$py "$work/check.py" "$trace" "$work/on" "$work/off" first > "$work/check.txt" 2>&1 &&
  ok || fail "the probe's costs by hand: $(tail -5 "$work/check.txt")"
$py "$work/check.py" "$work/next.h5" "$work/n_on" "$work/n_off" next > "$work/check2.txt" 2>&1 &&
  ok || fail "the probe's costs by hand, with a second pass: $(tail -5 "$work/check2.txt")"

# CPU sharing on: the probe's delivery, measured after the job on idle cores, stretches by
# the scenario's stretch s1 itself (summary.csv's cpu_stretch, one pool), and by nothing
# with probe_stretch ablated; the synchronous rows' own deliveries keep theirs
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = 8\n[output]\nper_iteration = true\n' \
  "$trace" > "$work/s.ini"
"$stallsim" run --quiet "$work/s.ini" --out "$work/s_on" > "$work/s.txt" 2>&1 &&
  STALLSIM_PIPELINE_OFF=probe_stretch "$stallsim" run --quiet "$work/s.ini" --out "$work/s_off" >> "$work/s.txt" 2>&1 &&
  ok || fail "run, CPU sharing on: $(cat "$work/s.txt")"
$py - "$trace" "$work/s_on" "$work/s_off" <<'PY' && ok || fail "the probe's delivery stretched by s1"
import csv, sys, h5py, numpy as np
t = h5py.File(sys.argv[1], "r")
st, ts, fs, ft = (t["timeline"][k][:] for k in ("stall_time", "train_start", "fetch_start", "fetch_time"))
ask = ts - st
dmeas = np.maximum(0.0, st - np.maximum(0.0, fs + ft - ask))
dl = t["probe_delivery_time"][:]
name = "pipeline_fetch-none_start-none_w-8_p2_fs1_cs1"
for d, on in ((sys.argv[2], 1), (sys.argv[3], 0)):
    row = list(csv.DictReader(open(d + "/summary.csv")))[1]
    s1 = float(row["cpu_stretch"])
    assert s1 > 1.2, s1  # 8 workers per GPU crowd the cores
    k = (h5py.File(d + "/results.h5", "r")["scenarios/%s/stall_time" % name][:] - dmeas) / dl
    # past each epoch's first rows the loaders keep ahead: each stall is its deliveries
    share = np.mean(np.abs(k - (s1 if on else 1.0)) <= 1e-9)
    assert share >= 0.9, (d, s1, share)
PY

# the probe's class has an interval where its calibration runs give one, the ablated none of it
$py - "$work/on/summary.csv" <<'PY' && ok || fail "the probed rows' intervals"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["error_class"] == "from a probed synchronous trace":
        lo, hi, p = r["iter_time_lo"], r["iter_time_hi"], float(r["iter_time_mean"])
        assert lo and hi and float(lo) <= p * 1.5 and float(hi) >= p / 1.5, r
PY
finish
