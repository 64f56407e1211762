#!/usr/bin/env bash
# cli_pytorch.sh - the PyTorch recorder for real: 2-rank DDP (gloo, CPU) jobs of
# scripts/workloads/pytorch_bench.py with 2 persistent loader workers and with num_workers = 0, each
# recorded, imported with `import pytorch` and replayed with `stallsim run`. Checks the
# trace (shape, attributes, monotone step ends, stall >= 0, batch k from worker k mod W,
# no overlapping fetches of one worker, batches ready before the loop got them), that the
# loop received exactly the batches it receives without the recorder, and the importer's
# refusals (ranks with different iteration counts, a missing worker file, a bad line).
# Single-process cases (tests/recorder/cases.py) include a step-based loop and a kept peek
# iterator (each pass's record ends as the next starts), an older recording of them, and a
# pass one rank made alone (named, and left out with --skip-pass).
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
need_torch
bench=(timeout -k 5 120 $py "$src/scripts/workloads/pytorch_bench.py" --nproc 2 --batch 4 --iterations 15 --epochs 2
       --latency 0.002 --compute 0.002)

for W in 2 0; do
  if [ $W -gt 0 ]; then opts=(--workers $W --prefetch 3 --persistent); else opts=(--workers 0); fi
  mkdir -p "$work/w$W"
  # each rank first iterates the same loader without the recorder (the reference batches)
  "${bench[@]}" "${opts[@]}" --out "$work/w$W/run" --dump "$work/w$W/rec" --dump-plain "$work/w$W/plain" \
    2>"$work/w$W/rec.log" || { fail "recorded bench W=$W"; cat "$work/w$W/rec.log" >&2; continue; }
  "$stallsim" import pytorch "$work/w$W/run" -o "$work/w$W.h5" >/dev/null && ok || { fail "import W=$W"; continue; }

  $py - "$work/w$W" "$work/w$W.h5" $W <<'PY' && ok || fail "recorded trace and batches, W=$W"
import glob, sys
import h5py, numpy as np, torch
d, path, W = sys.argv[1], sys.argv[2], int(sys.argv[3])
# the loop received exactly the batches it receives without the recorder
for r in (0, 1):
    a, b = torch.load("%s/rec.rank%d.pt" % (d, r)), torch.load("%s/plain.rank%d.pt" % (d, r))
    assert len(a) == len(b) == 30, (len(a), len(b))
    for (xa, ya), (xb, yb) in zip(a, b):
        assert torch.equal(xa, xb) and torch.equal(ya, yb) and xa.dtype == xb.dtype
f = h5py.File(path, "r")
t = f["timeline"]
A = f.attrs
assert A["gpus"] == 2 and A["iterations"] == 30, dict(A)
assert list(A["loader_workers"]) == [W, W], A["loader_workers"]
assert A.get("prefetch_factor", -1) == (3 if W else -1), dict(A)
assert A["batch_size"] == 4 and A["epochs"] == 2 and A["workers"] == 2 * W, dict(A)
assert A["log_type"] == "pytorch" and A["fetch_times"] == "measured", dict(A)
ep, ix = t["epoch"][:], t["index"][:]
assert list(ep) == [0] * 15 + [1] * 15 and list(ix) == list(range(15)) * 2, (ep, ix)
fs, ft, ts, it, st = (t[k][:] for k in ("fetch_start", "fetch_time", "train_start", "iteration_time", "stall_time"))
assert (st >= 0).all() and (ft >= 0).all() and (it > 0).all() and (fs >= 0).all()
ask = ts - st
end = ask + it
# each epoch's pass starts (iter(loader)) before its first ask, after the epoch before ended;
# each pass's ending next() took from 0 s (no workers, or persistent ones) to well under the
# time between the two epochs
ps, pq = f["pass_start_time"][:], f["pass_stop_time"][:]
assert ps.shape == pq.shape == (2, 2) and f["pass_start_time"].attrs["units"] == "s", (ps.shape, pq.shape)
assert (ps[0] <= ask[0]).all() and (ps[1] <= ask[15]).all() and (ps[1] >= end[14]).all(), (ps, ask[0], ask[15], end[14])
assert (pq >= 0).all() and (pq[0] <= ps[1] - end[14] + 1e-6).all(), (pq, ps[1] - end[14])
# a loader without workers is probed at close(): one worker's lead, start-up, delivery and
# stop, then a second pass's lead and start-up, each from 0 to 60 s, per rank; a loader
# with workers is not
probes = ["probe_%s_time" % k for k in ("lead", "startup", "delivery", "stop", "next_lead", "next_startup")]
if W == 0:
    assert A["probe_start_method"] in ("fork", "spawn", "forkserver"), dict(A)
    for k in probes:
        v = f[k][:]
        assert v.shape == (2,) and (v >= 0).all() and (v < 60).all(), (k, v)
    assert (f["probe_lead_time"][:] > 0).all() and (f["probe_stop_time"][:] > 0).all()
    assert (f["probe_next_lead_time"][:] > 0).all()
    for r in (0, 1):
        lines = open("%s/run.rank%d.probe.csv" % (d, r)).read().split("\n")
        assert lines[0] == "stallsim-probe,2" and lines[1].startswith("probe,"), lines
        # the file's nanoseconds are the trace's seconds
        ns = [int(v) for v in lines[1].split(",")[2:]]
        assert len(ns) == 6, lines[1]
        for k, v in zip(probes, ns):
            assert abs(f[k][r] - 1e-9 * v) <= 1e-12, (k, r, f[k][r], v)
else:
    assert not any(k in f for k in probes) and not glob.glob(d + "/run.rank*.probe.csv")
for g in range(2):
    # the step ends (the next ask) grow strictly; each step ends after the loop got its batch
    assert (np.diff(end[:, g]) > 0).all(), end[:, g]
    assert (end[:, g] >= ts[:, g]).all()
    # within an epoch the next ask is the next batch's ask
    for k in range(29):
        if ep[k] == ep[k + 1]:
            assert abs(end[k, g] - ask[k + 1, g]) < 1e-9
    # every batch was ready before the loop got it
    assert (fs[:, g] + ft[:, g] <= ts[:, g] + 1e-6).all()
    if W:
        # one worker's fetches (rows k, k+W, ... of an epoch) never overlap
        for e in (0, 1):
            rows = np.where(ep == e)[0]
            for a, b in zip(rows[:-W], rows[W:]):
                assert fs[b, g] >= fs[a, g] + ft[a, g] - 1e-9, (e, a, b, g)
import os
have_schedstat = os.path.exists("/proc/thread-self/schedstat")
# batch k of an epoch was made by worker k mod W (the raw worker files say who)
for r in (0, 1):
    files = sorted(glob.glob("%s/run.rank%d.worker*.csv" % (d, r)))
    assert len(files) == W, files
    n = 0
    for w in range(W):
        for line in open("%s/run.rank%d.worker%d.csv" % (d, r, w)):
            if line.startswith("fetch,"):
                _, p, k, wk, s, e, cpu, wait = line.strip().split(",")
                assert int(wk) == w and int(k) % W == w and int(e) >= int(s), line
                # the fetching thread's CPU time and its wait for a core (format 3; -1 where
                # the kernel has no /proc/thread-self/schedstat) fit in the fetch (clocks
                # apart: 1 ms)
                assert 0 <= int(cpu) <= int(e) - int(s) + 1000000, line
                assert (int(wait) == -1 and not have_schedstat) or 0 <= int(cpu) + int(wait) <= int(e) - int(s) + 1000000, line
                n += 1
    if W:
        assert n == 30, n
    else:
        main = [l for l in open("%s/run.rank%d.csv" % (d, r)) if l.startswith("fetch,")]
        assert len(main) == 30 and all(l.split(",")[3] == "-1" for l in main)
