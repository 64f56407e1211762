#!/usr/bin/python3
# recompute_independent.py - recomputes every column of a summary.csv of the measured and
# independent rows from the trace, with the formulas of sim/models/MODELS-independent.md
# only (no stallsim code), and compares to 1e-9 (relative, or absolute below 1).
# usage: recompute_independent.py TRACE.h5 SUMMARY.csv KEY=VALUE...
#   keys: epoch (all or a number), warmup, threshold, floor, sensitivity
import csv
import math
import sys

import h5py

from wall_ratio import wall_ratio


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def seqsum(v):
    t = 0.0
    for x in v:
        t += x
    return t


def new_stall(done, done_sim, st, floor, sens):
    gap = done - done_sim
    e = st - gap
    if gap > 0:
        return floor if e < 0 else e
    if gap < 0:
        return e if st > sens else st
    return st


def heal_set(text):
    """The GPUs of a heal_gpus cell ("3", "1+3", "8-15"), in order; [] for none."""
    gpus = []
    for part in text.split("+") if text else []:
        lo, _, hi = part.partition("-")
        gpus += range(int(lo), int(hi or lo) + 1)
    return gpus


def replay(row, fa, sa, p, heal):
    fs, ft, it, st = row
    G = len(fs)
    it_max, st_max = max(it), max(st)
    done = [fs[g] + ft[g] for g in range(G)]
    if heal:  # MODELS-independent.md 2a: the healed GPUs' fetch times, not their done
        others = [ft[g] for g in range(G) if g not in heal]
        ft = list(ft)
        for h in heal:
            ft[h] = median(others) if others else ft[h]
    out = {"fetch_diff": max(ft) - min(ft) if fa == "none" else 0.0,
           "start_diff": max(fs) - min(fs) if sa == "none" else 0.0}
    if fa == "none" and sa == "none" and not heal:
        new = list(st)
        out["iter_time"] = it_max
    else:
        s_min, s_max = min(fs), max(fs)
        s1 = {"none": None, "min": s_min, "avg": s_max - (s_max - s_min) / 2, "mean": seqsum(fs) / G}[sa]
        f1 = {"none": None, "min": min(ft), "avg": seqsum(ft) / G, "median": median(ft), "max": max(ft)}[fa]
        new = []
        for g in range(G):
            s = fs[g] if s1 is None else s1
            f = ft[g] if f1 is None else f1
            new.append(new_stall(done[g], s + f, st[g], p["floor"], p["sensitivity"]))
        out["iter_time"] = max(new) + max(0.0, it_max - st_max)
    mx = max(new)
    out["stall"] = mx
    out["delay"] = mx - min(new)
    ties = [g for g in range(G) if new[g] == mx]
    out["straggler"] = 0 if G == 1 else (ties[0] if len(ties) == 1 else -1)
    return out


def mean_std(x):
    n = len(x)
    m = sum(x) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in x) / (n - 1)) if n > 1 else None
    return m, sd


