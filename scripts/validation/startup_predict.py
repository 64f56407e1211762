"""startup_predict.py - held-out check of stallsim's epoch-start model against the real runs of datasets/pytorch-startup (whole run and steady state).

Run from the repository root with /usr/bin/python3 (needs numpy; stallsim built):
    /usr/bin/python3 scripts/validation/startup_predict.py [--stallsim build/stallsim]
        [--data datasets/pytorch-startup] [--work DIR] [--markdown FILE]

For every recorded trace <point>-<a|b>.h5 it runs the baseline replay (`model = pipeline`,
`workers = auto`) twice: with `warmup_iterations = 0` (the baseline's `run_change_pct` and
fidelity: the goal is within 2 %) and with the default 11 (the measured steady state,
`iter_time_mean`). The real value of a point is the mean of its two runs' measured rows
(`run_time`, `iter_time_mean`); its spread is |a - b| / mean.

From each base (w1-a, w2-a) it predicts `workers` = each recorded point's count (0, 1,
2, 3 or 4) x `persistent_workers = auto, true` and compares each prediction that has
recorded real runs (wW, w2-pers, w4-pers) with
their mean; from w2-slow1-a it predicts `heal = 1` against w2. A base of a point with a slow
rank R (POINT-slowR-a, such as w2-slow0-a) sweeps the workers with `heal = none, R`: a healed
scenario stands for the point without the slow rank, the others for the points with it. Goals: within 5 % (8 %
where the base's two runs spread more than 5 % on that measure). The ranked answer
(`rank_by = run`, the first ranked cut) of each base is checked against the real runs:
did that change make the real job slower than the base point?

Where a trace has its job's evaluation loader recorded beside it (POINT-REP-eval.h5,
datasets/pytorch-eval), every sweep names it in `[trace] eval_path`: the real whole run is
then the job's span over both loaders, and each prediction's is too. The same predictions
without it (the training trace's whole-run change applied to the base's real job) are
summed up beside them.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

POINTS = ("w0", "w1", "w2", "w3", "w4", "w2-pers", "w4-pers", "w2-fork", "w2-long", "w2-slow1", "w1-slow0", "w2-slow0")
BASES = ("w1-a", "w2-a")


def eval_of(trace):
    """the evaluation loader's trace recorded beside trace (POINT-REP-eval.h5), or None"""
    e = trace[:-3] + "-eval.h5"
    return e if os.path.exists(e) else None


