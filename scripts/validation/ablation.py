#!/usr/bin/python3
"""ablation.py - each structural rule of the pipeline model switched off alone: its effect on
the development and held-out mean |error|, steady state and whole run.

usage: /usr/bin/python3 scripts/validation/ablation.py [--stallsim BIN] [--datasets DIR]
           [--rules a,b+c] [--grids defg...] [--jobs N]

The rules and their switch, STALLSIM_PIPELINE_OFF, are in sim/models/MODELS-pipeline.md,
"Ablation (internal)"; the valid names are read from stallsim itself.

Development set: every run of each idle-machine grid (datasets/pytorch-grid-d to -t)
predicting every other, and its slow-rank run predicting the base run healed
(grid_predictions.py; a run predicting itself is left out). Held-out set: the held-out sets
of tables.py (HELD_OUT). Its grids as the development grids; its startup sets through the
predictions startup_predict.py makes (worker sweeps and persistent workers from w1-a and
w2-a, heal from w2-slow1-a where recorded) against the mean of each point's real runs.
Errors are predicted / real - 1, in %.
Baselines: every committed real trace (datasets/pytorch-*) replayed as it ran, whole run
(warmup_iterations = 0), counted within 2 % of its measured run. A rule without which fewer
baselines are within 2 % is kept: the baseline's goal is one of its own.

--rules a,b+c switches a off alone, then b and c together. For each rule switched off,
and "changed" the predictions it moves at all (by more than 1e-9 %): the mean |error| and its change against the full model,
delta = mean over the predictions of (|e_off| - |e_full|) (positive: the rule helps),
with a noise estimate, 2 standard errors of that paired mean, clustered by base trace (the
predictions from one trace move together). "within noise" means |delta| <= 2 SE.

Every grid is used (no subsampling): each configuration (the full model, then each rule off) takes about a minute with
--jobs 2 on a shared 2-core machine; --grids takes fewer to go faster.
"""
import argparse
import concurrent.futures
import glob
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_predictions import grid_predictions  # noqa: E402
import startup_predict as sp  # noqa: E402
import whole_run  # noqa: E402
from tables import HELD_OUT, STARTUP_BASES, STARTUP_SETS  # noqa: E402

HELD_GRIDS = tuple(s[len("pytorch-grid-"):] for s in HELD_OUT if s.startswith("pytorch-grid-"))

ENV = "STALLSIM_PIPELINE_OFF"


def rule_names(stallsim, datasets, tmp):
    """The valid rule names, from stallsim's refusal of an unknown one."""
    ini = os.path.join(tmp, "names.ini")
    with open(ini, "w") as f:
        f.write("[trace]\npath = %s\n[scenarios]\nmodel = pipeline\n" % os.path.join(datasets, "demo-4gpu.h5"))
    env = dict(os.environ, **{ENV: "?"})
    p = subprocess.run([stallsim, "run", ini, "--out", os.path.join(tmp, "names"), "--quiet"], env=env,
                       capture_output=True, text=True)
    m = re.search(r"valid names are: (.*)", p.stderr)
    if not m:
        sys.exit("ablation: stallsim does not list the rules (%s)" % p.stderr.strip()[-300:])
    return [n.strip() for n in m.group(1).split(",")]


def development(stallsim, datasets, grids, tmp):
    """{(base, target, i): (steady err %, whole-run err %)} over the grids; a run predicting
    itself left out."""
    out = {}
    for g in grids:
        folder = os.path.join(datasets, "pytorch-grid-" + g)
        if not os.path.isdir(folder):
            continue
        for i, (b, t, c, es, er) in enumerate(grid_predictions(stallsim, folder, tmp)):
            if b != t:
                out[(os.path.relpath(b, datasets), os.path.relpath(t, datasets), c == "heal", i)] = (100 * es, 100 * er)
    return out


