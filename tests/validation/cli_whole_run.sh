#!/usr/bin/env bash
# cli_whole_run.sh - the whole run against values computed here from the trace itself: the
# baseline replays every epoch's start (run_time, epoch_start_time), an epoch's start as
# other workers and persistent workers change it (MODELS-pipeline.md, "An epoch's start"),
# the ranking by the whole run's time with each cut's steady change and pay-off, the
# stall outside the summary, and the same numbers at 1, 2 and 3 ranks.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
export PYTHONPATH="$src/tests/lib${PYTHONPATH:+:$PYTHONPATH}" # wall_ratio.py
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
trace=$(cd "$src" && pwd)/datasets/pytorch-disk/sm-w8-a.h5 # 2 ranks, 8 workers each on 2 cores, 2 epochs
[ -e "$trace" ] || { echo "skipped: $trace is missing"; exit 77; }

# CPU sharing off: every fetch and delivery keeps its measured time, so an epoch's first
# row follows from the trace by hand. With GPU g's first ask a, start-up u = fs - a > 0,
# fetch f and measured delivery d = stall - (u + f): a scenario's start-up is beta u, its
# stall beta u + f + d = stall + (beta - 1) u; beta = max(1, N1 / C) / max(1, N0 / C) with
# N the workers of both ranks on the pool's C = 2 cores (16 in the trace): 16 workers per
# rank 2, 1 worker 1/8; persistent workers after the first epoch: the ask (beta = 0).
cat > "$work/wr.ini" <<INI
[trace]
path = $trace
[scenarios]
model = pipeline
workers = auto, 1, 16
persistent_workers = auto, true
[pipeline]
cpu_sharing = false
[output]
per_iteration = true
INI
"$stallsim" run --explain --verbose "$work/wr.ini" --set output.rank_by=run --out "$work/r1" > "$work/r1.txt" 2>&1 && ok || fail "run: $(cat "$work/r1.txt")"
$py - "$trace" "$work/r1" <<'PY' && ok || fail "an epoch's start against the hand-worked values"
import csv, sys, h5py, numpy as np
import wall_ratio as wr
t = h5py.File(sys.argv[1], "r")["timeline"]
ep, st, ts, fs, it = t["epoch"][:], t["stall_time"][:], t["train_start"][:], t["fetch_start"][:], t["iteration_time"][:]
first = [i for i in range(len(ep)) if i == 0 or ep[i] != ep[i - 1]]
u = {i: fs[i] - (ts[i] - st[i]) for i in first}
assert all((u[i] > 0).all() for i in first), u
rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[2] + "/summary.csv"))}
res = h5py.File(sys.argv[2] + "/results.h5", "r")
def close(a, b, what, tol=1e-9):
    assert abs(a - b) <= tol * (1 + abs(b)), (what, a, b)
# measured: the passes' wall time (each epoch from its earliest first ask to the last GPU's
# end of its last row), with the time between passes (no pass starts in this trace: from the
# last GPU's end of an epoch to the next epoch's earliest first ask); each epoch's first
# row's largest stall
between = sum(max(0.0, (ts[i] - st[i]).min() - (ts[i - 1] - st[i - 1] + it[i - 1]).max()) for i in first if i > 0)
assert between > 0, between
span, ratio = wr.span(ep, ts, st, it), wr.wall_ratio(ep, ts, st, it)
assert ratio < 1, ratio  # (the GPUs' asks scatter in this trace)
close(float(rows["measured"]["run_time"]), span + between, "measured run_time")
close(float(rows["measured"]["epoch_start_time"]), np.mean([st[i].max() for i in first]) + between / len(first),
      "measured start")
base = "pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1"
close(float(rows[base]["run_change_pct"]), 0.0, "baseline run change", 1e-9)
for name, beta0, beta1 in (("w-16_p2_fs1_cs1", 2.0, 2.0), ("w-1_p2_fs1_cs1", 1 / 8, 1 / 8),
                           ("w-auto_p2_fs1_cs1_pw-true", 1.0, 0.0), ("w-16_p2_fs1_cs1_pw-true", 2.0, 0.0)):
    scen = "pipeline_fetch-none_start-none_" + name
    stall = res["scenarios/" + scen + "/stall"][:]
    want = [(st[i] + ((beta0 if k == 0 else beta1) - 1) * u[i]).max() for k, i in enumerate(first)]
    for k, i in enumerate(first):
        close(stall[i], want[k], "%s: epoch %d's first stall" % (scen, k), 1e-9)
    close(float(rows[scen]["epoch_start_time"]), np.mean(want) + between / len(first), scen + " epoch_start_time")
