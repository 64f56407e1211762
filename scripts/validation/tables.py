#!/usr/bin/python3
"""tables.py - writes every validation table, the table of points and the validation figure.

It runs the existing checks on the committed traces and writes three files:
  OUT/VALIDATION-tables.md     every table, the summary first;
  OUT/validation-points.csv    one row per prediction of a real run, steady state and whole run;
  OUT/figures/validation.png   predicted against real for every row of the CSV (unless --no-plot).
OUT defaults to datasets/. The checks it runs: whole_run.py (baseline replays, every grid's
pairs), intervals.py (the interval classes), startup_predict.py (the startup sets) and
validate_pytorch.sh (its prediction phases). Runs with /usr/bin/python3; needs stallsim built.

usage: /usr/bin/python3 scripts/validation/tables.py [--stallsim BIN] [--datasets DIR] [--out DIR] [--no-plot]
"""
import argparse
import csv
import glob
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

import intervals
import startup_predict
import whole_run
from grid_predictions import grid_points

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# recorded after the models were frozen, never used to change them or their intervals
HELD_OUT = ("pytorch-startup", "pytorch-startup-b", "pytorch-startup-c", "pytorch-startup-d", "pytorch-startup-e",
            "pytorch-startup-f", "pytorch-startup-g", "pytorch-startup-h", "pytorch-startup-i", "pytorch-startup-j",
            "pytorch-startup-k", "pytorch-startup-l", "pytorch-startup-m", "pytorch-startup-n", "pytorch-grid-zq",
            "pytorch-grid-zr", "pytorch-startup-o", "pytorch-eval", "pytorch-eval-r0",
            "pytorch-eval-4r", "pytorch-eval-slow", "pytorch-grid-zs")
# the sets that startup_predict.py checks (2 ranks; -d, -e and -g one, pytorch-eval-4r four; -g, -l and the eval
# sets fork their workers, the others spawn), in this order
STARTUP_SETS = ("pytorch-startup", "pytorch-startup-b", "pytorch-startup-c", "pytorch-startup-d", "pytorch-startup-e",
                "pytorch-startup-f", "pytorch-startup-g", "pytorch-startup-h", "pytorch-startup-i", "pytorch-startup-j",
                "pytorch-startup-k", "pytorch-startup-l", "pytorch-startup-m", "pytorch-startup-n", "pytorch-startup-o",
                "pytorch-eval", "pytorch-eval-r0", "pytorch-eval-4r", "pytorch-eval-slow")
# a set whose synchronous runs carry the probe of one worker also predicts from its w0-a
STARTUP_BASES = {name: "w0-a,w1-a,w2-a" for name in ("pytorch-startup-f", "pytorch-startup-g", "pytorch-startup-h",
                                                      "pytorch-startup-i", "pytorch-startup-j", "pytorch-startup-k",
                                                      "pytorch-startup-l", "pytorch-startup-m",
                                                      "pytorch-startup-n", "pytorch-startup-o", "pytorch-eval",
                                                      "pytorch-eval-r0")}
STARTUP_BASES["pytorch-eval-slow"] = "w1-slow0-a,w2-slow0-a"  # rank 0 slow: its heal and the workers
# held out when recorded, never used to change a model; their errors now set the intervals
CALIBRATION = tuple(intervals.CAL)
SPLITS = (("dev", "development"), ("calibration", "calibration"), ("held-out", "held out"))
PHASES = (("", "The grid from its one base trace (`pytorch-grid`)"),
          ("--regimes", "Regimes: synchronous loading to 4 workers (`pytorch-regimes`)"),
          ("--storage", "Storage twice as fast, with CPU work in the loader (`pytorch-storage`)"),
          ("--workloads", "Other workloads, most written by new users"),
          ("--twofaults", "Two faults on one job (`pytorch-twofaults`)"),
          ("--twoslow", "Two slow ranks (`pytorch-twoslow`)"),
          ("--disk", "Real files from a local disk (`pytorch-disk`)"))