def run_stallsim(stallsim, trace, out, scenarios, warmup=None, with_eval=True):
    """runs one sweep on trace (with its evaluation loader's trace where one was recorded
    beside it, unless with_eval is False); returns (summary rows by scenario name, JSON ranking)"""
    lines = ["[trace]", "path = %s" % os.path.abspath(trace)]
    if with_eval and eval_of(trace):
        lines.append("eval_path = %s" % os.path.abspath(eval_of(trace)))
    if warmup is not None:
        lines.append("warmup_iterations = %d" % warmup)
    lines += ["[scenarios]", "model = pipeline"] + ["%s = %s" % kv for kv in scenarios.items()]
    lines += ["[output]", "rank_by = run"]
    ini = out + ".ini"
    with open(ini, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run([stallsim, "run", ini, "--out", out, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("startup_predict: stallsim run %s failed (%d): %s" % (ini, p.returncode, p.stderr[-2000:]))
    js = json.loads(p.stdout)
    with open(os.path.join(out, "summary.csv")) as f:
        rows = {r["scenario"]: r for r in csv.DictReader(f)}
    return rows, js["ranking"]


def baseline_name(rows):
    return next(n for n in rows if re.search(r"_w-auto_", n) and "_pw-" not in n and "_heal" not in n)


def slow_of(point):
    """(the point without its slow rank, the slow rank) of a point named POINT-slowR, else (point, None)"""
    m = re.fullmatch(r"(.+)-slow(\d+)", point)
    return (m.group(1), int(m.group(2))) if m else (point, None)


def point_of(name, base_point):
    """the recorded point a predicted scenario stands for (None: not recorded); from a base
    with a slow rank R (POINT-slowR), a scenario that heals R stands for the point without
    it, one that does not for the point with it"""
    plain, slow = slow_of(base_point)
    m = re.search(r"_heal-(\d+)", name)
    if m and (slow is None or int(m.group(1)) != slow):
        return None
    suffix = "" if m or slow is None else "-slow%d" % slow
    m = re.search(r"_w-(\w+?)_", name)
    w = m.group(1) if m else "auto"
    pers = "_pw-true" in name
    if w == "auto" and not pers:
        return plain + suffix
    if w == "auto":
        w = plain[1:] if plain in ("w1", "w2") else None
    if pers:
        return "w%s-pers%s" % (w, suffix) if w in ("2", "4") else None
    return "w" + w + suffix if w in ("0", "1", "2", "3", "4") else None


def sweeps_of(bases, counts, slow_base):
    """[(base trace, scenario keys)]: each base sweeps the worker counts with persistent
    workers and without; a base of a point with a slow rank R (POINT-slowR-REP) sweeps them
    with R healed and not (no persistent workers: none recorded); slow_base heals its slow
    rank (1 where its name gives none) with its own workers"""
    out = []
    for b in bases:
        slow = slow_of(b.rsplit("-", 1)[0])[1]
        out.append((b, {"workers": counts, "persistent_workers": "auto, true"} if slow is None
                    else {"workers": counts, "heal": "none, %d" % slow}))
    slow = slow_of(slow_base.rsplit("-", 1)[0])[1]
    out.append((slow_base, {"workers": "auto", "heal": "none, %d" % (1 if slow is None else slow)}))
    return out


def skipped(name, scen):
    """1 for a row of workers = auto where the sweep also lists the counts: the base's own count
    gives the same settings"""
    return "_w-auto_" in name and "," in scen["workers"]


def pct(a, b):
    return 100.0 * (a / b - 1.0)


def parse_args(argv=None):
    """The command line's settings (argv None: sys.argv)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stallsim", default="build/stallsim")
    ap.add_argument("--data", default="datasets/pytorch-startup")
    ap.add_argument("--work", default=None, help="folder for the sweeps (default: a new temporary one)")
    ap.add_argument("--reps", default="a,b", help="the runs of each point that make its real mean (default a,b)")
    ap.add_argument("--bases", default=",".join(BASES), help="the base traces for the worker sweeps (default w1-a,w2-a)")
    ap.add_argument("--slow-base", default="w2-slow1-a",
                    help="the trace POINT-slowR-REP healed (heal = R) against POINT (default w2-slow1-a)")
    ap.add_argument("--warmup", type=int, default=None, help="the steady state's warmup_iterations (default: stallsim's, 11)")
    ap.add_argument("--markdown", default=None, help="also write the tables (Markdown) to this file")
    return ap.parse_args(argv)


def check(a, out):
    """Runs the check with settings a, handing every Markdown line to out. Returns the
    predictions that have real runs, the self rows left out: dicts of base, scenario, point,
    kind (steady, run), predicted, real (the point's mean), lo and hi (the 90 % interval)."""
    work = a.work or tempfile.mkdtemp(prefix="startup-predict-")
    os.makedirs(work, exist_ok=True)
    points = []

    # the real runs and the baseline replay of each
    real, base_rows = {}, []
    for p in POINTS:
        vals = []
        for rep in a.reps.split(","):
            tr = os.path.join(a.data, "%s-%s.h5" % (p, rep))
            if not os.path.exists(tr):
                continue
            r0, _ = run_stallsim(a.stallsim, tr, os.path.join(work, "base0-%s-%s" % (p, rep)), {"workers": "auto"}, 0)
            r11, _ = run_stallsim(a.stallsim, tr, os.path.join(work, "base11-%s-%s" % (p, rep)), {"workers": "auto"},
                                   a.warmup)
            m0, m11, b0 = r0["measured"], r11["measured"], r0[baseline_name(r0)]
            vals.append((float(m0["run_time"]), float(m11["iter_time_mean"]), float(m0["epoch_start_time"])))
            base_rows.append((p + "-" + rep, float(m0["run_time"]), float(b0["run_change_pct"]),
                              float(b0["fidelity_iter_time_mape_pct"]), float(m0["epoch_start_time"]),
                              float(b0["epoch_start_time"]), float(m11["iter_time_mean"])))
        if vals:
            v = np.array(vals)
            mean = v.mean(axis=0)
            spread = 100.0 * (v.max(axis=0) - v.min(axis=0)) / mean if len(vals) >= 2 else [float("nan")] * 3
            real[p] = dict(run=mean[0], steady=mean[1], start=mean[2], run_spread=spread[0],
                           steady_spread=spread[1], n=len(vals))

    out("### Baseline replay of every recorded run (`warmup_iterations = 0`)")
    out()
    out("| run | real run_time (s) | baseline run% | per-iteration MAPE % | real epoch start (s) | replayed (s) |"
        " real steady iter (s) | within 2 % |")
    out("|---|---|---|---|---|---|---|---|")
    nb_ok = 0
    for name, rt, chg, mape, st, st_b, it in base_rows:
        ok = abs(chg) <= 2.0
        nb_ok += ok
        out("| %s | %.3f | %+.2f | %.2f | %.3f | %.3f | %.5f | %s |" % (name, rt, chg, mape, st, st_b, it,
                                                                      "yes" if ok else "**no**"))
    out()
    out("Baseline within 2 %%: %d of %d." % (nb_ok, len(base_rows)))
    out()
    out("### Real points (mean of runs %s; spread = (largest - smallest) / mean)" % a.reps)
    out()
    out("| point | runs | run_time (s) | spread % | steady iter (s) | spread % | epoch start (s) |")
    out("|---|---|---|---|---|---|---|")
    for p in POINTS:
        if p in real:
            r = real[p]
            out("| %s | %d | %.3f | %.1f | %.5f | %.1f | %.3f |" % (p, r["n"], r["run"], r["run_spread"], r["steady"],
                                                                  r["steady_spread"], r["start"]))
    out()

    # predictions
    preds = []   # (base, label, point, run err, steady err, goal run, goal steady)
    cover = []   # (the real mean inside the row's 90 % interval, the interval's half-width in % of P)
    ranked = []  # (base, label, predicted run%, real point, real change %)
    without = []  # with an evaluation loader: (|whole-run error| with it, without it: the base's real job
                  # changed by the training trace's own whole-run change)
    counts = "auto, " + ", ".join(p[1:] for p in POINTS if re.fullmatch(r"w\d", p) and p in real)
    for base, scen in sweeps_of(a.bases.split(","), counts, a.slow_base):
        bp = base.rsplit("-", 1)[0]
        tr = os.path.join(a.data, base + ".h5")
        if not os.path.exists(tr) or bp not in real:
            continue
        rows, ranking = run_stallsim(a.stallsim, tr, os.path.join(work, "pred-" + base), scen, a.warmup)
        # where the job's evaluation loader was recorded: the same sweep without it, whose whole-run
        # change (of the training trace alone) is set against the real job's
        alone = run_stallsim(a.stallsim, tr, os.path.join(work, "alone-" + base), scen, a.warmup,
                             False)[0] if eval_of(tr) else None
        rb = real[bp]
        for name, r in rows.items():
            if name == "measured":
                continue
            tp = point_of(name, bp)
            label = r["label"].replace("pipe f=none s=none ", "").replace(" fs=1 cs=1", "")
            if skipped(name, scen):
                continue  # the same settings as the base's own worker count, listed under it
            if tp is None or tp not in real:
                preds.append((base, label, tp or "-", None, None, None, None, float(r["run_change_pct"])))
                continue
            if tp == bp:
                label += " (self: the base's own setting)"
            rt = real[tp]
            e_run, e_st = pct(float(r["run_time"]), rt["run"]), pct(float(r["iter_time_mean"]), rt["steady"])
            if "(self" not in label and r.get("iter_time_lo"):
                for what, lo, hi, P, want in (
                        ("steady", r["iter_time_lo"], r["iter_time_hi"], r["iter_time_mean"], rt["steady"]),
                        ("run", r["run_time_lo"], r["run_time_hi"], r["run_time"], rt["run"])):
                    lo, hi, P = float(lo), float(hi), float(P)
                    cover.append((lo <= want <= hi, 100.0 * (hi - lo) / 2.0 / P, what))
            g_run = 8.0 if rb["run_spread"] > 5.0 else 5.0
            g_st = 8.0 if rb["steady_spread"] > 5.0 else 5.0
            if "(self" not in label:
                for kind, P, want, lo, hi, g in (("steady", r["iter_time_mean"], rt["steady"], r.get("iter_time_lo", ""),
                                                  r.get("iter_time_hi", ""), g_st),
                                                 ("run", r["run_time"], rt["run"], r.get("run_time_lo", ""),
                                                  r.get("run_time_hi", ""), g_run)):
                    points.append(dict(base=base, scenario=label, point=tp, kind=kind, predicted=float(P),
                                       real=float(want), lo=lo, hi=hi, goal=g))
            if alone is not None and "(self" not in label:
                without.append((abs(e_run), abs(pct(rb["run"] * (1.0 + float(alone[name]["run_change_pct"]) / 100.0),
                                                    rt["run"]))))
            preds.append((base, label, tp, e_run, e_st, g_run, g_st, float(r["run_change_pct"])))
        top = ranking.get("top") or []
        if top:
            t = top[0]
            lab = rows[t["scenario"]]["label"].replace("pipe f=none s=none ", "").replace(" fs=1 cs=1", "")
            tp = point_of(t["scenario"], bp)
            if tp in real:
                realchg = pct(real[tp]["run"], rb["run"])
                ranked.append((base, lab, t["run_change_pct"], t["steady_change_pct"], tp, realchg,
                               pct(real[tp]["steady"], rb["steady"])))
            else:
                ranked.append((base, lab, t["run_change_pct"], t["steady_change_pct"], None, None, None))
        else:
            ranked.append((base, "(no cut ranked)", None, None, None, None, None))

    out("### Predictions against the real runs (error = predicted / real mean - 1)")
    out()
    out("| base | scenario | real point | predicted run% vs base | whole run err % | steady err % |"
        " real runs' spread % (run/steady) | goal % (run/steady) | met |")
    out("|---|---|---|---|---|---|---|---|---|")
    n_all = n_ok = 0
    for base, label, tp, e_run, e_st, g_run, g_st, chg in preds:
        if e_run is None:
            out("| %s | %s | %s | %+.1f | (no real run) | | | | |" % (base, label, tp, chg))
            continue
        for e, g in ((e_run, g_run), (e_st, g_st)):
            if "(self" not in label:
                n_all += 1
                n_ok += abs(e) <= g
        met = ("run " + ("yes" if abs(e_run) <= g_run else "**no**") + ", steady " +
               ("yes" if abs(e_st) <= g_st else "**no**"))
        out("| %s | %s | %s | %+.1f | %+.1f | %+.1f | %.1f/%.1f | %g/%g | %s |" % (
            base, label, tp, chg, e_run, e_st, real[tp]["run_spread"], real[tp]["steady_spread"], g_run, g_st, met))
    out()
    out("Predictions within their goal: %d of %d (whole run and steady state counted separately; the self rows not counted)." % (n_ok, n_all))
    out()
    if cover:
        inside = sum(1 for c in cover if c[0])
        out("Held-out coverage of the 90 %% intervals (steady state and whole run, each prediction with a real "
            "point): %d of %d real means inside (%.0f %%), median half-width %.1f %%." %
            (inside, len(cover), 100.0 * inside / len(cover), float(np.median([c[1] for c in cover]))))
        out()
        for what in ("steady", "run"):
            c = [x for x in cover if x[2] == what]
            out("- %s: %d of %d inside, median half-width %.1f %%" % ("steady state" if what == "steady" else "whole run",
                                                                     sum(1 for x in c if x[0]), len(c),
                                                                     float(np.median([x[1] for x in c]))))
        out()
    if without:
        out("With the evaluation loader's trace (`[trace] eval_path`), the whole run's mean |error| is %.2f %%; "
            "without it (the training trace's whole-run change applied to the real job), %.2f %% (%d predictions)."
            % (float(np.mean([w[0] for w in without])), float(np.mean([w[1] for w in without])), len(without)))
        out()
    out("### The ranked answer (`rank_by = run`, first ranked cut) against the real runs")
    out()
    out("| base | first cut | predicted run% (steady%) | real point | real run change % (steady %) | made the real job slower |")
    out("|---|---|---|---|---|---|")
    for base, lab, prun, pst, tp, rchg, rst in ranked:
        if prun is None:
            out("| %s | %s | | | | |" % (base, lab))
        elif tp is None:
            out("| %s | %s | %+.1f (%+.1f) | not recorded | | unknown |" % (base, lab, prun, pst))
        else:
            out("| %s | %s | %+.1f (%+.1f) | %s | %+.1f (%+.1f) | %s |" % (base, lab, prun, pst, tp, rchg, rst,
                                                                         "**yes**" if rchg > 0 else "no"))
    out()
    print("sweeps in %s" % work, file=sys.stderr)
    return points


def main():
    a = parse_args()
    md = []

    def out(s=""):
        print(s)
        md.append(s)

    check(a, out)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