# the first asks (MODELS-pipeline.md, "The first asks"): GPU g's lead over the epoch's
# earliest first ask scales by W' / W; its first fetches move with its ask. The first row
# then takes, from the earliest ask to the next ask after the last GPU has its batch:
# T0 = max_g (a'_g + stall'_g) + c, with the step c measured (the last next ask less the
# last train_start) and each GPU's next ask as measured relative to the last.
a = {i: ts[i] - st[i] for i in first}
for name, w, pw in (("w-16_p2_fs1_cs1", 16, None), ("w-1_p2_fs1_cs1", 1, None), ("w-16_p2_fs1_cs1_pw-true", 16, 1)):
    scen = "pipeline_fetch-none_start-none_" + name
    itr = res["scenarios/" + scen + "/iteration_time"][:]
    for k, i in enumerate(first):
        beta, s = (2.0 if w == 16 else 1 / 8), w / 8
        if pw and k > 0:
            beta, s = 0.0, 1.0
        lo = a[i].min()
        a1 = lo + s * (a[i] - lo)
        got = a1 + st[i] + (beta - 1) * u[i]
        nx = a[i] + it[i]
        c = nx.max() - ts[i].max()
        T0 = got.max() + c
        close(itr[i], (T0 - (nx.max() - nx) - a1).max(), "%s: epoch %d's first row" % (scen, k), 1e-9)
PY

# between passes (MODELS-pipeline.md, "Between passes"), on a trace with its pass starts and
# stops: each epoch's time before its earliest first ask that no row holds; of it, the
# earliest asking GPU's lead from its iter(loader) scales by W' / W, and its stop of the
# pass before by the start-up factor beta of its pool, N1 / C over N0 / C (each at least 1;
# N the workers of the pool's GPUs, here one pool of all 4); both 0 with no workers, and in
# later epochs 0 where the workers now persist. The time replayed in rows is the
# per-iteration series'. A healed GPU's workers are the others' median, in the trace and
# in the scenario (but N0 counts the trace's as recorded). A synchronous trace keeps its own.
trace2=$(cd "$src" && pwd)/datasets/pytorch-grid-z/w2-x1-p2.h5
sync2=$(cd "$src" && pwd)/datasets/pytorch-grid-z/w0-x1-p2.h5
[ -e "$trace2" ] && [ -e "$sync2" ] || fail "$trace2 or $sync2 is missing"
cp "$trace2" "$work/bp-heal.h5"
$py - "$work/bp-heal.h5" <<'PY' || fail "python edits (a healed GPU's workers)"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    t = f["timeline"]
    ep, ts, st = t["epoch"][:], t["train_start"][:], t["stall_time"][:]
    first = [i for i in range(len(ep)) if i == 0 or ep[i] != ep[i - 1]]
    g = int(np.argmin(ts[first[-1]] - st[first[-1]]))  # the last epoch's earliest asker
    w = f.attrs["loader_workers"][:]
    w[g] = 1  # its workers differ from the others' (2): healed, it takes theirs
    f.attrs["loader_workers"] = w
    f.attrs["heal_gpu_for_test"] = g
PY
heal_gpu=$($py -c "import h5py, sys; print(int(h5py.File(sys.argv[1], 'r').attrs['heal_gpu_for_test']))" "$work/bp-heal.h5")
# the same trace as if its workers had persisted: later epochs keep their lead and stop (k = 1)
cp "$trace2" "$work/bp-pers.h5"
$py -c "import h5py, sys; h5py.File(sys.argv[1], 'r+').attrs['persistent_workers'] = 1" "$work/bp-pers.h5" ||
  fail "python edits (persistent workers)"
# the same trace on a pool of 32 cores: the workers stop side by side, each on a core of its
# own, in every scenario (beta = 1), while the leads still scale by W' / W
cp "$trace2" "$work/bp-many.h5"
$py -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r+'); f['cpu_pool_cores'][:] = 32" "$work/bp-many.h5" ||
  fail "python edits (many cores)"