def main():
    trace, summary = sys.argv[1], sys.argv[2]
    p = {"epoch": "all", "warmup": 11, "threshold": 0.030, "floor": 0.000002, "sensitivity": 0.01}
    for kv in sys.argv[3:]:
        k, v = kv.split("=", 1)
        p[k] = v if k == "epoch" else (int(v) if k == "warmup" else float(v))
    with h5py.File(trace, "r") as f:
        t = f["timeline"]
        epoch, index = t["epoch"][:], t["index"][:]
        cols = [t[n][:] for n in ("fetch_start", "fetch_time", "iteration_time", "stall_time")]
        ts = t["train_start"][:]
        ps = f["pass_start_time"][:] if "pass_start_time" in f else None
    G = cols[0].shape[1]
    rows = [tuple([float(x) for x in c[k]] for c in cols) for k in range(len(epoch))
            if (p["epoch"] == "all" or int(epoch[k]) == int(p["epoch"])) and int(index[k]) >= p["warmup"]]
    # the whole run: every row of every epoch, and which rows start an epoch
    every = [tuple([float(x) for x in c[k]] for c in cols) for k in range(len(epoch))]
    starts = [k == 0 or epoch[k] != epoch[k - 1] for k in range(len(epoch))]
    # the time between passes, which the independent model keeps as measured: before each
    # later epoch, from the last GPU's end of the epoch before to the earliest first ask;
    # before the first, the earliest asking GPU's time from its pass start
    ask = [[ts[k][g] - cols[3][k][g] for g in range(len(ts[k]))] for k in range(len(epoch))]
    between = 0.0
    for e, k in enumerate([k for k in range(len(epoch)) if starts[k]]):
        a = min(ask[k])
        if k > 0:
            between += max(0.0, a - max(ask[k - 1][g] + cols[2][k - 1][g] for g in range(len(ask[k]))))
        elif ps is not None:
            between += max(0.0, a - ps[0][ask[k].index(a)])
    # the passes' wall time: each epoch from its earliest first ask to the last GPU's end of
    # its last row; every row's summed iterations take its ratio to the measured rows' sum
    ratio = wall_ratio(epoch, ts, cols[3], cols[2])
    n = len(rows)
    with open(summary, newline="") as f:
        table = list(csv.DictReader(f))
    bad = 0

    def check(scn, col, want):
        nonlocal bad
        got = table_row[col]
        if want is None:
            if got != "":
                bad += 1
                print("%s %s: %r, expected empty" % (scn, col, got))
            return
        if got == "":
            bad += 1
            print("%s %s: empty, expected %.17g" % (scn, col, want))
            return
        g = float(got)
        if abs(g - want) > 1e-9 * max(1.0, abs(want)):
            bad += 1
            print("%s %s: %.17g, recomputed %.17g" % (scn, col, g, want))

    measured_mean = None
    checked = 0
    for table_row in table:
        scn = table_row["scenario"]
        if table_row["model"] == "measured":
            fa, sa, heal = "none", "none", []
            names = ("measured", "measured", "", "", "measured")
        elif table_row["model"] == "independent":
            fa, sa = table_row["fetch_align"], table_row["start_align"]
            text = table_row.get("heal_gpus", "")
            heal = heal_set(text)
            names = ("independent_fetch-%s_start-%s%s" % (fa, sa, "_heal-" + text if heal else ""),
                     "independent", fa, sa,
                     "indep f=%s s=%s%s" % (fa, sa, " heal=" + text if heal else ""))
        else:
            continue
        for col, want in zip(("scenario", "model", "fetch_align", "start_align", "label"), names):
            if table_row[col] != want:
                bad += 1
                print("%s %s: %r, expected %r" % (scn, col, table_row[col], want))
        out = [replay(r, fa, sa, p, heal) for r in rows]
        if "heal_gpu" in table_row:
            check(scn, "heal_gpu", heal[0] if len(heal) == 1 else None)
        if int(table_row["iterations"]) != n:
            bad += 1
            print("%s iterations: %s, expected %d" % (scn, table_row["iterations"], n))
        for m in ("iter_time", "stall", "delay", "start_diff", "fetch_diff"):
            mean, sd = mean_std([o[m] for o in out])
            check(scn, m + "_mean", mean)
            check(scn, m + "_std", sd)
            if m == "iter_time":
                it_mean = mean
        check(scn, "effective_delay_pct", 100.0 * sum(1 for o in out if o["delay"] > p["threshold"]) / n)
        whole = [replay(r, fa, sa, p, heal) for r in every]
        run_time = ratio * sum(o["iter_time"] for o in whole) + between
        check(scn, "run_time", run_time)
        first = [o["stall"] for o, st in zip(whole, starts) if st]
        check(scn, "epoch_start_time", (sum(first) + between) / len(first))
        if table_row["model"] == "measured":
            measured_run = run_time
            check(scn, "run_change_pct", None)
        else:
            check(scn, "run_change_pct", 100.0 * (run_time / measured_run - 1.0))
        if table_row["model"] == "measured":
            measured_mean = it_mean
            check(scn, "iter_time_change_pct", None)
        else:
            check(scn, "iter_time_change_pct", 100.0 * (it_mean / measured_mean - 1.0))
        for col in ("workers", "persistent_workers", "prefetch", "fetch_scale", "compute_scale", "fidelity_iter_time_err_pct",
                    "fidelity_iter_time_mape_pct", "cpu_load_pct", "cpu_stretch", "read_stretch", "error_class",
                    "iter_time_lo", "iter_time_hi", "run_time_lo", "run_time_hi"):
            check(scn, col, None)
        for g in range(G):
            check(scn, "straggler_share_gpu%d" % g, sum(1 for o in out if o["straggler"] == g) / n)
        checked += 1
    extra = set(table[0].keys()) - {"scenario", "model", "label", "fetch_align", "start_align", "iterations",
                                    "effective_delay_pct", "iter_time_change_pct", "workers", "persistent_workers", "prefetch",
                                    "fetch_scale", "compute_scale", "fidelity_iter_time_err_pct",
                                    "fidelity_iter_time_mape_pct", "heal_gpu", "heal_gpus", "cpu_load_pct", "cpu_stretch", "read_stretch",
                                    "run_time", "run_change_pct", "epoch_start_time", "error_class", "iter_time_lo",
                                    "iter_time_hi", "run_time_lo", "run_time_hi"} - {
        m + s for m in ("iter_time", "stall", "delay", "start_diff", "fetch_diff") for s in ("_mean", "_std")} - {
        "straggler_share_gpu%d" % g for g in range(G)}
    if extra:
        bad += 1
        print("columns not recomputed (document and check them): %s" % ", ".join(sorted(extra)))
    print("%d rows x %d columns recomputed from %d iterations x %d GPU%s, %d differences" %
          (checked, len(table[0]), n, G, "" if G == 1 else "s", bad))
    sys.exit(1 if bad or checked == 0 else 0)


main()