# the fetches' CPU time per GPU (format 2): below the median fetch, above nothing
cpu = f["fetch_cpu_time"][:]
assert cpu.shape == (2,) and (cpu > 0).all() and (cpu <= np.median(ft, axis=0) + 1e-3).all(), (cpu, np.median(ft, axis=0))
# the training processes' CPU per iteration (below the iteration), one pool of this host's cores
loop = f["loop_cpu_time"][:]
assert loop.shape == (2,) and (loop > 0).all() and (loop <= np.median(it, axis=0) + 1e-3).all(), (loop, np.median(it, axis=0))
# the waits for a core per fetch and per iteration (format 3): at least 0, and a fetch's CPU
# time and wait within the fetch, the loop's wait within the iteration
if have_schedstat:
    q, ql = f["fetch_wait_time"][:], f["loop_wait_time"][:]
    assert q.shape == (2,) and (q >= 0).all() and (cpu + q <= np.median(ft, axis=0) + 1e-3).all(), (q, cpu)
    assert ql.shape == (2,) and (ql >= 0).all() and (ql <= np.median(it, axis=0) + 1e-3).all(), (ql,)
    # each rank's mean wait over each pass's first W*P fetches (those sent out at once), from
    # the raw worker files; 0 for a synchronous rank
    qs = f["fetch_wait_start_time"][:]
    for r in (0, 1):
        meta = dict(l.strip().split(",")[1:3] for l in open("%s/run.rank%d.csv" % (d, r)) if l.startswith("meta,"))
        P = int(meta["prefetch_factor"]) if W else 0
        waits = [int(l.split(",")[7]) for w in range(W) for l in open("%s/run.rank%d.worker%d.csv" % (d, r, w))
                 if l.startswith("fetch,") and int(l.split(",")[2]) < W * P]
        want = sum(waits) / len(waits) * 1e-9 if W else 0.0
        assert (W == 0 or len(waits) == 2 * W * P) and abs(qs[r] - want) <= 1e-12 + 1e-9 * want, (r, qs[r], want, len(waits))
assert list(f["cpu_pool"][:]) == [0, 0] and list(f["cpu_pool_cores"][:]) == [len(os.sched_getaffinity(0))] * 2, \
    (f["cpu_pool"][:], f["cpu_pool_cores"][:])
# every dataset carries its units (SPEC), the per-GPU ones at the root too
units = {k: f[k].attrs.get("units") for k in f if k != "timeline"}
units.update({"timeline/" + k: f["timeline"][k].attrs.get("units") for k in f["timeline"]})
assert all(units.values()) and all(units[k] in ("s", b"s") for k in units if k.endswith("_time")), units
PY

  # the trace replays
  cat > "$work/w$W.ini" <<INI
[trace]
path = w$W.h5
warmup_iterations = 2
[scenarios]
model = independent, pipeline
workers = auto, 4
fetch_align = none
start_align = none
[output]
dir = res$W
INI
  # (the model describes this run: its pipeline baseline gets no note of being off)
  "$stallsim" run --explain --verbose "$work/w$W.ini" > "$work/run$W.out" && ! grep -q "^note: that baseline replay" "$work/run$W.out" &&
    ok || fail "stallsim run on the recorded trace, W=$W: $(grep -A1 fidelity "$work/run$W.out")"
  $py - "$work/res$W/summary.csv" <<'PY' && ok || fail "summary of the recorded trace, W=$W"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows[0]["scenario"] == "measured" and int(rows[0]["iterations"]) == 26, rows[0]
assert len(rows) == 1 + 1 + 2, [r["scenario"] for r in rows]
for r in rows:
    assert float(r["iter_time_mean"]) > 0 and float(r["stall_mean"]) >= 0, r
PY
done

# a script that never closes its Recorder: it closes as the interpreter exits, and its loader
# without workers is probed then
mkdir -p "$work/atexit"
timeout -k 5 120 $py - "$src/scripts" "$work/atexit/run" <<'PY' && [ -s "$work/atexit/run.rank0.probe.csv" ] &&
import sys
sys.path.insert(0, sys.argv[1])
import torch, torch.utils.data as tud
import stallsim_record
class DS(tud.Dataset):
    def __len__(self): return 200
    def __getitem__(self, i): return torch.ones(4) * i
rec = stallsim_record.Recorder(sys.argv[2], world_size=1)
loader = rec.wrap(tud.DataLoader(DS(), batch_size=8))
for ep in range(2):
    for b in loader:
        pass
PY
  grep -qE "^probe,(fork|spawn|forkserver)," "$work/atexit/run.rank0.probe.csv" && ok || fail "a Recorder left open: no probe at exit"

# a probe that failed on one rank, or a probe file cut short: the trace keeps no probe, and
# the import says which file and why
if [ -e "$work/w0/run.rank1.probe.csv" ]; then
  for bad in $'stallsim-probe,2\nfailed,PicklingError: cannot pickle the dataset\n' $'stallsim-probe,2\nprobe,fork,12' \
    $'stallsim-probe,2\nprobe,fork,1,2,3,4\n' $'stallsim-probe,3\nprobe,fork,1,2,3,4,5,6\n' \
    $'stallsim-probe,2\nprobe,fork,1,2,3,4,5,6,7\n' $'stallsim-probe,2\nprobe,fork,1,2,3,4,5,-6\n'; do
    rm -rf "$work/pf" && cp -r "$work/w0" "$work/pf" && printf '%s' "$bad" > "$work/pf/run.rank1.probe.csv"
    out=$("$stallsim" import pytorch "$work/pf/run" -o "$work/pf.h5" 2>&1) && grep -q "run.rank1.probe.csv: " <<<"$out" &&
      $py -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); sys.exit('probe_lead_time' in f)" "$work/pf.h5" &&
      ok || fail "a failed or cut probe: $out"
  done
fi

# a version 1 probe file (no second pass) on one rank: the trace keeps the four datasets of
# the first pass, and no second pass, and the import warns, naming that file
if [ -e "$work/w0/run.rank1.probe.csv" ]; then
  rm -rf "$work/p1" && cp -r "$work/w0" "$work/p1" && printf 'stallsim-probe,1\nprobe,spawn,1000,2000,3000,4000\n' > "$work/p1/run.rank1.probe.csv"
  out=$("$stallsim" import pytorch "$work/p1/run" -o "$work/p1.h5" 2>&1) &&
    grep -q "run.rank1.probe.csv: a probe file of version 1 (one pass) beside 1 of version 2" <<<"$out" &&
    $py - "$work/p1.h5" <<'PY' && ok || fail "a version 1 probe file: $out"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert abs(f["probe_stop_time"][1] - 4e-6) < 1e-15 and "probe_next_lead_time" not in f, list(f)
PY
  # both files with CRLF line ends: read as with LF
  rm -rf "$work/crlf" && cp -r "$work/w0" "$work/crlf" && sed -i 's/$/\r/' "$work/crlf"/run.rank*.probe.csv
  out=$("$stallsim" import pytorch "$work/crlf/run" -o "$work/crlf.h5" 2>&1) &&
    $py - "$work/crlf.h5" "$work/w0.h5" <<'PY' && ok || fail "probe files with CRLF: $out"
import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for k in ("lead", "startup", "delivery", "stop", "next_lead", "next_startup"):
    assert (a["probe_%s_time" % k][:] == b["probe_%s_time" % k][:]).all(), k
PY
fi