# and on two pools, GPUs 0-1 on 2 cores and 2-3 on 6: each pool's beta is its own
cp "$trace2" "$work/bp-pools.h5"
$py -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r+'); f['cpu_pool'][:] = [0, 0, 2, 2]; f['cpu_pool_cores'][:] = [2, 2, 6, 6]" \
  "$work/bp-pools.h5" || fail "python edits (two pools)"
for t in trace2 sync2 heal pers many pools; do
  case $t in
    trace2) path=$trace2 ;; sync2) path=$sync2 ;; heal) path=$work/bp-heal.h5 ;; pers) path=$work/bp-pers.h5 ;;
    many) path=$work/bp-many.h5 ;; pools) path=$work/bp-pools.h5 ;;
  esac
  cat > "$work/bp-$t.ini" <<INI
[trace]
path = $path
[scenarios]
model = pipeline
workers = auto, 0, 1, 8
persistent_workers = auto, true
heal = none, $heal_gpu
[output]
per_iteration = true
INI
  "$stallsim" run --quiet "$work/bp-$t.ini" --out "$work/bp-$t" > "$work/bp-$t.txt" 2>&1 && ok || fail "run between passes ($t): $(cat "$work/bp-$t.txt")"
done
$py - "$trace2" "$work/bp-trace2" "$sync2" "$work/bp-sync2" "$work/bp-heal.h5" "$work/bp-heal" "$heal_gpu" \
  "$work/bp-pers.h5" "$work/bp-pers" "$work/bp-many.h5" "$work/bp-many" "$work/bp-pools.h5" "$work/bp-pools" <<'PY' && ok || fail "between passes against the hand-worked values"
import csv, sys, h5py, numpy as np
import wall_ratio as wr
def check(trace, out, healed):
    f = h5py.File(trace, "r")
    trace_keeps = int(f.attrs.get("persistent_workers", 0)) == 1
    t, ps, pq = f["timeline"], f["pass_start_time"][:], f["pass_stop_time"][:]
    ep, st, ts, it = t["epoch"][:], t["stall_time"][:], t["train_start"][:], t["iteration_time"][:]
    Wt = [int(x) for x in f.attrs["loader_workers"]]
    pool, cores = f["cpu_pool"][:], f["cpu_pool_cores"][:]  # each GPU's pool (its first GPU) and its cores
    first = [i for i in range(len(ep)) if i == 0 or ep[i] != ep[i - 1]]
    assert len(ps) == len(pq) == len(first), (ps.shape, pq.shape, first)
    B, L, S, G = [], [], [], []
    for e, i in enumerate(first):
        ask = ts[i] - st[i]
        g = int(np.argmin(ask))
        b = ask[g] - ps[e][g] if e == 0 else max(0.0, ask[g] - (ts[i - 1] - st[i - 1] + it[i - 1]).max())
        l = min(b, max(0.0, ask[g] - ps[e][g]))
        B.append(b), L.append(l), S.append(min(pq[e - 1][g], b - l) if e > 0 else 0.0), G.append(g)
    rows = {r["scenario"]: r for r in csv.DictReader(open(out + "/summary.csv"))}
    res = h5py.File(out + "/results.h5", "r")
    def close(a, b, what):
        assert abs(a - b) <= 1e-9 * (1 + abs(b)), (what, a, b)
    # after the last pass: each GPU's end of its last row, then its shutdown (the last stop);
    # the job ends with the last of them
    end = ts[-1] - st[-1] + it[-1]
    def tail(k):
        return max(0.0, max(end[g] + k(g) * pq[-1][g] for g in range(len(end))) - end.max())
    span, ratio = wr.span(ep, ts, st, it), wr.wall_ratio(ep, ts, st, it)  # every row's sum takes the ratio
    assert ratio < 1, ratio
    close(float(rows["measured"]["run_time"]), span + sum(B) + tail(lambda g: 1.0),
          trace + ": measured run_time")
    for w, pw in (("auto", 0), (0, 0), (1, 0), (8, 0), (8, 1)):
        for heal in ([], [healed]):
            name = "pipeline_fetch-none_start-none_w-%s_p2_fs1_cs1%s%s" % (w, "_pw-true" if pw else "",
                                                                        "_heal-%d" % healed if heal else "")
            if name not in rows:
                assert w == 0 and pw, name  # (no persistent_workers without workers: one scenario)
                continue
            rows_time = res["scenarios/" + name + "/iteration_time"][:].sum()
            def workers(g):  # GPU g's workers in the trace and in the scenario
                others = [k for k in range(len(Wt)) if k not in heal] if g in heal else None
                wt = round(float(np.median([Wt[k] for k in others]))) if others else Wt[g]
                ws = wt if w == "auto" else w
                if w == "auto" and not others:
                    ws = Wt[g]
                return wt, ws
            def beta(g):  # the start-up factor of GPU g's pool: its workers over its cores
                mates = [k for k in range(len(Wt)) if pool[k] == pool[g]]
                n0 = max(1.0, sum(Wt[k] for k in mates) / cores[g])
                n1 = max(1.0, sum(workers(k)[1] for k in mates) / cores[g])
                return n1 / n0
            # the persistent_workers column: the row's, auto resolved to the trace's; empty
            # where no GPU has workers (PyTorch keeps none)
            wmax = max(workers(g)[1] for g in range(len(Wt)))
            want = "" if wmax < 1 else "true" if pw or trace_keeps else "false"
            assert rows[name]["persistent_workers"] == want, (name, rows[name]["persistent_workers"], want)
            def kf(g, later, stop=False):  # GPU g's factor on its lead (or stop) in the first epoch or a later one
                wt, ws = workers(g)
                keeps = pw or trace_keeps  # the scenario's workers persist (auto: as the trace's)
                return (1.0 if wt < 1 else 0.0 if ws == 0 else (1.0 if trace_keeps else 0.0) if keeps and later
                        else 1.0 if trace_keeps and later else beta(g) if stop else ws / wt)
            want = ratio * rows_time + tail(lambda g: kf(g, True, True))  # the last shutdown scales as a later stop
            for e in range(len(first)):
                want += B[e] + (kf(G[e], e > 0) - 1) * L[e] + (kf(G[e], e > 0, True) - 1) * S[e]
            close(float(rows[name]["run_time"]), want, trace + ": " + name + " run_time")
    return rows, B, L, S