def held_out_real(stallsim, data, tmp):
    """The real means of each recorded point of a startup set: {point: (steady, run)}."""
    real = {}
    for p in sp.POINTS:
        vals = []
        for rep in ("a", "b"):
            tr = os.path.join(data, "%s-%s.h5" % (p, rep))
            if not os.path.exists(tr):
                continue
            w = os.path.join(tmp, os.path.basename(data))
            os.makedirs(w, exist_ok=True)
            r0, _ = sp.run_stallsim(stallsim, tr, os.path.join(w, "r0-%s-%s" % (p, rep)), {"workers": "auto"}, 0)
            r11, _ = sp.run_stallsim(stallsim, tr, os.path.join(w, "r11-%s-%s" % (p, rep)), {"workers": "auto"})
            vals.append((float(r11["measured"]["iter_time_mean"]), float(r0["measured"]["run_time"])))
        if vals:
            real[p] = (statistics.mean(v[0] for v in vals), statistics.mean(v[1] for v in vals))
    return real


def held_out(stallsim, data, real, tmp):
    """{(set/base, scenario): (steady err %, whole-run err %)}: startup_predict.py's
    predictions from the startup set in folder data (from the bases tables.py gives it) that
    have a real point, the base's own setting left out."""
    out = {}
    bases = STARTUP_BASES.get(os.path.basename(os.path.normpath(data)), ",".join(sp.BASES)).split(",")
    for base, scen in sp.sweeps_of(bases, "auto, 0, 1, 2, 3", "w2-slow1-a"):
        bp = base.rsplit("-", 1)[0]
        tr = os.path.join(data, base + ".h5")
        if not os.path.exists(tr) or bp not in real:
            continue
        rows, _ = sp.run_stallsim(stallsim, tr, os.path.join(tmp, "pred-%s-%s" % (os.path.basename(data), base)), scen)
        for name, r in rows.items():
            if name == "measured" or sp.skipped(name, scen):
                continue
            tp = sp.point_of(name, bp)
            if tp is None or tp not in real or tp == bp:
                continue
            out[(os.path.basename(data) + "/" + base, name)] = (sp.pct(float(r["iter_time_mean"]), real[tp][0]),
                                 sp.pct(float(r["run_time"]), real[tp][1]))
    return out


def one_config(args):
    """Runs both sets with the rules `off` switched off (None: the full model)."""
    off, stallsim, datasets, grids, real = args
    if off:
        os.environ[ENV] = off.replace("+", ",")
    else:
        os.environ.pop(ENV, None)
    tmp = tempfile.mkdtemp(prefix="ablation-")
    t0 = time.time()
    dev = development(stallsim, datasets, grids, tmp)
    held = development(stallsim, datasets, HELD_GRIDS, tmp)
    for name in STARTUP_SETS:
        if name in real:
            held.update(held_out(stallsim, os.path.join(datasets, name), real[name], tmp))
    return off, dev, held, baseline_count(stallsim, datasets, tmp), time.time() - t0


def baseline_count(stallsim, datasets, tmp):
    """(within 2 %, replayed): the baseline replays of every committed real trace
    (datasets/pytorch-*) whose whole run is within 2 % of the measured run."""
    traces = sorted(glob.glob(os.path.join(datasets, "pytorch-*", "*.h5")))
    bp = whole_run.baseline_points(stallsim, traces, tmp)
    return sum(1 for _, _, _, e in bp if abs(e) <= 2.0), len(bp)


def compare(full, off, which):
    """(mean |e| full, mean |e| off, delta, 2 SE, n) over the predictions both have; which:
    0 steady, 1 whole run. The SE is clustered by the key's first part, the base trace."""
    keys = sorted(set(full) & set(off))
    if not keys:
        return None
    a = [abs(full[k][which]) for k in keys]
    b = [abs(off[k][which]) for k in keys]
    d = [y - x for x, y in zip(a, b)]
    n = len(d)
    delta = sum(d) / n
    sums = {}
    for k, x in zip(keys, d):
        sums[k[0]] = sums.get(k[0], 0.0) + (x - delta)
    se = math.sqrt(sum(v * v for v in sums.values())) / n
    return statistics.mean(a), statistics.mean(b), delta, 2 * se, n


def cell(c):
    if c is None:
        return "— | —"
    return "%.2f | %+.2f ± %.2f" % (c[1], c[2], c[3])