# a start-up crush: the W=2 run's record files with 50 ms more wait for a core on each
# pass's first W*P = 6 fetches import with /fetch_wait_start_time 50 ms higher, and the
# import warns, naming the file and the wait
if [ -e "$work/w2/run.rank0.csv" ] && [ -e /proc/thread-self/schedstat ]; then
  rm -rf "$work/crush" && cp -r "$work/w2" "$work/crush"
  $py "$src/tests/recorder/edit_records.py" fetch 7 50000000 --below 6 "$work/crush"/run.rank*.worker*.csv ||
    fail "crush: editing the record files"
  "$stallsim" import pytorch "$work/crush/run" -o "$work/crush.h5" >/dev/null 2>"$work/crush.err" || fail "crush: import"
  $py - "$work/w2.h5" "$work/crush.h5" <<'PY' && grep -q "warning: .*crush/run.rank.*csv: each epoch's first 6 fetches .* waited [0-9]* ms for a core" "$work/crush.err" &&
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r")["fetch_wait_start_time"][:], h5py.File(sys.argv[2], "r")["fetch_wait_start_time"][:]
assert np.allclose(b - a, 0.05, atol=1e-9), (a, b)
PY
    ok || fail "crush: $(cat "$work/crush.err")"
  # its advice follows the run's loader: persistent workers already, or not
  for pw in 0 1; do
    sed -i "s/^meta,persistent_workers,.*/meta,persistent_workers,$pw/" "$work/crush"/run.rank*.csv
    "$stallsim" import pytorch "$work/crush/run" -o "$work/crush$pw.h5" >/dev/null 2>"$work/crush$pw.err"
    if [ $pw = 1 ]; then want="fewer workers or a smaller prefetch_factor (its workers persist already)"; else want="persistent_workers=True, or with fewer workers"; fi
    grep -qF "predicts more steadily: record the base run with $want" "$work/crush$pw.err" && ok || fail "crush advice (persistent $pw): $(cat "$work/crush$pw.err")"
  done
  # persistent workers with a window of 4 (2 workers x prefetch_factor 2): nothing to act on,
  # no warning (the window's waits are still kept)
  sed -i "s/^meta,prefetch_factor,.*/meta,prefetch_factor,2/" "$work/crush"/run.rank*.csv
  "$stallsim" import pytorch "$work/crush/run" -o "$work/crush-small.h5" >/dev/null 2>"$work/crush-small.err" &&
    ! grep -q "each epoch's first" "$work/crush-small.err" &&
    "$stallsim" info --verbose "$work/crush-small.h5" | grep -q "^fetch_wait_start_time" && ok ||
    fail "crush (small window): $(cat "$work/crush-small.err")"
  # without it, no warning (and no slow start-up of the forked workers)
  "$stallsim" import pytorch "$work/w2/run" -o "$work/w2-again.h5" >/dev/null 2>"$work/w2-again.err" &&
    ! grep -q "each epoch's first\|first fetch began" "$work/w2-again.err" && ok ||
    fail "a warning without a crush: $(cat "$work/w2-again.err")"
  # workers slow to start (as spawned ones are): every pass made to start 2 s earlier, its
  # first fetch then 2 s after it (plus the recorded start-up), is said, with the advice
  # that follows the loader
  rm -rf "$work/slowup" && cp -r "$work/w2" "$work/slowup"
  $py "$src/tests/recorder/edit_records.py" epoch 3 -2000000000 "$work/slowup"/run.rank?.csv ||
    fail "slow start-up: editing the record files"
  for pw in 0 1 unknown; do
    if [ $pw = unknown ]; then sed -i "/^meta,persistent_workers,/d" "$work/slowup"/run.rank*.csv
    else sed -i "s/^meta,persistent_workers,.*/meta,persistent_workers,$pw/" "$work/slowup"/run.rank*.csv; fi
    "$stallsim" import pytorch "$work/slowup/run" -o "$work/slowup$pw.h5" >/dev/null 2>"$work/slowup$pw.err"
    if [ $pw = 1 ]; then
      want="the loader's 2 persistent worker processes, started by [a-z]*, took 2\.[0-9][0-9] s to start: the first pass's first fetch began that long after the pass did, on average over the ranks (up to 2\.[0-9][0-9] s, rank [01]); later passes start none"
    elif [ $pw = unknown ]; then  # the records do not say: neither persistent nor started again
      want="each pass's first fetch began 2\.[0-9][0-9] s after the pass did, on average over the ranks and passes (up to 2\.[0-9][0-9] s, rank [01]): the start-up of the loader's 2 worker processes, started by [a-z]*\. run_time counts it"
    else
      want="the loader's 2 worker processes, started by [a-z]*, start again at every pass (persistent_workers=False): each pass's first fetch began 2\.[0-9][0-9] s after the pass did, on average over the ranks (up to 2\.[0-9][0-9] s, rank [01])\. run_time counts this start-up"
    fi
    grep -q "$want" "$work/slowup$pw.err" && ok || fail "slow start-up (persistent $pw): $(cat "$work/slowup$pw.err")"
    # the figures are over the ranks, so the warning names every rank's files
    grep -qF "stallsim: warning: $work/slowup/run.rank*.csv: " "$work/slowup$pw.err" && ok ||
      fail "slow start-up names one rank's file (persistent $pw): $(cat "$work/slowup$pw.err")"
  done
fi

# a prefix that names a folder ('', '.', 'runs/') is refused: the files would land beside it
(cd "$work" && $py - "$src/scripts" <<'PY') && ok || fail "recorder: a folder as prefix"
import os, sys
sys.path.insert(0, sys.argv[1])
import stallsim_record
for p in ("", ".", "x/"):
    try:
        stallsim_record.Recorder(p, rank=0, world_size=1)
    except ValueError as e:
        assert "names a folder" in str(e), e
    else:
        raise SystemExit("Recorder(%r) was accepted" % p)
assert not [f for f in os.listdir("..") if f.endswith(".rank0.csv")], os.listdir("..")
PY

# without torch.distributed: the rank from the launcher's variables (srun's for rank 0,
# mpirun's for rank 1), set_epoch labels, a loop that leaves its first epoch early (the
# batch at which it leaves, whose step has no end, and the batches the workers prefetched
# but the loop never took are left out), persistent workers
cat > "$work/brk.py" <<'PY'
import sys, time, torch
sys.path.insert(0, sys.argv[1])
import stallsim_record
class DS(torch.utils.data.Dataset):
    def __len__(self): return 48
    def __getitem__(self, i): time.sleep(0.001); return torch.tensor([i])
l = torch.utils.data.DataLoader(DS(), batch_size=4, num_workers=2, persistent_workers=True)
rec = stallsim_record.Recorder(sys.argv[2])
l = rec.wrap(l)
assert len(l) == 12 and l.batch_size == 4 and l.num_workers == 2
for e in (5, 7):
    rec.set_epoch(e)
    got = []
    for k, b in enumerate(l):
        got.append(int(b[0, 0]))
        if e == 5 and k == 4:
            break
    assert got == list(range(0, 48, 4))[:len(got)], got
rec.close()
PY
env SLURM_PROCID=0 SLURM_NTASKS=2 $py "$work/brk.py" "$src/scripts" "$work/brk/run" 2>/dev/null &&
  env OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 $py "$work/brk.py" "$src/scripts" "$work/brk/run" 2>/dev/null &&
  "$stallsim" import pytorch "$work/brk/run" -o "$work/brk.h5" >/dev/null && ok || fail "recorded loop with break"