rows, B, L, S = check(sys.argv[1], sys.argv[2], int(sys.argv[7]))
assert min(L) > 0 and S[1] > 0, (L, S)  # a recording with both
rows, B, L, S = check(sys.argv[3], sys.argv[4], int(sys.argv[7]))
# the synchronous baseline keeps its lead: its whole run differs from the measured only by
# its rows' replay (about 1e-5 %; without the lead it would lose L_0, about 1e-3 %)
assert abs(float(rows["pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1"]["run_change_pct"])) < 1e-4, rows
check(sys.argv[5], sys.argv[6], int(sys.argv[7]))
check(sys.argv[8], sys.argv[9], int(sys.argv[7]))
check(sys.argv[10], sys.argv[11], int(sys.argv[7]))  # (beta = 1 there: W' / W would fail it)
check(sys.argv[12], sys.argv[13], int(sys.argv[7]))  # (two pools, two betas)
PY
# a scenario's replay does not hang on the sweep's other scenarios: with every setting given,
# W = 1 and 8 come out the same with or without an auto row beside them (a trace with pools
# calibrates either way, so its start-ups and stops scale by its pools' beta in both)
for with_auto in 0 1; do
  ws="1, 8"
  [ $with_auto = 1 ] && ws="auto, 1, 8"
  cat > "$work/bp-explicit$with_auto.ini" <<INI
[trace]
path = $trace2
[scenarios]
model = pipeline
workers = $ws
[pipeline]
worker_gap = 0.001
refill_gap = 0.001
delivery = 0.001
cpu_sharing = false
INI
  "$stallsim" run --quiet "$work/bp-explicit$with_auto.ini" --out "$work/bp-explicit$with_auto" > "$work/bp-explicit$with_auto.txt" 2>&1 ||
    fail "run with every setting given ($with_auto): $(cat "$work/bp-explicit$with_auto.txt")"
done
$py - "$work/bp-explicit0/summary.csv" "$work/bp-explicit1/summary.csv" <<'PY' && ok || fail "the same scenarios with and without an auto row"
import csv, sys
a, b = ({r["scenario"]: r for r in csv.DictReader(open(p))} for p in sys.argv[1:3])
names = [n for n in a if "_w-1_" in n or "_w-8_" in n]
assert len(names) == 2, names
for n in names:
    for col in ("run_time", "iter_time_mean", "epoch_start_time"):
        assert a[n][col] == b[n][col], (n, col, a[n][col], b[n][col])