# each grid's base setting, recorded three times (its run-to-run spread)
BASE_RUNS = ("w2-x1-p2", "w2-x1-p2-rep1", "w2-x1-p2-rep2")
COLUMNS = ["dataset", "base", "target", "scenario", "kind", "predicted", "real", "error_pct", "lo", "hi", "split",
           "goal_pct"]


def split_of(dataset):
    return "held-out" if dataset in HELD_OUT else "calibration" if dataset in CALIBRATION else "dev"


def num(x):
    """A value as the CSV gives it: 6 significant digits, "" for none."""
    return "" if x in ("", None) else "%.6g" % float(x)


def row(dataset, base, target, scenario, kind, predicted, real, lo="", hi="", goal=5.0):
    """One point; goal: the issue's goal for its error, in % (2 for a baseline replay; 5 for a
    prediction, 8 where the base setting's own repeated runs spread more than 5 %)."""
    return dict(dataset=dataset, base=base, target=target, scenario=scenario, kind=kind, predicted=num(predicted),
                real=num(real), error_pct="%.3f" % (100 * (float(predicted) / float(real) - 1)), lo=num(lo), hi=num(hi),
                split=split_of(dataset), goal_pct="%g" % goal)


def name(path):
    return os.path.basename(path)[:-3] if path.endswith(".h5") else path


def baselines(a, tmp, md, points):
    traces = sorted(glob.glob(os.path.join(a.datasets, "pytorch-*", "*.h5")))
    bp = whole_run.baseline_points(a.stallsim, traces, tmp)
    for t, pred, real, _ in bp:
        points.append(row(os.path.basename(os.path.dirname(t)), name(t), name(t), "baseline replay", "run", pred, real,
                          goal=2.0))
    md += ["## The baseline replay of every committed trace", "",
           "Every row summarised (`warmup_iterations = 0`, `prefetch = auto`), against the measured run.", ""]
    for split, label in SPLITS:
        b = [(t, e) for t, _, _, e in bp if split_of(os.path.basename(os.path.dirname(t))) == split]
        if b:
            md += ["**%s**" % label.capitalize(), ""] + whole_run.baseline_table(b, a.datasets, "%d %s" % (len(b), label))
            md.append("")


def base_goals(stallsim, folder, tmp):
    """{"steady": goal, "run": goal} of a grid, in %: 8 where its base setting's three real
    runs (BASE_RUNS) spread (max - min) / mean more than 5 % in that measure (the mean
    iteration time past stallsim's default warm-up, or run_time), else 5."""
    traces = [os.path.join(folder, b + ".h5") for b in BASE_RUNS]
    if not all(os.path.exists(t) for t in traces):
        return {"steady": 5.0, "run": 5.0}
    out = os.path.join(tmp, "base-runs.csv")
    subprocess.run([stallsim, "compare"] + traces + ["--csv", out], check=True, stdout=subprocess.DEVNULL)
    rows = list(csv.DictReader(open(out)))
    goal = {}
    for kind, col in (("steady", "iter_time_mean"), ("run", "run_time")):
        v = [float(r[col]) for r in rows]
        goal[kind] = 8.0 if (max(v) - min(v)) / statistics.mean(v) > 0.05 else 5.0
    return goal


