"""grid_predictions.py - what whole_run.py and intervals.py share: stallsim run on a
scenario file, and every run of a grid (w<W>-x<X>-p<P>.h5) predicting every run of it."""
import csv
import glob
import os
import re
import subprocess

GRID = re.compile(r"^w(\d+)-x([\d.]+)-p(\d+)\.h5$")


def run(stallsim, ini, out):
    """Runs stallsim on a scenario file; the summary's rows, or None when it fails."""
    p = subprocess.run([stallsim, "run", ini, "--out", out, "--quiet"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return list(csv.DictReader(open(os.path.join(out, "summary.csv")))) if p.returncode == 0 else None


def grid_predictions(stallsim, folder, tmp):
    """Every run of a grid predicting every run of it (itself too: the baseline), and its
    slow-rank run (w2-x1-p2-slow3: rank 3's storage 3x slower) predicting the base run
    with the slow rank healed: (base, target, class, steady error, whole-run error), each
    error predicted / real - 1 of the mean iteration time and of run_time."""
    return [(p["base"], p["target"], p["class"], p["steady"][0] / p["steady"][1] - 1, p["run"][0] / p["run"][1] - 1)
            for p in grid_points(stallsim, folder, tmp)]


def _values(r, real):
    """A prediction row against the real (steady, run): per measure (predicted, real, lo, hi)."""
    return {"steady": (float(r["iter_time_mean"]), real[0], r.get("iter_time_lo", ""), r.get("iter_time_hi", "")),
            "run": (float(r["run_time"]), real[1], r.get("run_time_lo", ""), r.get("run_time_hi", ""))}


def grid_points(stallsim, folder, tmp):
    """The predictions grid_predictions describes, each a dict: base, target, class,
    scenario (heal = 3 for the slow-rank run), and per measure (steady, run) the tuple
    (predicted, real, interval lo, interval hi); an interval end is "" when the row has none."""
    runs = {t: GRID.match(os.path.basename(t)) for t in sorted(glob.glob(os.path.join(folder, "*.h5")))}
    runs = {t: (int(m.group(1)), float(m.group(2)), int(m.group(3))) for t, m in runs.items() if m}
    real = {}
    for t in runs:
        with open(os.path.join(tmp, "m.ini"), "w") as f:
            f.write("[trace]\npath = %s\n[scenarios]\nmodel = independent\n" % t)
        rows = run(stallsim, os.path.join(tmp, "m.ini"), os.path.join(tmp, "m"))
        if rows:
            real[t] = (float(rows[0]["iter_time_mean"]), float(rows[0]["run_time"]))
    ws = sorted({w for w, _, _ in runs.values()})
    ps = sorted({p for _, _, p in runs.values()})
    out = []
    for base, (bw, bx, bp) in runs.items():
        xs = sorted({"%g" % (x / bx) for _, x, _ in runs.values()}, key=float)
        with open(os.path.join(tmp, "p.ini"), "w") as f:
            f.write("[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, %s\nprefetch = auto, %s\n"
                    "fetch_scale = %s\n" % (base, ", ".join(map(str, ws)), ", ".join(map(str, ps)), ", ".join(xs)))
        rows = run(stallsim, os.path.join(tmp, "p.ini"), os.path.join(tmp, "p"))
        if not rows:
            continue
        pred = {}
        for r in rows[1:]:
            key = (int(r["workers"]), "%g" % float(r["fetch_scale"]), int(r["prefetch"]))
            if r["error_class"] == "baseline" or key not in pred:
                pred[key] = r
        for t, (w, x, p) in runs.items():
            if t not in real:
                continue
            key = (w, "%g" % (x / bx), p)
            r = pred.get(key)
            if r is None and w == 0:  # synchronous: any prefetch factor
                r = next((v for k, v in pred.items() if k[0] == 0 and k[1] == key[1]), None)
            if r is None:
                continue
            out.append(dict(base=base, target=t, scenario="", **{"class": r["error_class"]}, **_values(r, real[t])))
    slow, base = os.path.join(folder, "w2-x1-p2-slow3.h5"), os.path.join(folder, "w2-x1-p2.h5")
    if os.path.exists(slow) and base in real:
        with open(os.path.join(tmp, "h.ini"), "w") as f:
            f.write("[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nprefetch = auto\nheal = 3\n" % slow)
        rows = run(stallsim, os.path.join(tmp, "h.ini"), os.path.join(tmp, "h"))
        for r in rows[1:] if rows else []:
            out.append(dict(base=slow, target=base, scenario="heal = 3", **{"class": r["error_class"]},
                            **_values(r, real[base])))
    return out