PY

# info says the time between epochs: per epoch, and its share of the whole run (run_time)
"$stallsim" info "$trace2" > "$work/bp-info.txt" 2>&1 || fail "info $trace2"
$py - "$trace2" "$work/bp-trace2/summary.csv" "$work/bp-info.txt" <<'PY' && ok || fail "info's between epochs: $(grep between "$work/bp-info.txt")"
import csv, sys, h5py, numpy as np
import wall_ratio as wr
f = h5py.File(sys.argv[1], "r")
t, ps = f["timeline"], f["pass_start_time"][:]
ep, st, ts, it = t["epoch"][:], t["stall_time"][:], t["train_start"][:], t["iteration_time"][:]
first = [i for i in range(len(ep)) if i == 0 or ep[i] != ep[i - 1]]
each = []
for e, i in enumerate(first):
    ask = ts[i] - st[i]
    g = int(np.argmin(ask))
    each.append(ask[g] - ps[e][g] if e == 0 else max(0.0, ask[g] - (ts[i - 1] - st[i - 1] + it[i - 1]).max()))
B = sum(each)
run = float(next(csv.DictReader(open(sys.argv[2])))["run_time"])
want = "between epochs: %.3f s over the %d epochs, %.1f%% of the whole run: " % (B, len(first), 100 * B / run)
lines = open(sys.argv[3]).read().splitlines()
at = [k for k, l in enumerate(lines) if l.startswith(want)]
assert at, want
# and the whole run itself, as run's measured row has it
assert ["whole run:   %.3f s (run_time" % run in l for l in lines].count(True) == 1, (run, lines)
# the next line lists each epoch's, the first's as the time before it, then the time after
# the last (its workers' shutdown, from the pass stops)
pq = f["pass_stop_time"][:]
end = ts[-1] - st[-1] + it[-1]
T = max(0.0, (end + pq[-1]).max() - end.max())
want = "  per epoch (s): " + " ".join("%.3f%s" % (b, " (before the first)" if e == 0 else "") for e, b in enumerate(each))
want += "; after the last: %.3f" % T
assert lines[at[0] + 1] == want, (lines[at[0] + 1], want)
PY

# the ranking by the whole run (the default): the listed cuts are the largest of
# run_change_pct, each with its steady change; where the two disagree in sign, the batches
# per epoch where they balance: per epoch the run changes by D + n d (d the steady change
# per batch), zero at n = -D / d
"$stallsim" run --explain --verbose "$work/wr.ini" --out "$work/r1b" > "$work/r1b.txt" 2>&1 || fail "run (default rank_by)"
$py - "$trace" "$work/r1b" "$work/r1b.txt" <<'PY' && ok || fail "ranked by the whole run: $(grep -A7 'largest predicted' "$work/r1b.txt")"
import csv, re, sys, h5py
import wall_ratio as wr
t = h5py.File(sys.argv[1], "r")["timeline"]
ep, st, ts, it = t["epoch"][:], t["stall_time"][:], t["train_start"][:], t["iteration_time"][:]
E = len(set(ep.tolist())); n0 = len(ep) / E
# a batch's wall time: the passes' wall time over the rows' slowest iterations summed
ratio = wr.wall_ratio(ep, ts, st, it)
rows = [r for r in csv.DictReader(open(sys.argv[2] + "/summary.csv"))]
m = rows[0]
text = open(sys.argv[3]).read()
assert "largest predicted cuts of the whole run's time" in text, text
lines = re.findall(r"^  \d\. (.*?)\s+([-+][\d.]+)%(?: \([^)]*\))? whole run \(steady state ([-+][\d.]+)%(?:, gains only up to ~(\d+) batches/epoch)?;", text, re.M)
assert lines, text
cuts = sorted((float(r["run_change_pct"]), r) for r in rows[1:] if r["run_change_pct"] and float(r["run_change_pct"]) < -1.0)
for (lab, run, steady, pay), (v, r) in zip(lines, cuts):
    assert abs(float(run) - v) < 0.006 and abs(float(steady) - float(r["iter_time_change_pct"])) < 0.006, (lab, run, r["scenario"])
    d = ratio * (float(r["iter_time_mean"]) - float(m["iter_time_mean"]))
    D = (float(r["run_time"]) - float(m["run_time"])) / E - n0 * d
    # a steady change under 1 % is no change (persistent workers keep the steady state but
    # for rounding): no pay-off then
    if float(r["iter_time_change_pct"]) * v < 0 and abs(float(r["iter_time_change_pct"])) >= 1.0:
        assert pay and abs(int(pay) - (-D / d)) <= 0.5 + 1e-6, (lab, pay, -D / d)
    else:
        assert not pay, (lab, pay)