$py - "$work/brk.h5" <<'PY' && ok || fail "the trace of the loop with break"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
t = f["timeline"]
assert f.attrs["gpus"] == 2 and list(f.attrs["loader_workers"]) == [2, 2], dict(f.attrs)
# epoch 5 was left at its batch 4 (a 'left' record: that batch's step has no end, so it
# has no row), epoch 7 ended whole
assert list(t["epoch"][:]) == [5] * 4 + [7] * 12, t["epoch"][:]
assert list(t["index"][:]) == list(range(4)) + list(range(12)), t["index"][:]
assert (t["stall_time"][:] >= 0).all() and (t["iteration_time"][:] > 0).all()
PY
# the ranks disagree on how epoch 5 ended (rank 1's record says its next() ended the pass,
# as a rank waiting in next() under a Ctrl-C writes): the row goes all the same
cp -r "$work/brk" "$work/brk-mixed"
sed -i 's/^left,/end,/' "$work/brk-mixed/run.rank1.csv"
"$stallsim" import pytorch "$work/brk-mixed/run" -o "$work/brk-mixed.h5" >/dev/null 2>&1 && $py -c "
import sys, h5py; t = h5py.File(sys.argv[1], 'r')['timeline']
assert list(t['epoch'][:]) == [5] * 4 + [7] * 12, t['epoch'][:]" "$work/brk-mixed.h5" && ok ||
  fail "a pass one rank left and the other ended"

# single-process setups (tests/recorder/cases.py): an error in a batch that the loop skips,
# a worker_init_fn that sets the dataset's attributes, a worker that never fetches, a
# DataLoader subclass; each loop gets what it gets without the recorder, and each recording
# imports (the skipped batch's epoch with a warning: its record ends there)
if timeout -k 5 120 $py "$src/tests/recorder/cases.py" "$work/cases" > "$work/cases.txt" 2>"$work/cases.err"; then
  for c in skip_w0 skip_w2 init_fn few_batches subclass peek steploop kept_peek rank_alone rank_alone_nolabel uneven late_fetch \
    iterable_w0 iterable_w2 iterable_drop iterable_early iterable_idle nobatch_w0 nobatch_w2 nobatch_persist nobatch_map \
    break_w4 tag_pickle reuse rewrap inner_attr isinstance_init len_notimpl sync_probe thread_epochs set_attr dies_first thread_files; do
    grep -qx "ok $c" "$work/cases.txt" && ok || fail "recorder case $c: $(grep "$c" "$work/cases.txt") $(tail -3 "$work/cases.err")"
  done
  for c in skip_w0 skip_w2 init_fn few_batches peek steploop kept_peek late_fetch iterable_w0 iterable_w2 iterable_drop \
    iterable_early iterable_idle nobatch_w0 nobatch_w2 nobatch_persist nobatch_map break_w4 inner_attr isinstance_init \
    len_notimpl sync_probe; do
    "$stallsim" import pytorch "$work/cases/$c/run" -o "$work/cases-$c.h5" >/dev/null 2>"$work/cases-$c.err" && ok ||
      fail "recorder case $c: import: $(cat "$work/cases-$c.err")"
  done
  # an IterableDataset: each row holds the fetch of the batch the loop got (the worker's
  # record, exactly: tests/recorder/check_rows.py): worker 1 runs out first, the fetches'
  # numbers skip the one it returned nothing for, and a dropped short batch has no row; with
  # batch_size=None each item is a batch
  $py - "$work" "$src/tests/recorder" <<'PY' && ok || fail "IterableDataset recordings: each row's fetch"
import sys
sys.path.insert(0, sys.argv[2])
from check_rows import check
S = [(-1, j) for j in range(6)]  # synchronous: the rank file's records in order
for name, rows in (("iterable_w0", S[:3]), ("iterable_w2", [(0, 0), (1, 0), (0, 1), (0, 2)]),
                   ("iterable_drop", [(0, 0), (1, 0), (0, 1)]), ("nobatch_w0", S[:5]),
                   ("nobatch_w2", [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (0, 3), (0, 4), (0, 5)]),
                   ("nobatch_persist", [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]),
                   ("nobatch_map", [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3)])):
    check("%s/cases-%s.h5" % (sys.argv[1], name), "%s/cases/%s/run" % (sys.argv[1], name), rows)
skipped = [l.split(",")[2] for l in open("%s/cases/iterable_w2/run.rank0.worker0.csv" % sys.argv[1]) if l.startswith("fetch,0,")]
assert skipped == ["0", "2", "4"], skipped
PY
  # an IterableDataset's worker that runs out early (after 2 of the pass's 12 batches; not
  # the 2 of 4 of iterable_w2) is named, and so are workers that never deliver: the trace
  # takes the 2 that did, with the 4 x 2 batches in flight shared among them (prefetch 4);
  # and run says that the baseline replay of the early one is far off the measured run
  grep -q "iterable_early/run.rank0.worker1.csv: this worker of rank 0 delivered its last batch of pass 0 as the pass's batch 3 (from 0) of 12; 2 times in all a worker ran out that early in a pass, this one included" \
    "$work/cases-iterable_early.err" && ! grep -q "ran out early" "$work/cases-iterable_w2.err" && ok ||
    fail "an IterableDataset's worker that ran out early: $(cat "$work/cases-iterable_early.err")"
  grep -q "rank 0's loader had 4 workers, but only 2 of them fetched a batch (the others' files have no fetch record" "$work/cases-iterable_idle.err" &&
    $py -c "
import sys, h5py; a = h5py.File(sys.argv[1], 'r').attrs
assert list(a['loader_workers']) == [2] and a['prefetch_factor'] == 4 and a['workers'] == 2, dict(a)" "$work/cases-iterable_idle.h5" &&
    ok || fail "an IterableDataset's idle workers: $(cat "$work/cases-iterable_idle.err")"
  # a loop that leaves each pass after 2 batches of 4 workers: the other two fetched (their
  # batches were left), so the trace keeps 4 workers and no worker is called idle
  ! grep -q "fetched a batch" "$work/cases-break_w4.err" && $py -c "
import sys, h5py; a = h5py.File(sys.argv[1], 'r').attrs
assert list(a['loader_workers']) == [4] and a['prefetch_factor'] == 2, dict(a)" "$work/cases-break_w4.h5" &&
    ok || fail "a loop that leaves its passes early: $(cat "$work/cases-break_w4.err")"
  printf '[trace]\npath = cases-iterable_early.h5\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\n[output]\ndir = early\n' \
    > "$work/early.ini"
  "$stallsim" run --explain --verbose "$work/early.ini" > "$work/early.out" 2>&1 &&
    grep -q "^note: that baseline replay is [0-9.]*% off the measured run, so the model does not describe this run" "$work/early.out" &&
    ok || fail "run on a trace whose worker ran out early: $(grep -A1 fidelity "$work/early.out")"
  # a step-based loop and a kept peek iterator: every pass's record ends before the next
  # starts (in file order), so every batch is in the trace (3 x 4, and 1 + 2 x 4), and the
  # last batch of a pass ends where the next pass starts (not after its workers started)
  $py - "$work/cases" "$work/cases-steploop.h5" "$work/cases-kept_peek.h5" <<'PY' && ok || fail "step loop, kept peek: records and traces"