def grids(a, tmp, md, points):
    by_grid, dev_errs, cal_errs = [], [], []
    for folder in sorted(glob.glob(os.path.join(a.datasets, "pytorch-grid*"))):
        g = os.path.basename(folder)
        goal = base_goals(a.stallsim, folder, tmp)
        gp = grid_points(a.stallsim, folder, tmp)
        preds = [(p["base"], p["target"], p["class"], p["steady"][0] / p["steady"][1] - 1,
                  p["run"][0] / p["run"][1] - 1) for p in gp]
        by_grid.append((g, whole_run.pairs_of(preds)))
        if g in intervals.DEV or g in intervals.CAL:
            v = {b: intervals.noise(b) for b in {p[0] for p in preds}}
            errs = [(c, es, er, v[b], g) for b, _, c, es, er in preds if c]
            (dev_errs if g in intervals.DEV else cal_errs).extend(errs)
        for p in gp:
            if p["base"] == p["target"]:
                continue  # the baseline: its own run
            scen = p["scenario"] or "its settings"
            for kind in ("steady", "run"):
                pred, real, lo, hi = p[kind]
                points.append(row(g, name(p["base"]), name(p["target"]), "%s (%s)" % (scen, p["class"]), kind,
                                  pred, real, lo, hi, goal[kind]))
    md += ["## Every grid run predicting every other", "",
           "Each run's workers, prefetch factor and storage latency, from every other run of its grid.",
           "Errors against the one real run of each point.", ""] + whole_run.grid_table(by_grid) + [""]
    floor, flines = intervals.choose_floor(dev_errs, cal_errs)
    md += ["## The interval classes", "",
           "Each error is divided by its base trace's scale s = sqrt(m² + v²): v is the trace's noise (how much it",
           "varies within itself and other processes' share of its cores, in quadrature), m the class's median",
           "|error|, at least the floor f below.",
           "Per class, each end is the wider of two sets' 5 % and 95 % quantiles of these scaled errors:",
           "the development grids `pytorch-grid-d` to `-t`, `-v` and `-w`, and the calibration grids %s"
           % ", ".join("`%s`" % d for d in intervals.CAL),
           "(each run predicting every run, itself too).",
           "A class with fewer than 10 calibration errors takes those of every class but the baseline.",
           "`sim/models/ss_pipeline_intervals.c` holds the same figures.", "",
           "The floor: each of these grids left out in turn and judged by the others' table (steady state).",
           "The narrowest that keeps 90 % of the real values inside is chosen.", ""]
    md += flines + [""] + intervals.class_table(dev_errs, cal_errs, floor)[1] + [""]


def held_out(a, tmp, md, points):
    for name_ in STARTUP_SETS:
        data = os.path.join(a.datasets, name_)
        if not os.path.isdir(data):
            continue
        args = startup_predict.parse_args(["--stallsim", a.stallsim, "--data", data,
                                           "--work", os.path.join(tmp, name_)] +
                                          (["--bases", STARTUP_BASES[name_]] if name_ in STARTUP_BASES else []))
        lines = []
        with open(os.devnull, "w") as quiet:  # check() names its work folder on stderr
            err, sys.stderr = sys.stderr, quiet
            try:
                got = startup_predict.check(args, lambda s="": lines.append(s))
            finally:
                sys.stderr = err
        for p in got:
            points.append(row(name_, p["base"], p["point"], p["scenario"], p["kind"], p["predicted"], p["real"],
                              p["lo"], p["hi"], p["goal"]))
        md += ["## Held out: `%s`" % name_, "",
               "From `scripts/validation/startup_predict.py`. Each real point is the mean of its runs a and b.", ""]
        md += [l.replace("### ", "### Held out: ", 1) if l.startswith("### ") else l for l in lines]