print("ranked by run:", [(l[0], l[1], l[2], l[3]) for l in lines])
PY
# the same in the JSON: a pay-off only where the steady change is 1 % or more the other way
"$stallsim" run "$work/wr.ini" --json --quiet --out "$work/r1j" > "$work/r1j.json" 2>&1 || fail "run --json"
$py - "$work/r1j.json" "$work/r1j/summary.csv" <<'PY' && ok || fail "pay-off in the JSON: $(head -c 600 "$work/r1j.json")"
import csv, json, sys
top = json.load(open(sys.argv[1]))["ranking"]["top"]
assert top, "no ranked cut"
rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[2]))}
for c in top:
    # the whole run's change in seconds: the scenario's run_time less the measured run's
    want = float(rows[c["scenario"]]["run_time"]) - float(rows["measured"]["run_time"])
    assert abs(c["run_change_s"] - want) <= 1e-9 * float(rows["measured"]["run_time"]), (c, want)
    agree = c["steady_change_pct"] * c["run_change_pct"] >= 0 or abs(c["steady_change_pct"]) < 1.0
    assert (c["payoff_batches_per_epoch"] is None) == agree, c
print("pay-offs:", [(c["scenario"], c["steady_change_pct"], c["payoff_batches_per_epoch"]) for c in top])
PY
# a steady-state gain that costs the whole run is not ranked, and says where it pays off
$py - "$work/r1b.txt" <<'PY' && ok || fail "not-ranked pay-off line: $(grep 'not ranked' "$work/r1b.txt")"
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^not ranked: (.*) cuts the steady state (-[\d.]+)% but costs the whole run \+([\d.]+)%", text, re.M)
# W = 16 on a 2-core node: no steady gain here, so no such line unless some cut has one
assert m is None or float(m.group(2)) < -1.0, text
PY
# rank_by = steady ranks by the mean iteration time, as before
"$stallsim" run --explain --verbose "$work/wr.ini" --set output.rank_by=steady --out "$work/r1s" > "$work/r1s.txt" 2>&1 &&
  grep -q "^largest predicted cuts of the mean iteration time\|^no pipeline scenario cuts\|^no scenario cuts" "$work/r1s.txt" &&
  ! grep -q "whole run (steady state" "$work/r1s.txt" && ok || fail "rank_by = steady: $(grep -A3 'largest\|no ' "$work/r1s.txt")"
"$stallsim" run --explain --verbose "$work/wr.ini" --set output.rank_by=both --out "$work/rx" > "$work/rx.txt" 2>&1
grep -q "output.rank_by = 'both' is not run or steady" "$work/rx.txt" && ok || fail "a bad rank_by: $(cat "$work/rx.txt")"

# the stall in the rows the summary leaves out (each epoch's first 11): said with its share
$py - "$trace" "$work/r1.txt" <<'PY' && ok || fail "stall outside the summary: $(grep 'outside' "$work/r1.txt")"
import re, sys, h5py
import wall_ratio as wr
t = h5py.File(sys.argv[1], "r")["timeline"]
ix, st, it = t["index"][:], t["stall_time"][:].max(axis=1), t["iteration_time"][:].max(axis=1)
out = st[ix < 11].sum() / st.sum()
# the whole run's time: the rows and the time between epochs (no pass starts: from the
# last end of an epoch to the next one's earliest ask)
ep, ts, sg, itg = t["epoch"][:], t["train_start"][:], t["stall_time"][:], t["iteration_time"][:]
a = ts - sg
# the rows in wall time, and the stall with them (counted at the same ratio)
ratio = wr.wall_ratio(ep, ts, sg, itg)
whole = ratio * itg.max(axis=1).sum() + sum(max(0.0, a[i].min() - (a[i - 1] + itg[i - 1]).max()) for i in range(1, len(ep)) if ep[i] != ep[i - 1])
m = re.search(r"^stall outside the summary \(measured\): (\d+)% of the run's stall lies in the rows the summary leaves out "
              r"\(each epoch's rows of index below 11, epochs not selected\); with them the stall is ([\d.]+)% of the whole run's time",
              open(sys.argv[2]).read(), re.M)