import sys, h5py, numpy as np
d = sys.argv[1]
# the step loop's passes are taken whole (4 of 4 batches), the peek's pass of 1 batch is
# left (the batch taken by next(iter(loader)) has no step: no row)
for name, path, rows in (("steploop", sys.argv[2], 12), ("kept_peek", sys.argv[3], 8)):
    recs = [l.split(",")[:2] for l in open("%s/%s/run.rank0.csv" % (d, name)) if l.startswith(("epoch,", "end,", "left,"))]
    kinds = [k if k == "epoch" else "end" for k, _ in recs]
    assert kinds == ["epoch", "end"] * (len(kinds) // 2), (name, recs)
    assert [int(p) for _, p in recs] == sorted(int(p) for _, p in recs), (name, recs)
    t = h5py.File(path, "r")["timeline"]
    it = t["iteration_time"][:, 0]
    assert len(it) == rows and (it > 0).all(), (name, it)
PY
  [ -e "$work/cases-steploop.h5" ] && [ -e "$work/cases-kept_peek.h5" ] &&
    ! grep -q "no 'end' record" "$work/cases-steploop.err" "$work/cases-kept_peek.err" && ok || fail "a pass without its end record"
  # the kept iterator's worker wrote pass 0's batch 3 after pass 1's fetches: passed over
  # (and the kept pass's one batch, taken by next() and left, has no row: 2 x 4)
  $py -c "
import sys, h5py; t = h5py.File(sys.argv[1], 'r')['timeline']
assert t['iteration_time'].shape == (8, 1), t['iteration_time'].shape" "$work/cases-late_fetch.h5" &&
    grep -h "^fetch,0,3," "$work/cases/late_fetch/"run.rank0.worker*.csv > /dev/null && ok || fail "a late fetch of a kept pass"
  # a recording of the recorder before it ended such passes itself (each 'end' written when
  # the iterator went away, after the next pass's 'epoch'; the last one lost; format 3): it
  # imports, the passes ending where the next starts, with a warning
  $py - "$work/cases/steploop/run.rank0.csv" "$work/old-steploop.csv" <<'PY' || fail "python edits (old record order)"
import sys
lines = [l.replace("stallsim-record,5", "stallsim-record,3") for l in open(sys.argv[1]).read().splitlines(True)]
lines = ["end," + l[5:] if l.startswith("left,") else l for l in lines]
# format 5's last field of an end record (when it was written) is not in format 3
lines = [l.rsplit(",", 1)[0] + "\n" if l.startswith("end,") else l for l in lines]
out, held = [], None
for l in lines:
    if l.startswith("end,"):
        held = l
        continue
    out.append(l)
    if l.startswith("epoch,") and held:
        out.append(held)
        held = None
open(sys.argv[2], "w").writelines(out)
PY
  mkdir -p "$work/old" && cp "$work/cases/steploop/"run.rank0.worker*.csv "$work/old/" && cp "$work/old-steploop.csv" "$work/old/run.rank0.csv"
  sed -i 's/^stallsim-record,5$/stallsim-record,3/' "$work/old/"run.rank0.worker*.csv
  "$stallsim" import pytorch "$work/old/run" -o "$work/old.h5" >/dev/null 2>"$work/old.err" &&
    grep -q "pass 0 has no 'end' record before pass 1 starts .*: its last batch ends where the next pass starts" "$work/old.err" && ok ||
    fail "an old step-loop recording: $(cat "$work/old.err")"
  $py - "$work/old.h5" "$work/cases-steploop.h5" <<'PY' && ok || fail "an old step-loop recording: rows"
import sys, h5py, numpy as np
old, new = (h5py.File(p, "r")["timeline"] for p in sys.argv[1:3])
# the last pass lost its end: its last batch is left out (as after a crash); the others match
assert old["iteration_time"].shape[0] == 11, old["iteration_time"].shape
assert np.array_equal(old["iteration_time"][:3], new["iteration_time"][:3])
# row 3, pass 0's last batch, ends where pass 1 starts (its 'epoch' record's time), as the
# new recorder's 'end' record says (written just before): within 1 ms
assert abs(old["iteration_time"][3, 0] - new["iteration_time"][3, 0]) < 1e-3, (old["iteration_time"][3], new["iteration_time"][3])
assert np.array_equal(old["iteration_time"][4:7], new["iteration_time"][4:7])
PY
  # a pass that rank 0 made alone: the import stops, naming it and the option; --skip-pass
  # leaves it out (2 epochs x 4 batches), as if it had not been recorded
  "$stallsim" import pytorch "$work/cases/rank_alone/run" -o "$work/alone.h5" >/dev/null 2>"$work/alone.err"; rc=$?
  [ $rc -ne 0 ] && grep -q "rank 0's pass 0 ended after 1 batch where rank 1's went on: .*--skip-pass 0:0. leaves it out" "$work/alone.err" &&
    ok || fail "a pass rank 0 made alone: rc=$rc $(cat "$work/alone.err")"
  "$stallsim" import pytorch "$work/cases/rank_alone/run" -o "$work/alone.h5" --skip-pass 0:0 >/dev/null 2>"$work/alone.err" &&
    grep -q "rank 0's pass 0 (labelled epoch 0) is left out (--skip-pass 0:0)" "$work/alone.err" &&
    $py -c "
import sys, h5py; t = h5py.File(sys.argv[1], 'r')['timeline']
assert t['iteration_time'].shape == (8, 2) and list(t['epoch'][:]) == [0] * 4 + [1] * 4, (t['iteration_time'].shape, t['epoch'][:])" "$work/alone.h5" &&
    ok || fail "--skip-pass 0:0: $(cat "$work/alone.err")"
  # uneven data (rank 0's loader 5 batches per epoch, rank 1's 4): the import stops, naming
  # both counts and the cause, not a pass made alone
  "$stallsim" import pytorch "$work/cases/uneven/run" -o "$work/uneven.h5" >/dev/null 2>"$work/uneven.err"; rc=$?
  [ $rc -eq 1 ] && grep -q "rank 1's loader has 4 batches per epoch and rank 0's 5 (their len(loader)): the ranks' data are uneven" "$work/uneven.err" &&
    ! grep -q "skip-pass" "$work/uneven.err" && [ ! -e "$work/uneven.h5" ] && ok ||
    fail "uneven data per rank: rc=$rc $(cat "$work/uneven.err")"
  # without set_epoch the recorder labelled rank 0's later passes one higher: they take the
  # labels they would have had without the pass left out
  "$stallsim" import pytorch "$work/cases/rank_alone_nolabel/run" -o "$work/alone3.h5" --skip-pass 0:0 >/dev/null 2>"$work/alone3.err" &&
    $py -c "
import sys, h5py; t = h5py.File(sys.argv[1], 'r')['timeline']
assert list(t['epoch'][:]) == [0] * 4 + [1] * 4, t['epoch'][:]" "$work/alone3.h5" && ok || fail "--skip-pass without set_epoch: $(cat "$work/alone3.err")"
  # a --skip-pass that names no rank or no pass of the run is refused, nothing written
  for bad in "7:0 the run has ranks 0 to 0" "0:9 rank 0's record has no pass 9 (its passes are 0 to 2)"; do
    set -- $bad
    rm -f "$work/alone4.h5"
    "$stallsim" import pytorch "$work/cases/steploop/run" -o "$work/alone4.h5" --skip-pass "$1" >/dev/null 2>"$work/err"; rc=$?
    shift
    [ $rc -eq 2 ] && grep -qF -- "$*" "$work/err" && [ ! -e "$work/alone4.h5" ] && ok || fail "--skip-pass $bad: rc=$rc $(cat "$work/err")"
  done
  for bad in "0" "0:" "x:1" "0:-1" ":1"; do
    "$stallsim" import pytorch "$work/cases/rank_alone/run" -o "$work/alone2.h5" --skip-pass "$bad" >/dev/null 2>"$work/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "expected RANK:PASS" "$work/err" && ok || fail "--skip-pass $bad: rc=$rc $(cat "$work/err")"
  done
  grep -q "epoch 0 has 2 of its 6 batches" "$work/cases-skip_w0.err" && ok || fail "recorder case skip_w0: no short-epoch warning"
  "$stallsim" import pytorch "$work/cases/dies_first/run" -o "$work/dies.h5" > /dev/null 2> "$work/dies.err"; rc=$?
  [ $rc -eq 1 ] && grep -q "dies_first/run.rank0.csv: no batch of the record has a step: the loader failed before its first batch" \
    "$work/dies.err" && ok || fail "a loader that fails on its first batch: rc=$rc $(cat "$work/dies.err")"
  grep -q "is labelled epoch 0 after epoch 0 .*: it becomes epoch 1" "$work/cases-peek.err" && ok ||
    fail "recorder case peek: no relabel warning: $(cat "$work/cases-peek.err")"
else
  fail "tests/recorder/cases.py: $(tail -5 "$work/cases.err")"
fi

# loader workers started by spawn and by forkserver (they unpickle the recorder's wrappers
# and tagged indices): the loops get their batches, the recordings import, and the
# IterableDataset's rows are its batches in order (a worker-1 batch takes 60 ms, worker 0's 30)
if timeout -k 5 240 $py "$src/tests/recorder/spawn_cases.py" "$work/spawn" > "$work/spawn.txt" 2>"$work/spawn.err"; then
  for c in spawn_map spawn_iterable spawn_nobatch forkserver_map forkserver_iterable forkserver_nobatch; do
    grep -qx "ok $c" "$work/spawn.txt" && "$stallsim" import pytorch "$work/spawn/$c/run" -o "$work/spawn-$c.h5" \
      >/dev/null 2>"$work/spawn-$c.err" && ok || fail "recorder case $c: $(grep "$c" "$work/spawn.txt") $(cat "$work/spawn-$c.err")"
  done
  $py - "$work" "$src/tests/recorder" <<'PY' && ok || fail "spawned workers' recordings: each row's fetch"
import sys
sys.path.insert(0, sys.argv[2])
from check_rows import check
for m in ("spawn", "forkserver"):
    for kind, rows in (("map", [(0, 0), (1, 0), (0, 1), (1, 1)]), ("iterable", [(0, 0), (1, 0), (0, 1)]),
                       ("nobatch", [(0, 0), (1, 0), (0, 1), (0, 2)])):
        check("%s/spawn-%s_%s.h5" % (sys.argv[1], m, kind), "%s/spawn/%s_%s/run" % (sys.argv[1], m, kind), rows)
PY
else
  fail "tests/recorder/spawn_cases.py: $(tail -5 "$work/spawn.err")"
fi

# under DDP, rank 0 alone records a loader (validation) with world_size=1: it waits for no
# other rank (a Recorder made on rank 0 only used to hang in the clock exchange), and the
# record imports as a job of one rank
if timeout -k 5 120 $py "$src/tests/recorder/alone_ddp.py" "$work/alone" $((20000 + ($$ + 7) % 20000)) \
  > "$work/alone.txt" 2>"$work/alone.err" && grep -qx "ok alone_ddp" "$work/alone.txt"; then
  "$stallsim" import pytorch "$work/alone/val" -o "$work/alone-val.h5" > "$work/alone-imp.txt" 2>&1 &&
    grep -q "1 GPU, 3 iterations" "$work/alone-imp.txt" && ok || fail "rank 0 alone: import: $(cat "$work/alone-imp.txt")"
else
  fail "rank 0 alone under DDP (hung or failed): $(tail -5 "$work/alone.err")"
fi

# the importer's refusals, each naming the file (and line)
r=$work/w2/run
if [ -e "$r.rank1.csv" ]; then
  cp -r "$work/w2" "$work/bad"
  b=$work/bad/run
  # rank 1 lost its last epoch: different iteration counts
  $py - "$b.rank1.csv" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines(True)
cut = max(i for i, l in enumerate(lines) if l.startswith("epoch,"))
open(sys.argv[1], "w").writelines(lines[:cut])
PY
  out=$("$stallsim" import pytorch "$b" -o "$work/bad.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "rank1.csv" <<<"$out" && grep -q "same iteration counts" <<<"$out" && [ ! -e "$work/bad.h5" ] &&
    ok || fail "different iteration counts: rc $rc: $out"
  cp "$r.rank1.csv" "$b.rank1.csv"
  "$stallsim" import pytorch "$b.rank0.csv" -o "$work/good.h5" 2>"$work/good.err" >/dev/null &&
    ! grep -q "warning" "$work/good.err" && ok || fail "the restored copy imports: $(cat "$work/good.err")"
  # a record whose rank's process still runs here (a Python process of its meta pid on its
  # meta host): the import says the job has not ended; a pid that is not Python's does not
  $py -c "import time; time.sleep(60)" & sleeper=$!
  for who in py sh; do
    cp -r "$work/w2" "$work/running-$who"
    pid=$([ $who = py ] && echo $sleeper || echo $$)
    sed -i "s/^meta,pid,.*/meta,pid,$pid/" "$work/running-$who/run.rank1.csv"
    "$stallsim" import pytorch "$work/running-$who/run" -o "$work/running-$who.h5" > /dev/null 2> "$work/running-$who.err" ||
      fail "import of a record beside a live pid ($who)"
  done
  kill $sleeper 2>/dev/null
  grep -q "run.rank1.csv: rank 1's process (pid [0-9]*) still runs on this host: the job has not ended" "$work/running-py.err" &&
    ! grep -q "still runs" "$work/running-sh.err" && ! grep -q "still runs" "$work/good.err" && ok ||
    fail "a job still running: $(cat "$work/running-py.err" "$work/running-sh.err")"
  # the trace says so (import_note), and info warns of it; the others carry no note
  $py -c "
import h5py, sys
n = h5py.File(sys.argv[1], 'r').attrs['import_note']
assert (n.decode() if isinstance(n, bytes) else n) == 'imported while the job still ran', n
for p in sys.argv[2:]:
    assert 'import_note' not in h5py.File(p, 'r').attrs, p" "$work/running-py.h5" "$work/running-sh.h5" "$work/good.h5" &&
    "$stallsim" info "$work/running-py.h5" 2>&1 | grep -q "imported while the job still ran: the record was not whole when imported, .* (import it again once the job has ended)" &&
    ok || fail "a job still running: its trace's import_note"
  # rank 1 on another host with no clock offset measured (a Recorder made before
  # init_process_group): the import says its times are off by the clocks' difference
  cp -r "$work/w2" "$work/noclock"
  sed -i 's/^meta,host,.*/meta,host,otherhost/; s/^meta,clock_offset_source,.*/meta,clock_offset_source,none/' \
    "$work/noclock/run.rank1.csv"
  "$stallsim" import pytorch "$work/noclock/run" -o "$work/noclock.h5" > /dev/null 2> "$work/noclock.err" &&
    grep -q "rank 1 ran on host otherhost and rank 0 on .*, but its clock was not compared with rank 0's" "$work/noclock.err" &&
    ! grep -q "clock was not compared" "$work/good.err" && ok || fail "a rank without a clock offset: $(cat "$work/noclock.err")"
  # rank 1's clock offset moves the run before 1970: the message names rank 1's file
  cp -r "$work/w2" "$work/before1970"
  $py - "$work/before1970/run" <<'PY'
import glob, re, sys
for path in glob.glob(sys.argv[1] + ".rank1*.csv"):
    out = []
    for line in open(path):
        f = [str(int(x) - 1300000000000000000) if re.fullmatch(r"\d{18,}", x) else x for x in line.rstrip("\n").split(",")]
        if f[:2] == ["meta", "clock_offset_ns"]:
            f[2] = "-1000000000000000000"
        out.append(",".join(f) + "\n")
    open(path, "w").writelines(out)
PY
  out=$("$stallsim" import pytorch "$work/before1970/run" -o "$work/before1970.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "run.rank1.csv: with its clock offset the run starts before 1970" <<<"$out" &&
    [ ! -e "$work/before1970.h5" ] && ok || fail "a clock offset before 1970: rc $rc: $out"
  # a run killed in its last epoch (both ranks' files end after batch 4 of it): it imports,
  # and says the epoch is short
  cp -r "$work/w2" "$work/killed"
  $py - "$work/killed/run" <<'PY'
import glob, sys
rank0 = open(sys.argv[1] + ".rank0.csv").read().splitlines()
p = [l for l in rank0 if l.startswith("epoch,")][-1].split(",")[1]  # the last pass
for path in glob.glob(sys.argv[1] + ".rank*.csv"):
    keep = []
    for l in open(path).read().splitlines(True):
        f = l.split(",")
        if f[0] == "end" and f[1] == p:
            continue
        if f[0] in ("batch", "fetch") and f[1] == p and int(f[2]) >= 5:
            continue
        keep.append(l)
    open(path, "w").writelines(keep)
PY
  out=$("$stallsim" import pytorch "$work/killed/run" -o "$work/killed.h5" 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q "warning: .*run.rank0.csv: epoch [0-9]* has 4 of its [0-9]* batches (meta batches_per_epoch) that every rank recorded: the run ended early (killed?)" <<<"$out" &&
    ok || fail "a killed run: rc $rc: $out"
  # killed, and each rank lost its own last buffered lines: rank 1 has 3 batches of the last
  # pass more than rank 0; the trace keeps the rows both have, and says so
  # cut_last_pass DIR LONGER: the run in DIR killed in its last pass, rank LONGER with 8 of
  # its batches, the other with 5 (no 'end' record)
  cut_last_pass() {
    cp -r "$work/w2" "$1"
    $py - "$1/run" "$2" <<'PY'
import glob, sys
rank0 = open(sys.argv[1] + ".rank0.csv").read().splitlines()
p = [l for l in rank0 if l.startswith("epoch,")][-1].split(",")[1]
for path in glob.glob(sys.argv[1] + ".rank*.csv"):
    last = 8 if ".rank%s.csv" % sys.argv[2] in path else 5
    keep = [l for l in open(path).read().splitlines(True)
            if not (l.split(",")[0] == "end" and l.split(",")[1] == p) and
            not (l.split(",")[0] in ("batch", "fetch") and l.split(",")[1] == p and int(l.split(",")[2]) >= last)]
    open(path, "w").writelines(keep)
PY
  }
  cut_last_pass "$work/killed2" 1
  out=$("$stallsim" import pytorch "$work/killed2/run" -o "$work/killed2.h5" 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q "warning: .*run.rank0.csv: cut off after [0-9]* rows (the run crashed or was killed), where rank 1's file goes on" <<<"$out" &&
    $py -c "
import h5py
a, b = h5py.File('$work/killed.h5', 'r'), h5py.File('$work/killed2.h5', 'r')
assert a.attrs['iterations'] == b.attrs['iterations'], (a.attrs['iterations'], b.attrs['iterations'])" &&
    ok || fail "a killed run, ranks cut differently: rc $rc: $out"
  # the same with rank 1 cut shorter than rank 0 (whose file sizes the trace): the trace
  # keeps the rows both have (it failed with "rows written of ... declared")
  cut_last_pass "$work/killed3" 0
  out=$("$stallsim" import pytorch "$work/killed3/run" -o "$work/killed3.h5" 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q "warning: .*run.rank1.csv: cut off after [0-9]* rows (the run crashed or was killed), where rank 0's file goes on" <<<"$out" &&
    $py -c "
import h5py
a, b = h5py.File('$work/killed.h5', 'r'), h5py.File('$work/killed3.h5', 'r')
assert a.attrs['iterations'] == b.attrs['iterations'] == b['timeline/iteration_time'].shape[0], (a.attrs['iterations'], b.attrs['iterations'])
n = b.attrs['import_note']
assert (n.decode() if isinstance(n, bytes) else n) == 'cut off after %d rows' % b.attrs['iterations'], n" &&
    "$stallsim" info "$work/killed3.h5" > "$work/killed3.txt" 2>&1 &&
    grep -q "^import_note *cut off after [0-9]* rows" "$work/killed3.txt" &&
    grep -q "warning: .*killed3.h5: cut off after [0-9]* rows: the record was not whole when imported" "$work/killed3.txt" &&
    ok || fail "a killed run, rank 1 cut shorter: rc $rc: $out $(cat "$work/killed3.txt")"
  # a loader error on rank 0 in the last pass: its loop ends at batch 5 ('end' at its ask),
  # while rank 1, whose loop had taken batch 8 when the job ended, leaves there ('left'):
  # the trace keeps the rows both have, one more than the killed run's (rank 0's batch 4
  # has its step, up to the ask that raised), and says so
  cp -r "$work/w2" "$work/raised"
  $py - "$work/raised/run" <<'PY'
import glob, sys
rank0 = open(sys.argv[1] + ".rank0.csv").read().splitlines()
p = [l for l in rank0 if l.startswith("epoch,")][-1].split(",")[1]
for path in glob.glob(sys.argv[1] + ".rank*.csv"):
    last, kind = (5, "end") if ".rank0.csv" in path else (8, "left")
    keep = []
    for l in open(path).read().splitlines(True):
        f = l.rstrip("\n").split(",")
        if f[0] == "end" and f[1] == p:
            continue
        if f[0] == "batch" and f[1] == p and int(f[2]) == last:  # batch,PASS,K,ASK,GOT,PCPU,WAIT
            keep.append("%s,%s,%d,%s,%s,%s,%s\n" % (kind, p, last, f[3], f[5], f[6], f[3]))
            continue
        if f[0] in ("batch", "fetch") and f[1] == p and int(f[2]) >= last:
            continue
        keep.append(l)
    open(path, "w").writelines(keep)
PY
  out=$("$stallsim" import pytorch "$work/raised/run" -o "$work/raised.h5" 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q "warning: .*run.rank0.csv: ends after [0-9]* rows, where rank 1's record goes on in the same pass (epoch [0-9]*, to its batch 5 at least): the job ended in that pass" <<<"$out" &&
    $py -c "
import h5py
a, b = h5py.File('$work/killed.h5', 'r'), h5py.File('$work/raised.h5', 'r')
assert b.attrs['iterations'] == a.attrs['iterations'] + 1 == b['timeline/iteration_time'].shape[0], (a.attrs['iterations'], b.attrs['iterations'])" &&
    ok || fail "a loader error on rank 0 in the last pass: rc $rc: $out"
  # the same error on rank 0 in the first pass, its record ending there, where rank 1's goes on
  # into later passes: not a job that ended in one pass, refused
  cp -r "$work/w2" "$work/early0"
  $py - "$work/early0/run.rank0.csv" <<'PY'
import sys
keep = []
for l in open(sys.argv[1]).read().splitlines(True):
    f = l.rstrip("\n").split(",")
    if f[0] in ("epoch", "batch", "fetch", "end", "left") and f[1] != "0":
        continue  # rank 0's later passes: gone
    if f[0] == "end":
        continue
    if f[0] == "batch" and int(f[2]) == 5:
        keep.append("end,0,5,%s,%s,%s,%s\n" % (f[3], f[5], f[6], f[3]))
        continue
    if f[0] in ("batch", "fetch") and int(f[2]) > 5:
        continue
    keep.append(l)
open(sys.argv[1], "w").writelines(keep)
PY
  out=$("$stallsim" import pytorch "$work/early0/run" -o "$work/early0.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "rank 1 has more iterations than rank 0, whose file .*run.rank0.csv ends after [0-9]* rows" <<<"$out" &&
    [ ! -e "$work/early0.h5" ] && ok || fail "rank 0's record ends in its first pass, rank 1's goes on: rc $rc: $out"
  # a loader error on rank 0 in the first pass, caught by the loop, which went on: rank 0's
  # record of that pass ends at batch 5 ('end'), rank 1's is whole. Refused, with the way out:
  # that epoch left out on both ranks, which imports (every later pass)
  cp -r "$work/w2" "$work/caught"
  $py - "$work/caught/run.rank0.csv" <<'PY'
import sys
keep = []
for l in open(sys.argv[1]).read().splitlines(True):
    f = l.rstrip("\n").split(",")
    if f[0] == "end" and f[1] == "0":
        continue
    if f[0] == "batch" and f[1] == "0" and int(f[2]) == 5:
        keep.append("end,0,5,%s,%s,%s,%s\n" % (f[3], f[5], f[6], f[3]))
        continue
    if f[0] in ("batch", "fetch") and f[1] == "0" and int(f[2]) > 5:
        continue
    keep.append(l)
open(sys.argv[1], "w").writelines(keep)
PY
  out=$("$stallsim" import pytorch "$work/caught/run" -o "$work/caught.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "the loader raised an error there that the loop caught and went on from (a pass's record ends at the error)? Then leave that epoch out on every rank: \`--skip-pass 0:0 --skip-pass 1:0\`" <<<"$out" &&
    "$stallsim" import pytorch "$work/caught/run" -o "$work/caught.h5" --skip-pass 0:0 --skip-pass 1:0 >/dev/null 2>&1 &&
    ok || fail "a caught loader error on rank 0: rc $rc: $out"
  # a garbage line
  sed -i '25s/.*/batch,0,x,1,2/' "$b.rank0.csv"
  out=$("$stallsim" import pytorch "$b" -o "$work/bad.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "run.rank0.csv:25:" <<<"$out" && ok || fail "bad line: rc $rc: $out"
  cp "$r.rank0.csv" "$b.rank0.csv"
  # an unknown kind of dataset (meta dataset is map or iterable)
  sed -i 's/^meta,dataset,.*/meta,dataset,stream/' "$b.rank0.csv"
  out=$("$stallsim" import pytorch "$b" -o "$work/bad.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "run.rank0.csv:[0-9]*: meta dataset is 'stream', expected 'map' or 'iterable'" <<<"$out" &&
    [ ! -e "$work/bad.h5" ] && ok || fail "meta dataset stream: rc $rc: $out"
  cp "$r.rank0.csv" "$b.rank0.csv"
  # a missing worker file
  rm "$b.rank1.worker1.csv"
  out=$("$stallsim" import pytorch "$b" -o "$work/bad.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "rank1.worker1.csv" <<<"$out" && ok || fail "missing worker file: rc $rc: $out"
  cp "$r.rank1.worker1.csv" "$b.rank1.worker1.csv"
  # rank 1 in record format 2 (no waits for a core): the import keeps the CPU times and has
  # no wait datasets
  downgrade() { # PREFIX VERSION: rank 1's files in an older record format
    $py - "$1" "$2" <<'PY'
import glob, sys
v = int(sys.argv[2])
extra = {1: 0, 2: 1, 3: 2, 4: 2, 5: 2}  # fields each format adds to fetch, batch and end records
extra_end = {1: 0, 2: 1, 3: 2, 4: 2, 5: 3}  # and to end records (format 5: the time it was written)
for path in glob.glob(sys.argv[1] + ".rank1*.csv"):
    out = []
    for l in open(path):
        f = l.rstrip("\n").split(",")
        if f[0] == "stallsim-record":
            drop = extra[int(f[1])] - extra[v]
            drop_end = extra_end[int(f[1])] - extra_end[v]
            f[1] = str(v)
        elif f[0] == "left" and v < 4:  # before format 4 a left pass ended with 'end' too
            f[0] = "end"
        d = drop_end if f[0] in ("end", "left") else drop
        if f[0] in ("fetch", "batch", "end", "left"):
            f = f[:-d] if d else f
        out.append(",".join(f) + "\n")
    open(path, "w").writelines(out)
PY
  }
  downgrade "$b" 2
  out=$("$stallsim" import pytorch "$b" -o "$work/mixed2.h5" 2>&1); rc=$?
  [ $rc -eq 0 ] && ! grep -q "warning" <<<"$out" &&
    $py -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); sys.exit(not ('fetch_cpu_time' in f and 'cpu_pool' in f) or 'fetch_wait_time' in f or 'loop_wait_time' in f)" "$work/mixed2.h5" &&
    ok || fail "record formats 3 and 2: rc $rc: $out"
  # rank 1 in record format 1 (no CPU fields): the import works, with a warning and no CPU datasets
  downgrade "$b" 1
  out=$("$stallsim" import pytorch "$b" -o "$work/mixed.h5" 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q "1 of 2 ranks recorded CPU times, but rank 1 (record format 1?) did not" <<<"$out" &&
    $py -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); sys.exit('fetch_cpu_time' in f or 'cpu_pool' in f)" "$work/mixed.h5" &&
    ok || fail "mixed record formats: rc $rc: $out"
  # any of the run's files names the run; a folder gets the run it holds as a hint
  # (the same trace: info's description; the HDF5 files hold their objects' creation times)
  "$stallsim" import pytorch "$r.rank1.worker0.csv" -o "$work/by-worker-file.h5" >/dev/null &&
    "$stallsim" import pytorch "$r.rank1.csv" -o "$work/by-rank1.h5" >/dev/null &&
    "$stallsim" info "$work/by-worker-file.h5" | tail -n +2 | sed "s/(took [0-9.]* s)//" > "$work/by-worker-file.info" &&
    "$stallsim" info "$work/by-rank1.h5" | tail -n +2 | sed "s/(took [0-9.]* s)//" > "$work/by-rank1.info" &&
    cmp -s "$work/by-worker-file.info" "$work/by-rank1.info" && ok || fail "a rank or worker file as PREFIX"
  out=$("$stallsim" import pytorch "$(dirname "$r")" -o "$work/bad.h5" 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -q "is a folder; it holds the run $r: try \`stallsim import pytorch $r -o TRACE.h5\`" <<<"$out" &&
    ok || fail "a folder as PREFIX: rc $rc: $out"
  # a PREFIX misspelt in a folder that holds a run: that run as a hint
  out=$("$stallsim" import pytorch "${r}x" -o "$work/bad.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "no record files ${r}x.rank0.csv ...; the folder $(dirname "$r")/ holds the run $r: try" <<<"$out" &&
    ok || fail "a misspelt PREFIX: rc $rc: $out"
  # no such run; the output may not be an input
  out=$("$stallsim" import pytorch "$work/nothing" -o "$work/bad.h5" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -q "nothing.rank0.csv" <<<"$out" && ok || fail "no run: rc $rc: $out"
  # a worker file cut short (rank 0's worker 0 kept to its first half): named as such
  if [ -e "$r.rank0.worker1.csv" ]; then
    mkdir -p "$work/cut"
    for f in "$r".*; do cp "$f" "$work/cut/run.${f#"$r".}"; done
    n=$(wc -l < "$r.rank0.worker0.csv")
    head -n $((n / 2)) "$r.rank0.worker0.csv" > "$work/cut/run.rank0.worker0.csv"
    out=$("$stallsim" import pytorch "$work/cut/run" -o "$work/cut.h5" 2>&1); rc=$?
    [ $rc -eq 1 ] && grep -q "run.rank0.worker0.csv ends at its line $((n / 2)), while the other worker files go on .*: a worker file cut short" <<<"$out" &&
      [ ! -e "$work/cut.h5" ] && ok || fail "a worker file cut short: rc $rc: $out"
  fi
  cp "$r.rank1.worker0.csv" "$work/saved.csv"
  out=$("$stallsim" import pytorch "$r" -o "$r.rank1.worker0.csv" 2>&1); rc=$?
  [ $rc -eq 2 ] && cmp -s "$r.rank1.worker0.csv" "$work/saved.csv" && ok || fail "output = input: rc $rc: $out"
fi
finish