def verdict(cs, baselines_lost=False):
    """The rule's reading from its four comparisons (dev steady, dev run, held steady, held run);
    baselines_lost: without the rule fewer baseline replays are within 2 % (a goal of its own)."""
    if baselines_lost:
        return "keep: the baseline replays need it"
    if all(c is not None and c[2] == 0.0 for c in cs):
        return "no effect here"
    helps = [c is not None and c[2] > c[3] for c in cs]
    hurts = [c is not None and -c[2] > c[3] for c in cs]
    held_noise = not helps[2] and not helps[3]
    if not any(helps) and held_noise:
        return "removal candidate: no benefit beyond noise" + (" (hurts somewhere)" if any(hurts) else "")
    if held_noise and (hurts[2] or hurts[3]):
        return "removal candidate: hurts held out; helps on development"
    if held_noise:
        return "held-out within noise; helps on development"
    return "keep"


def main():
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stallsim", default=os.path.join(here, "build", "stallsim"))
    ap.add_argument("--datasets", default=os.path.join(here, "datasets"))
    ap.add_argument("--rules", default=None, help="the rules to switch off, one at a time (default: every rule)")
    ap.add_argument("--grids", default="defghijklmnopqrst", help="the development grids' letters (default d to t)")
    ap.add_argument("--jobs", type=int, default=2, help="configurations run at once (default 2)")
    a = ap.parse_args()
    a.stallsim = os.path.abspath(a.stallsim)
    a.datasets = os.path.abspath(a.datasets)
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="ablation-")
    names = rule_names(a.stallsim, a.datasets, tmp)
    rules = a.rules.split(",") if a.rules else names
    parts = {x for r in rules for x in r.split("+")}
    if parts - set(names):
        sys.exit("ablation: unknown rules %s; the valid names are: %s" % (",".join(sorted(parts - set(names))),
                                                                         ", ".join(names)))
    real = {n: held_out_real(a.stallsim, os.path.join(a.datasets, n), tmp) for n in STARTUP_SETS
            if os.path.isdir(os.path.join(a.datasets, n))}
    configs = [None] + rules
    res = {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as ex:
        for off, dev, held, base, secs in ex.map(one_config,
                                                 [(c, a.stallsim, a.datasets, a.grids, real) for c in configs]):
            res[off] = (dev, held, base)
            print("%-20s %d development, %d held-out predictions, %.0f s" % (off or "(full model)", len(dev),
                                                                            len(held), secs), file=sys.stderr)
    dev0, held0, base0 = res[None]
    grids = "".join(g for g in a.grids if os.path.isdir(os.path.join(a.datasets, "pytorch-grid-" + g)))
    print("## Ablation of the pipeline model's rules\n")
    print("Development: grids %s, %d predictions. Held-out: %s, %d predictions." % (
        "-".join(grids) if len(grids) < 3 else grids[0] + "–" + grids[-1], len(dev0),
        ", ".join(n for n in HELD_OUT if n in real or n[len("pytorch-grid-"):] in HELD_GRIDS), len(held0)))
    print("Mean |error| %; the change is the rule switched off against the full model ± 2 SE "
          "(positive: the rule helps).\n")
    print("| rule off | changed (dev / held-out) | dev steady | change | dev whole run | change | held-out steady | "
          "change | held-out whole run | change | baselines within 2 % | reading |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    m = lambda d, w: statistics.mean(abs(v[w]) for v in d.values()) if d else float("nan")
    print("| (full model) | | %.2f | | %.2f | | %.2f | | %.2f | | %d of %d | |" % (
        m(dev0, 0), m(dev0, 1), m(held0, 0), m(held0, 1), base0[0], base0[1]))
    for r in rules:
        dev, held, base = res[r]
        cs = [compare(dev0, dev, 0), compare(dev0, dev, 1), compare(held0, held, 0), compare(held0, held, 1)]
        lost = (len(dev0) - len(dev), len(held0) - len(held))
        note = "" if lost == (0, 0) else " (%d / %d predictions fail)" % lost
        moved = lambda full, o: sum(1 for k in set(full) & set(o)
                                    if max(abs(full[k][0] - o[k][0]), abs(full[k][1] - o[k][1])) > 1e-9)
        print("| %s | %d / %d | %s | %s | %s | %s | %d of %d | %s%s |" % (
            r, moved(dev0, dev), moved(held0, held), cell(cs[0]), cell(cs[1]), cell(cs[2]), cell(cs[3]),
            base[0], base[1], verdict(cs, base[0] < base0[0]), note))
    print("\n%d configurations in %.0f s (%d at once)." % (len(configs), time.time() - t0, a.jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