assert m and abs(int(m.group(1)) - 100 * out) <= 0.5 and abs(float(m.group(2)) - 100 * ratio * st.sum() / whole) <= 0.05, (m, out)
PY

# info says it too, against the same figures
"$stallsim" info "$trace" > "$work/info.txt" 2>&1 || fail "info"
$py - "$trace" "$work/info.txt" <<'PY' && ok || fail "info: stall outside the means: $(grep 'outside' "$work/info.txt")"
import re, sys, h5py
import wall_ratio as wr
t = h5py.File(sys.argv[1], "r")["timeline"]
ix, st, it = t["index"][:], t["stall_time"][:].max(axis=1), t["iteration_time"][:].max(axis=1)
ep, ts, sg, itg = t["epoch"][:], t["train_start"][:], t["stall_time"][:], t["iteration_time"][:]
a = ts - sg
# the rows in wall time, and the stall with them (counted at the same ratio)
ratio = wr.wall_ratio(ep, ts, sg, itg)
whole = ratio * itg.max(axis=1).sum() + sum(max(0.0, a[i].min() - (a[i - 1] + itg[i - 1]).max()) for i in range(1, len(ep)) if ep[i] != ep[i - 1])
m = re.search(r"^stall outside the means: (\d+)% of the run's stall lies in the rows they leave out \(each epoch's "
              r"first 11\); with them the stall is ([\d.]+)% of the whole run's time", open(sys.argv[2]).read(), re.M)
assert m and abs(int(m.group(1)) - 100 * st[ix < 11].sum() / st.sum()) <= 0.5, m
assert abs(float(m.group(2)) - 100 * ratio * st.sum() / whole) <= 0.05, m
PY

# a trace without its pools of cores: scenarios with other workers keep each worker's
# start-up as recorded (beta = 1), and run says so; a synchronous trace cannot show the
# workers' start-up that a scenario adds, and run says that too
$py - "$trace" "$work/nopools.h5" <<'PY' || fail "python edits (no pools)"
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    for k in ("cpu_pool", "cpu_pool_cores", "fetch_cpu_time", "loop_cpu_time", "fetch_wait_time", "loop_wait_time",
              "fetch_wait_start_time"):
        if k in f:
            del f[k]
PY
"$stallsim" run --explain --verbose "$work/wr.ini" --set trace.path="$work/nopools.h5" --set scenarios.persistent_workers=auto \
  --out "$work/np" > "$work/np.txt" 2>&1 && grep -q "^note: the trace records no pools of cores, so scenarios with other workers, such as pipe W=1, keep each worker's start-up" "$work/np.txt" \
  && ok || fail "the no-pools note: $(grep '^note' "$work/np.txt")"
$py - "$work/np/summary.csv" "$work/np/results.h5" "$trace" <<'PY' && ok || fail "no pools: the start-ups as recorded"
import csv, sys, h5py, numpy as np
import wall_ratio as wr
rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[1]))}
t = h5py.File(sys.argv[3], "r")["timeline"]
ep, st = t["epoch"][:], t["stall_time"][:]
first = [i for i in range(len(ep)) if i == 0 or ep[i] != ep[i - 1]]
res = h5py.File(sys.argv[2], "r")
for w in ("1", "16"):
    stall = res["scenarios/pipeline_fetch-none_start-none_w-%s_p2_fs1_cs1/stall" % w][:]
    for i in first:  # beta = 1: the first stall as measured
        assert abs(stall[i] - st[i].max()) <= 1e-9 * st[i].max(), (w, i, stall[i], st[i])
PY
sync=$(cd "$src" && pwd)/datasets/pytorch-disk/w0-a.h5
if [ -e "$sync" ]; then
  "$stallsim" run --explain --verbose "$work/wr.ini" --set trace.path="$sync" --set scenarios.persistent_workers=auto --out "$work/w0" \
    > "$work/w0.txt" 2>&1 && grep -q "^note: every GPU loads synchronously in the trace (W = 0), so the trace shows no start-up of loader workers" "$work/w0.txt" \
    && ok || fail "the synchronous-trace note: $(grep '^note' "$work/w0.txt")"
