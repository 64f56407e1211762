#!/usr/bin/python3
"""whole_run.py - the whole run's figures on the committed real runs: the pipeline model's
baseline replay of every trace with warmup_iterations = 0 (every epoch's start included),
and on each grid (datasets/pytorch-grid*, w<W>-x<X>-p<P>.h5) every run predicting every
other, the whole run's time (run_time) beside the steady state (iter_time_mean).

usage: /usr/bin/python3 scripts/validation/whole_run.py [--stallsim BIN] [--datasets DIR] [--grids]
Prints the tables that datasets/VALIDATION-tables.md gives; needs only the committed traces.
"""
import argparse
import glob
import os
import statistics
import sys
import tempfile

from grid_predictions import grid_predictions, run

def baseline_points(stallsim, traces, tmp):
    """Each trace's pipeline baseline with every row summarised:
    (trace, predicted run_time, measured run_time, run_change_pct)."""
    out = []
    for t in traces:
        ini = os.path.join(tmp, "b.ini")
        with open(ini, "w") as f:
            f.write("[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nprefetch = auto\n" % t)
        rows = run(stallsim, ini, os.path.join(tmp, "b"))
        base = [r for r in rows or [] if r["fidelity_iter_time_err_pct"]]
        if base:
            out.append((t, float(base[0]["run_time"]), float(rows[0]["run_time"]), float(base[0]["run_change_pct"])))
    return out


def baselines(stallsim, traces, tmp):
    """Each trace's pipeline baseline with every row summarised: (trace, whole-run error %)."""
    return [(t, e) for t, _, _, e in baseline_points(stallsim, traces, tmp)]


def grid_pairs(stallsim, folder, tmp):
    """Every run of a grid predicting every other: (base, target, whole-run err %, steady err %)."""
    return pairs_of(grid_predictions(stallsim, folder, tmp))


def pairs_of(predictions):
    """From grid_predictions' tuples, each run predicting every other, the heal rows left out:
    (base, target, whole-run err %, steady err %)."""
    return [(b, t, 100 * er, 100 * es) for b, t, c, es, er in predictions if b != t and c != "heal"]


def baseline_table(b, datasets, label=None):
    """The baseline table's lines from (trace, whole-run error %); label names the row's traces."""
    errs = [abs(e) for _, e in b]
    worst = max(b, key=lambda x: abs(x[1]))
    lines = ["| traces with a baseline | within 2 % | within 5 % | mean abs error | largest |", "|---|---|---|---|---|",
             "| %s | %d | %d | %.2f %% | %+.1f %% (%s) |" % (label or len(b), sum(e <= 2 for e in errs),
                                                        sum(e <= 5 for e in errs), statistics.mean(errs), worst[1],
                                                        os.path.relpath(worst[0], datasets))]
    over = [(os.path.relpath(t, datasets), e) for t, e in b if abs(e) > 2]
    if over:
        lines += ["", "Beyond 2 %%: %s" % ", ".join("%s %+.1f %%" % x for x in over)]
    return lines


def grid_table(grids):
    """The all-pairs table's lines from [(grid name, grid_pairs of it)]."""
    lines = ["| grid | predictions | whole run: mean abs error | within 5 % | steady state: mean abs error | within 5 % |",
             "|---|---|---|---|---|---|"]
    allr, alls = [], []
    for name, pairs in grids:
        if not pairs:
            continue
        r = [abs(p[2]) for p in pairs]
        s = [abs(p[3]) for p in pairs]
        allr += r
        alls += s
        lines.append("| %s | %d | %.2f %% | %d | %.2f %% | %d |" % (name, len(pairs), statistics.mean(r),
                                                                  sum(x <= 5 for x in r), statistics.mean(s),
                                                                  sum(x <= 5 for x in s)))
    if allr:
        lines.append("| all | %d | %.2f %% | %d | %.2f %% | %d |" % (len(allr), statistics.mean(allr),
                                                                  sum(x <= 5 for x in allr), statistics.mean(alls),
                                                                  sum(x <= 5 for x in alls)))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--stallsim", default=os.path.join(here, "build", "stallsim"))
    ap.add_argument("--datasets", default=os.path.join(here, "datasets"))
    ap.add_argument("--grids", action="store_true", help="also every grid's all pairs (slower)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="whole-run-")
    traces = sorted(glob.glob(os.path.join(a.datasets, "pytorch-*", "*.h5")))
    b = baselines(a.stallsim, traces, tmp)
    print("## The baseline replay, every row summarised (warmup_iterations = 0)\n")
    print("\n".join(baseline_table(b, a.datasets)))
    if not a.grids:
        return 0
    print("\n## Every grid run predicting every other: the whole run beside the steady state\n")
    grids = [(os.path.basename(f), grid_pairs(a.stallsim, f, tmp))
             for f in sorted(glob.glob(os.path.join(a.datasets, "pytorch-grid*")))]
    print("\n".join(grid_table(grids)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