def phases(a, tmp, md, points):
    csvf = os.path.join(tmp, "phases.csv")
    env = dict(os.environ, VALIDATION_POINTS=csvf)
    md += ["## The prediction phases of `validate_pytorch.sh`", "",
           "Each block is the phase's output as printed.", ""]
    for opt, title in PHASES:
        p = subprocess.run([os.path.join(HERE, "scripts", "validation", "validate_pytorch.sh")] + ([opt] if opt else []),
                           env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("tables.py: validate_pytorch.sh %s failed: %s" % (opt, p.stderr[-2000:]))
        text = p.stdout.replace(os.path.abspath(a.datasets) + "/", "datasets/").rstrip("\n")
        md += ["### %s" % title, "", "`scripts/validation/validate_pytorch.sh %s`" % opt if opt else
               "`scripts/validation/validate_pytorch.sh`", "", "```", text, "```", ""]
    if os.path.exists(csvf):
        for d, b, t, s, k, pred, real in csv.reader(open(csvf)):
            points.append(row(d, b, t, s, k, pred, real))


def summary(points):
    """The summary table's lines from the points."""
    def stats(rows):
        e = [abs(float(r["error_pct"])) for r in rows]
        iv = [r for r in rows if r["lo"] and r["hi"]]
        inside = sum(float(r["lo"]) <= float(r["real"]) <= float(r["hi"]) for r in iv)
        half = [100 * (float(r["hi"]) - float(r["lo"])) / 2 / float(r["predicted"]) for r in iv]
        return e, iv, inside, half

    lines = ["| set | measure | predictions | median abs error | mean abs error | within 5 % | within its goal "
             "| inside the 90 % interval | median half-width |", "|---|---|---|---|---|---|---|---|---|"]
    for what, kind, base in (("baseline replay", "run", True), ("prediction", "steady", False),
                             ("prediction", "run", False)):
        for split, label in SPLITS:
            rows = [r for r in points if r["split"] == split and r["kind"] == kind
                    and (r["scenario"] == "baseline replay") == base]
            if not rows:
                continue
            e, iv, inside, half = stats(rows)
            cover = ("%d of %d" % (inside, len(iv)), "%.1f %%" % statistics.median(half)) \
                if split != "dev" and iv else ("—", "—")
            met = sum(abs(float(r["error_pct"])) <= float(r["goal_pct"]) for r in rows)
            lines.append("| %s | %s %s | %d | %.2f %% | %.2f %% | %d (%.0f %%) | %d (%.0f %%) | %s | %s |" % (
                label, what,
                "(steady state)" if kind == "steady" else "(whole run)", len(rows), statistics.median(e),
                statistics.mean(e),
                sum(x <= 5 for x in e), 100.0 * sum(x <= 5 for x in e) / len(e), met, 100.0 * met / len(e),
                cover[0], cover[1]))
    return lines


def coverage(points):
    """Lines of a table: per calibration or held-out set, measure and class, how many real
    values fall inside their intervals, the mean abs error and the median half-width."""
    lines = ["| set | split | measure | class | predictions | mean abs error | inside the 90 % interval "
             "| median half-width |", "|---|---|---|---|---|---|---|---|"]
    for split, label in SPLITS[1:]:
        for d in sorted({r["dataset"] for r in points if r["split"] == split}):
            for kind in ("steady", "run"):
                rows = [r for r in points if r["dataset"] == d and r["kind"] == kind and r["lo"] and r["hi"]]
                classes = sorted({r["scenario"].rsplit("(", 1)[-1].rstrip(")") if r["scenario"].endswith(")")
                                  else "—" for r in rows})
                for c in ["all"] + (classes if len(classes) > 1 else []):
                    g = [r for r in rows if c == "all" or r["scenario"].endswith("(%s)" % c)
                         or (c == "—" and not r["scenario"].endswith(")"))]
                    if not g:
                        continue
                    inside = sum(float(r["lo"]) <= float(r["real"]) <= float(r["hi"]) for r in g)
                    half = [100 * (float(r["hi"]) - float(r["lo"])) / 2 / float(r["predicted"]) for r in g]
                    lines.append("| `%s` | %s | %s | %s | %d | %.2f %% | %d (%.0f %%) | %.1f %% |" % (
                        d, label, "steady state" if kind == "steady" else "whole run", c, len(g),
                        statistics.mean(abs(float(r["error_pct"])) for r in g), inside, 100.0 * inside / len(g),
                        statistics.median(half)))
    return lines


def repeats(points):
    """Lines of a table: per grid, its base setting's three real runs (w2-x1-p2, -rep1,
    -rep2), their whole runs' spread, and the narrowest 90 % interval a perfect model could
    give there. A prediction from one run of a setting, of another run of it, then misses by
    the difference of two draws, whose standard deviation is sqrt(2) sd: the half-width
    that holds 90 % of such misses is 1.645 sqrt(2) sd (a normal law)."""
    real = {(r["dataset"], r["base"]): float(r["real"]) for r in points
            if r["scenario"] == "baseline replay" and r["kind"] == "run"}
    lines = ["| set | split | runs | mean whole run | spread (max − min) | sd | floor of the half-width |",
             "|---|---|---|---|---|---|---|"]
    floors = {}
    for d in sorted({k[0] for k in real if k[0].startswith("pytorch-grid")}):
        v = [real.get((d, b)) for b in BASE_RUNS]
        if None in v:
            continue
        m = statistics.mean(v)
        sd = statistics.stdev(v) / m
        floor = 1.645 * math.sqrt(2) * sd
        label = dict(SPLITS)[split_of(d)]
        floors.setdefault(label, []).append(floor)
        lines.append("| `%s` | %s | %d | %.2f s | %.1f %% | %.1f %% | %.1f %% |"
                     % (d, label, len(v), m, 100 * (max(v) - min(v)) / m, 100 * sd, 100 * floor))
    lines += ["", "Median floor: " + "; ".join("%s %.1f %% (%d grid%s)" % (k, 100 * statistics.median(f), len(f),
                                                                          "" if len(f) == 1 else "s")
                                              for k, f in floors.items()) + ".",
              "Three runs give only a rough sd, so each floor is rough too."]
    return lines


def decisions(points):
    """Lines of a table: per split, on the grids, what the whole run's best predicted cut
    did to the real job. For each base run, the cut is the other run of its grid with the
    shortest predicted run_time (heals left out); it counts where it promises at least 1 %
    (the answer's floor). Its real run is faster, or slower, than the base's own. "Sure":
    its whole-run interval lies below the base's real run (the answer's flag `unsure` is
    the rest)."""
    base_real = {(r["dataset"], r["base"]): float(r["real"]) for r in points
                 if r["scenario"] == "baseline replay" and r["kind"] == "run"}
    cuts = {}  # (dataset, base) -> its grid predictions of the whole run, heals left out
    for r in points:
        if (r["kind"] == "run" and r["dataset"].startswith("pytorch-grid") and r["scenario"] != "baseline replay"
                and not r["scenario"].startswith("heal")):
            cuts.setdefault((r["dataset"], r["base"]), []).append(r)
    lines = ["| set | base runs | a cut promised | real job faster | slower by up to 5 % | slower by more "
             "| sure | of those, faster |", "|---|---|---|---|---|---|---|---|"]
    for split, label in SPLITS:
        n = promised = faster = slow5 = slower = sure = sure_faster = 0
        for key in sorted(k for k in cuts if split_of(k[0]) == split and k in base_real):
            n += 1
            best = min(cuts[key], key=lambda r: float(r["predicted"]))
            if float(best["predicted"]) > 0.99 * base_real[key]:
                continue
            promised += 1
            change = float(best["real"]) / base_real[key] - 1
            faster += change < 0
            is_sure = best["hi"] != "" and float(best["hi"]) < base_real[key]
            sure += is_sure
            sure_faster += is_sure and change < 0
            slow5 += 0 <= change <= 0.05
            slower += change > 0.05
        if n:
            lines.append("| %s | %d | %d | %d | %d | %d | %d | %d |" % (label, n, promised, faster, slow5, slower, sure,
                                                                  sure_faster))
    return lines


def plot(points, path):
    """predicted against real: the steady state and the whole run side by side."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 6.6), dpi=100)
    names = {"steady": "Steady state: mean iteration time", "run": "Whole run: run time"}
    for ax, kind in zip(axes, ("steady", "run")):
        rows = [r for r in points if r["kind"] == kind]
        v = [float(r[c]) for r in rows for c in ("real", "predicted")]
        lo, hi = min(v) / 1.15, max(v) * 1.15
        x = np.geomspace(lo, hi, 200)
        ax.fill_between(x, 0.95 * x, 1.05 * x, color="#2ca02c", alpha=0.25, lw=0, label="±5 %")
        ax.plot(x, x, color="#2ca02c", lw=1, label="predicted = real")
        groups = ((lambda r: r["scenario"] == "baseline replay", "baseline replays",
                   dict(marker="x", s=12, color="#7f7f7f", lw=0.8)),
                  (lambda r: r["split"] == "dev" and r["scenario"] != "baseline replay", "development",
                   dict(marker="o", s=8, color="#1f77b4", alpha=0.35, lw=0)),
                  (lambda r: r["split"] == "calibration" and r["scenario"] != "baseline replay", "calibration",
                   dict(marker="s", s=14, color="#ff7f0e", alpha=0.5, lw=0)),
                  (lambda r: r["split"] == "held-out" and r["scenario"] != "baseline replay", "held out",
                   dict(marker="D", s=55, facecolor="none", edgecolor="#d62728", lw=1.6)))
        for keep, label, st in groups:
            g = [r for r in rows if keep(r)]
            if g:
                ax.scatter([float(r["real"]) for r in g], [float(r["predicted"]) for r in g],
                           label="%s (%d)" % (label, len(g)), **st)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_aspect("equal")
        ax.set_xlabel("real (s)")
        ax.set_ylabel("predicted (s)")
        ax.set_title(names[kind])
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(loc="upper left", fontsize=8)
    fig.suptitle("stallsim's predictions of the committed real PyTorch runs")
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stallsim", default=os.path.join(HERE, "build", "stallsim"))
    ap.add_argument("--datasets", default=os.path.join(HERE, "datasets"))
    ap.add_argument("--out", default=None, help="the folder to write to (default: --datasets)")
    ap.add_argument("--no-plot", action="store_true", help="leave out figures/validation.png")
    a = ap.parse_args()
    a.stallsim, a.datasets = os.path.abspath(a.stallsim), os.path.abspath(a.datasets)
    out = os.path.abspath(a.out or a.datasets)
    tmp = tempfile.mkdtemp(prefix="validation-tables-")
    md, points = [], []
    baselines(a, tmp, md, points)
    grids(a, tmp, md, points)
    held_out(a, tmp, md, points)
    phases(a, tmp, md, points)
    shutil.rmtree(tmp, ignore_errors=True)
    head = ["# Validation tables, generated", "",
            "Generated by `/usr/bin/python3 scripts/validation/tables.py` from the committed traces; do not edit.",
            "`tests/validation/validation_tables.sh` fails when this file is out of date.",
            "`datasets/VALIDATION.md` explains the tables. Error = predicted / real − 1.", "",
            "## Summary", "",
            "Held out: %s. Calibration (held out when recorded; its errors now set the intervals): %s."
            % (", ".join("`%s`" % d for d in HELD_OUT), ", ".join("`%s`" % d for d in CALIBRATION)),
            "Development: every other set.",
            "Every point is a row of `datasets/validation-points.csv`.",
            "Goals (each point's `goal_pct`): a baseline replay within 2 %; a prediction within 5 %, or 8 % where the",
            "base setting's own repeated real runs spread more than 5 % in that measure: a grid's three base runs, a",
            "startup set's base point's two. The other sets count 5 %.", ""] + summary(points) + [""]
    head += ["## Interval coverage by set and class", "",
             "Calibration and held-out sets only. On the calibration set the intervals are in-sample: its errors set them.",
             "A class is the one in the point's scenario; baseline replays have no interval.", ""]
    head += coverage(points) + [""]
    head += ["## The best cut of the whole run, against the real job", "",
             "On the grids: from each base run, the other run of its grid with the shortest predicted whole run.",
             "A cut counts where it promises at least 1 %, the answer's floor; heals are left out.",
             "Its real run is set beside the base's own real run.",
             "Sure: its whole-run interval lies below the base's real run; `run` flags the other cuts `unsure`.", ""]
    head += decisions(points) + [""]
    head += ["## Run-to-run spread of one setting", "",
             "Each grid recorded its base setting three times; their whole runs differ by chance alone.",
             "The floor is the narrowest 90 % interval of a real run that any model could give from one run of "
             "the same setting.", ""]
    head += repeats(points) + [""]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "VALIDATION-tables.md"), "w") as f:
        f.write("\n".join(head + md).rstrip("\n") + "\n")
    with open(os.path.join(out, "validation-points.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(points)
    print("wrote %s and %s (%d points)" % (os.path.join(out, "VALIDATION-tables.md"),
                                            os.path.join(out, "validation-points.csv"), len(points)))
    if not a.no_plot:
        png = os.path.join(out, "figures", "validation.png")
        plot(points, png)
        print("wrote", png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