fi

# the same whole-run numbers at 2 and 3 ranks
if [ "$have_mpi" = 1 ]; then
  for np in 2 3; do
    mpirun_t $np "$stallsim" run --explain --verbose "$work/wr.ini" --out "$work/r$np" --quiet && ok || fail "run on $np ranks"
    same_file "$work/r1b/summary.csv" "$work/r$np/summary.csv" "summary at $np ranks"
  done
else
  echo "note: mpirun not found: the rank-count checks are skipped"
fi
# a trace whose workers persisted shows no start after its first epoch: persistent_workers =
# false is warned about by default (it cannot add the start), persistent_workers = true is not
pers=$src/datasets/pytorch-startup-b/w2-pers-a.h5
if [ -e "$pers" ]; then
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nprefetch = auto\npersistent_workers = auto, false\n' "$pers" > "$work/pf.ini"
  "$stallsim" run "$work/pf.ini" --out "$work/pf" > "$work/pf.txt" 2>&1 &&
    grep -q "^warning: the trace's workers persisted (persistent_workers = 1), so it shows no worker start after its first epoch: scenarios with persistent_workers = false, such as pipe pw=false, cannot add one. Their whole run is not priced" "$work/pf.txt" &&
    "$stallsim" run "$work/pf.ini" --out "$work/pj" --json > "$work/pf.json" 2>/dev/null &&
    /usr/bin/python3 -c 'import json, sys; w = json.load(open(sys.argv[1]))["warnings"]; assert any("persistent_workers = false" in x for x in w), w' "$work/pf.json" &&
    /usr/bin/python3 - "$work/pf/summary.csv" <<'PY' &&
import csv, sys
rows = {r["label"]: r for r in csv.DictReader(open(sys.argv[1]))}
false = [r for l, r in rows.items() if "pw=false" in l]
assert false and all(r["run_time_lo"] == "" and r["run_time_hi"] == "" for r in false), false
assert all(r["iter_time_lo"] != "" for r in false), false
PY
    "$stallsim" run "$work/pf.ini" --set scenarios.persistent_workers=auto,true --out "$work/pt" > "$work/pt.txt" 2>&1 &&
    ! grep -q "workers persisted" "$work/pt.txt" && ok || fail "persistent_workers = false on a persistent trace: $(grep -i persist "$work/pf.txt")"
fi

# info splits an epoch's start: the earliest asking GPU's time in iter(loader) (its first ask
# less its pass start) and in the next() that ended the pass before (its pass stop), and
# each epoch's first row's largest stall, each a mean over the epochs, from the datasets here
split=$(cd "$src" && pwd)/datasets/pytorch-eval/w1-a.h5
"$stallsim" info "$split" > "$work/info.txt" 2>&1 && $py - "$split" "$work/info.txt" <<'PY' && ok || fail "info's epoch start: $(grep -A1 "per epoch" "$work/info.txt")"
import re, sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
t = f["timeline"]
ep, ts, st = t["epoch"][()], t["train_start"][()], t["stall_time"][()]
ps, pst = f["pass_start_time"][()], f["pass_stop_time"][()]
lead, stop, first = [], [], []
for e, k in enumerate(np.flatnonzero(np.r_[True, ep[1:] != ep[:-1]])):
    ask = ts[k] - st[k]
    g = int(np.argmin(ask))
    lead.append(ask[g] - ps[e][g])
    if e > 0:
        stop.append(pst[e - 1][g])
    first.append(st[k].max())
line = [l for l in open(sys.argv[2]) if l.startswith("  an epoch's start")]
m = re.match(r"  an epoch's start, mean over the epochs: ([\d.]+) s for the old workers' shutdown, ([\d.]+) s in iter\(loader\) "
             r"\(starting the workers\), then ([\d.]+) s to the first batch", line[0])
got = [float(x) for x in m.groups()]
want = [np.mean(stop), np.mean(lead), np.mean(first)]
assert all(abs(a - b) < 6e-4 for a, b in zip(got, want)), (got, want)
PY
finish
