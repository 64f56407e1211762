#!/usr/bin/python3
"""plot_results.py - PNG figures from a stallsim results folder.

Usage: plot_results.py RESULTS_DIR [--scenario NAME] [--out DIR] [--gpus-max N] [--top N]

Reads RESULTS_DIR/results.h5 (written by `stallsim run`) and writes, by default into
RESULTS_DIR/plots/:
  summary.png   mean iteration time per scenario, split into stall and compute, with
                the standard deviation of the iteration time as error bars; a sweep of
                more than --top scenarios (default 40) shows the --top fastest, plus the
                measured and the baseline rows, and says so on the figure;
  timeline.png  per-iteration stall and delay of the measured run and one scenario
                (--scenario, default: the fastest scenario other than measured);
  heatmap.png   per-GPU stall of the measured run (GPU x iteration), showing stragglers;
  ranked.png    each scenario's predicted change of the whole run, largest cut first (heals hatched;
                the baseline replays grey, as the measured run)
                (run_change_pct) with its 90 % interval as error bars, sorted, the
                measured run at 0; more than --top scenarios: the --top largest cuts.
timeline.png and heatmap.png need the per-iteration series, written only when the run
had `per_iteration = true` in [output]; without them only summary.png is written.
Exit status: 0 on success, 1 when the folder holds no readable results, 2 on bad usage.
Needs numpy, h5py and matplotlib (Debian: python3-h5py python3-matplotlib).
"""
import argparse
import os
import sys

import numpy as np

try:
    import h5py
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
except ImportError as e:
    sys.exit(f"plot_results.py: error: {e} (install python3-h5py and python3-matplotlib)")

DPI = 120
C_STALL, C_COMPUTE, C_MEASURED = "#d62728", "#1f77b4", "#555555"
MAX_COLUMNS = 800  # heat map columns before iterations are binned


def die(msg):
    print(f"plot_results.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def text(v):
    return v.decode(errors="replace") if isinstance(v, bytes) else str(v)


def load(folder):
    """The summary table, the GPU count and the per-iteration groups (name -> dict)."""
    path = os.path.join(folder, "results.h5")
    if not os.path.isdir(folder):
        die(f"{folder}: no such folder")
    if not os.path.isfile(path):
        die(f"{folder}: no results.h5 in this folder (write one with `stallsim run CONFIG --out {folder}`)")
    try:
        with h5py.File(path, "r") as f:
            if "summary" not in f or not isinstance(f["summary"], h5py.Dataset):
                die(f"{folder}: results.h5 has no /summary dataset (not a stallsim results file)")
            summary = f["summary"][()]
            gpus = int(f.attrs.get("gpus", 0))
            series = {}
            if isinstance(f.get("scenarios"), h5py.Group):
                for name, g in f["scenarios"].items():
                    if isinstance(g, h5py.Group) and "stall" in g:
                        series[name] = {k: g[k][()] for k in g if isinstance(g[k], h5py.Dataset)}
    except OSError as e:
        die(f"{folder}: results.h5 is not a readable stallsim results file ({e})")
    needed = {"scenario", "iter_time_mean", "iter_time_std", "stall_mean"}
    if summary.dtype.names is None or not needed <= set(summary.dtype.names) or len(summary) == 0:
        die(f"{folder}: /summary in results.h5 is empty or lacks the stallsim fields")
    return summary, gpus, series


def save(fig, out, name, written):
    path = os.path.join(out, name)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    written.append(path)


def healed(r, fields):
    """1 when the row heals a GPU (or several): heal_gpus is set, or, in results of older
    versions, heal_gpu (NaN in the table when none)."""
    if "heal_gpus" in fields:
        return text(r["heal_gpus"]) != ""
    return "heal_gpu" in fields and np.isfinite(float(r["heal_gpu"]))


def baseline_rows(summary):
    """Indices of the baseline replays: independent with both aligns none and nothing
    healed, and the pipeline baseline (the row with fidelity figures)."""
    fields = summary.dtype.names
    rows = []
    for i in range(1, len(summary)):
        r = summary[i]
        if "fidelity_iter_time_err_pct" in fields and np.isfinite(float(r["fidelity_iter_time_err_pct"])):
            rows.append(i)
        elif {"model", "fetch_align", "start_align"} <= set(fields) and text(r["model"]) == "independent" \
                and text(r["fetch_align"]) == "none" and text(r["start_align"]) == "none" and not healed(r, fields):
            rows.append(i)
    return rows


def select_rows(summary, top):
    """The rows summary.png shows: all of them when there are at most top + the measured
    and baseline rows; else measured, the baselines, and the top fastest other scenarios
    (by mean iteration time), fastest first. Returns (rows, note or None)."""
    n = len(summary)
    base = baseline_rows(summary)
    if n <= 1 + len(base) + top:
        return list(range(n)), None
    mean = summary["iter_time_mean"].astype(float)
    others = [i for i in range(1, n) if i not in set(base)]
    others.sort(key=lambda i: (np.nan_to_num(mean[i], nan=np.inf), i))
    rows = [0] + base + others[:top]
    note = (f"the {top} fastest of {n - 1} scenarios, plus the measured run"
            + ("" if not base else " and the baseline" if len(base) == 1 else f" and the {len(base)} baselines") + f" (plot_results.py --top N shows N)")
    return rows, note


def plot_summary(summary, names, gpus, out, written, top):
    rows, note = select_rows(summary, top)
    if note:
        print(f"note: summary.png shows {note}")
    summary = summary[rows]
    names = [names[i] for i in rows]
    n = len(summary)
    mean = summary["iter_time_mean"].astype(float)
    std = np.nan_to_num(summary["iter_time_std"].astype(float))
    stall = np.clip(np.nan_to_num(summary["stall_mean"].astype(float)), 0, None)
    compute = np.clip(mean - stall, 0, None)
    y = np.arange(n)
    fig, ax = plt.subplots(figsize=(11, max(4.5, 0.42 * n + 1.8)))
    measured = np.array([i == 0 for i in range(n)])
    ax.barh(y, stall, color=C_STALL, edgecolor="black", linewidth=0.5)
    ax.barh(y, compute, left=stall, color=C_COMPUTE, edgecolor="black", linewidth=0.5)
    # the measured row: hatched, heavier outline, shaded band behind it
    ax.barh(y[measured], mean[measured], fill=False, hatch="//", edgecolor=C_MEASURED, linewidth=1.6)
    ax.axhspan(-0.5, 0.5, color="#eeeeee", zorder=0)
    ax.axvline(mean[0], color=C_MEASURED, linestyle="--", linewidth=1, zorder=1)
    lo = np.minimum(std, mean)  # no error bar below zero
    ax.errorbar(mean, y, xerr=[lo, std], fmt="none", ecolor="black", capsize=3, linewidth=1)
    xmax = float(np.nanmax(mean + std)) if n else 1.0
    for i in range(n):
        label = f"{mean[i]:.3f} s"
        if i > 0 and mean[0] > 0:
            label += f" ({100 * (mean[i] - mean[0]) / mean[0]:+.1f}%)"
        ax.text(mean[i] + std[i] + 0.01 * xmax, i, label, va="center", fontsize=8)
    ax.set_xlim(0, xmax * 1.22)
    ax.set_yticks(y)
    ax.set_yticklabels([("measured (trace)" if i == 0 else names[i]) for i in range(n)], fontsize=9)
    ax.get_yticklabels()[0].set_fontweight("bold")
    ax.invert_yaxis()
    ax.set_xlabel("mean iteration time (s)")
    ax.set_ylabel("scenario")
    ax.set_title(f"Mean iteration time per scenario: stall vs compute ({gpus} GPU{'' if gpus == 1 else 's'})"
                 + (f"\n{note}" if note else ""))
    ax.grid(axis="x", alpha=0.3)
    ax.legend(handles=[Patch(color=C_STALL, label="stall (s)"),
                       Patch(color=C_COMPUTE, label="compute = iteration - stall (s)"),
                       Patch(fill=False, hatch="//", edgecolor=C_MEASURED, label="measured run"),
                       plt.Line2D([], [], color="black", marker="|", linestyle="none",
                                  markersize=10, label="± std of iteration time")],
              loc="upper center", bbox_to_anchor=(0.5, -0.09 * 9 / max(n, 9) - 0.06), ncol=4,
              fontsize=9, frameon=False)
    save(fig, out, "summary.png", written)


def change_and_interval(summary):
    """Per row: the predicted change of the whole run in % of the measured run, and its 90 %
    interval's ends in % (NaN where a row has none). Without whole-run columns (results of
    older versions), the same from the mean iteration time."""
    f = summary.dtype.names
    run = "run_time" in f and np.isfinite(float(summary["run_time"][0])) and float(summary["run_time"][0]) > 0
    col, lo, hi = ("run_time", "run_time_lo", "run_time_hi") if run else ("iter_time_mean", "iter_time_lo", "iter_time_hi")
    ref = float(summary[col][0])
    pct = lambda v: 100.0 * (np.asarray(v, dtype=float) / ref - 1.0)
    change = pct(summary[col])
    change[0] = 0.0
    nan = np.full(len(summary), np.nan)
    return (change, pct(summary[lo]) if lo in f else nan, pct(summary[hi]) if hi in f else nan,
            "whole run" if run else "mean iteration time")


def plot_ranked(summary, names, out, written, top):
    change, lo, hi, what = change_and_interval(summary)
    order = sorted(range(1, len(summary)), key=lambda i: (np.nan_to_num(change[i], nan=np.inf), i))
    note = None
    if len(order) > top:
        note = f"the {top} largest cuts of {len(order)} scenarios"
        order = order[:top]
    rows = sorted(order + [0], key=lambda i: (change[i], i != 0))
    n = len(rows)
    y = np.arange(n)
    c = np.array([change[i] for i in rows])
    l, h = np.array([lo[i] for i in rows]), np.array([hi[i] for i in rows])
    # a lower end alone: the interval is open above (a noisy base); its bar runs to the
    # plot's right edge, its label says so
    open_ = np.isfinite(l) & ~np.isfinite(h)
    has = np.isfinite(l) & np.isfinite(h)
    fig, ax = plt.subplots(figsize=(11, max(4.5, 0.42 * n + 1.8)))
    # the baseline replays change nothing: grey like the measured run, not a fix
    base = set(baseline_rows(summary))
    colors = [C_MEASURED if i == 0 or i in base else ("#2ca02c" if change[i] < 0 else "#d62728") for i in rows]
    # heals are hatched: run ranks them apart, under "GPUs to fix first", not among the cuts
    heal = [i != 0 and healed(summary[i], summary.dtype.names) for i in rows]
    ax.barh(y, c, color=colors, edgecolor="black", linewidth=0.5, alpha=0.8,
            hatch=["//" if h else "" for h in heal] if any(heal) else None)
    ax.errorbar(c[has], y[has], xerr=[np.clip(c[has] - l[has], 0, None), np.clip(h[has] - c[has], 0, None)],
                fmt="none", ecolor="black", capsize=3, linewidth=1)
    ax.axvline(0, color=C_MEASURED, linestyle="--", linewidth=1)
    span = float(np.nanmax(np.abs(np.concatenate([c, l[has], h[has]])))) if n else 1.0
    span = span if span > 0 else 1.0
    for k, i in enumerate(rows):
        txt = "measured" if i == 0 else f"{c[k]:+.1f}%" + (f" [{l[k]:+.1f}, {h[k]:+.1f}]" if has[k] else
                                                           f" [{l[k]:+.1f}, no bound]" if open_[k] else "")
        ax.text(max(c[k], h[k] if has[k] else c[k], 0) + 0.02 * span, k, txt, va="center", fontsize=8)
    # every bar and whisker inside, with room right of the rightmost for its label
    vals = np.concatenate([c, l[has], h[has], l[open_], [0.0]])
    left, right = float(np.nanmin(vals)), float(np.nanmax(vals))
    width = right - left if right > left else 1.0
    ax.set_xlim(left - 0.05 * width, right + 0.45 * width)
    if open_.any():  # the lower whisker alone; the label says the interval has no upper bound
        ax.errorbar(c[open_], y[open_], xerr=[np.clip(c[open_] - l[open_], 0, None), np.zeros(int(open_.sum()))],
                    fmt="none", ecolor="black", capsize=3, linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(["measured (trace)" if i == 0 else names[i] + (" (baseline replay)" if i in base else "")
                        for i in rows], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel(f"predicted change of the {what} (% of the measured run; bars: 90 % interval)")
    if any(heal):
        note = (note + "; " if note else "") + "hatched: heals, which run ranks apart (GPUs to fix first)"
    ax.set_title("Predicted change per scenario, largest cut first" + (f"\n{note}" if note else ""))
    ax.grid(axis="x", alpha=0.3)
    save(fig, out, "ranked.png", written)


def smooth(x, w):
    if len(x) < 3 * w or w < 2:
        return None
    return np.convolve(x, np.ones(w) / w, mode="same")


def plot_timeline(series, chosen, out, written):
    runs = [("measured", series["measured"], C_MEASURED, "-")]
    if chosen:  # dashed, so that it stays visible where it equals the measured run
        runs.append((chosen, series[chosen], C_COMPUTE, "--"))
    fig, axes = plt.subplots(2, 1, figsize=(12, 7), sharex=True)
    n = max(len(r[1]["stall"]) for r in runs)
    w = max(5, n // 50)
    for ax, key, what in ((axes[0], "stall", "stall"), (axes[1], "delay", "delay")):
        values = [np.asarray(s.get(key, np.zeros(0)), dtype=float) for _, s, _, _ in runs]
        for (name, s, colour, style), v in zip(runs, values):
            x = np.arange(len(v))
            ax.plot(x, v, color=colour, linewidth=0.6, alpha=0.45)
            m = smooth(v, w)
            if m is not None:
                ax.plot(x, m, color=colour, linewidth=2, linestyle=style,
                        label=f"{name}: {w}-iteration moving mean (all rows: {v.mean():.4f} s)")
            else:
                ax.plot([], [], color=colour, label=f"{name} (all rows: {v.mean():.4f} s)")
        ax.set_ylabel(f"{what} (s)")
        ax.set_title(f"per-iteration {what} (thin: each iteration; thick: moving mean)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
        ax.set_ylim(bottom=0)
        # a few long iterations (an epoch's first, whose workers start) would flatten the rest:
        # the axis then stops at twice the 99th percentile, and says what it leaves out
        v = np.concatenate([a for a in values if a.size]) if any(a.size for a in values) else np.zeros(0)
        top = 2 * float(np.percentile(v, 99)) if v.size else 0.0
        if top > 0 and v.max() > 2 * top:
            ax.set_ylim(0, top)
            above = int((v > top).sum())
            ax.text(0.01, 0.97, f"{above} value{'s' if above != 1 else ''} above the axis, up to {v.max():.3g} s",
                    transform=ax.transAxes, va="top", fontsize=8,
                    bbox=dict(facecolor="white", alpha=0.8, edgecolor="none"))
    axes[1].set_xlabel("iteration (row of the per-iteration series; warm-up rows included)")
    fig.suptitle("Stall and delay per iteration: measured" + (f" vs {chosen}" if chosen else ""))
    fig.tight_layout()
    save(fig, out, "timeline.png", written)


def plot_heatmap(measured, gpus_max, out, written):
    st = np.asarray(measured["stall_time"], dtype=float)
    if st.ndim != 2 or st.size == 0:
        return False
    n, g = st.shape
    gpu_ids = np.arange(g)
    if g > gpus_max:  # keep the GPUs that stall most, in GPU order
        gpu_ids = np.sort(np.argsort(-st.mean(axis=0), kind="stable")[:gpus_max])
        st = st[:, gpu_ids]
    k = int(np.ceil(n / MAX_COLUMNS))
    if k > 1:  # bin k iterations per column, keeping each bin's largest stall
        pad = (-n) % k
        st = np.pad(st, ((0, pad), (0, 0)), constant_values=np.nan)
        st = np.nanmax(st.reshape(-1, k, st.shape[1]), axis=1)
    pos = st[st > 0]  # mostly zeros: scale on the stalls themselves, sqrt to show small ones
    vmax = float(np.percentile(pos, 99)) if pos.size else 1.0
    norm = matplotlib.colors.PowerNorm(0.5, vmin=0, vmax=vmax)
    fig = plt.figure(figsize=(13, max(4.5, min(12, 0.25 * len(gpu_ids) + 2.5))))
    gs = fig.add_gridspec(1, 4, width_ratios=[34, 0.8, 4.5, 7], wspace=0.05)  # gs[2]: gap
    ax, cax = fig.add_subplot(gs[0]), fig.add_subplot(gs[1])
    axm = fig.add_subplot(gs[3], sharey=ax)
    im = ax.imshow(st.T, aspect="auto", interpolation="nearest", cmap="magma", norm=norm,
                   extent=(0, n, len(gpu_ids) - 0.5, -0.5))
    step = max(1, len(gpu_ids) // 16)
    ticks = np.arange(0, len(gpu_ids), step)
    ax.set_yticks(ticks)
    ax.set_yticklabels([str(gpu_ids[t]) for t in ticks])
    ax.set_xlabel("iteration (row)" + (f", {k} iterations per column (max)" if k > 1 else ""))
    ax.set_ylabel("GPU")
    shown = f"{len(gpu_ids)} of {g} GPUs (most stalled)" if len(gpu_ids) < g else f"{g} GPUs"
    ax.set_title(f"Measured run: per-GPU stall ({shown}); bright = straggler wait", fontsize=10)
    cb = fig.colorbar(im, cax=cax, extend="max" if vmax < np.nanmax(st) else "neither")
    cb.set_label("stall (s)" + (f"; colours capped at {vmax:.2f} s" if vmax < np.nanmax(st) else ""))
    mean = np.asarray(measured["stall_time"], dtype=float)[:, gpu_ids].mean(axis=0)
    axm.barh(np.arange(len(gpu_ids)), mean, color=C_STALL)
    axm.set_xlabel("mean stall (s)")
    axm.tick_params(axis="y", labelleft=False)
    axm.set_title("mean per GPU", fontsize=10)
    axm.grid(axis="x", alpha=0.3)
    save(fig, out, "heatmap.png", written)
    return True


def main():
    ap = argparse.ArgumentParser(description="PNG figures from a stallsim results folder.")
    ap.add_argument("results_dir", metavar="RESULTS_DIR", help="folder holding results.h5")
    ap.add_argument("--scenario", metavar="NAME",
                    help="scenario for timeline.png, by its name or its label in the table (default: the fastest "
                         "other than measured)")
    ap.add_argument("--out", metavar="DIR", help="output folder (default: RESULTS_DIR/plots)")
    ap.add_argument("--gpus-max", metavar="N", type=int, default=64,
                    help="at most N GPUs in heatmap.png (default 64)")
    ap.add_argument("--top", metavar="N", type=int, default=40,
                    help="summary.png of a larger sweep shows the N fastest scenarios, plus the measured "
                         "and baseline rows (default 40)")
    a = ap.parse_args()
    if a.gpus_max < 1:
        ap.error("--gpus-max must be at least 1")
    if a.top < 1 or a.top > 400:
        ap.error("--top must be from 1 to 400")
    summary, gpus, series = load(a.results_dir)
    names = [text(v) for v in summary["scenario"]]
    # the rows as run's table labels them (summary.csv's label column; older results: the names)
    labels = [text(v) for v in summary["label"]] if "label" in summary.dtype.names else names
    # --scenario: a scenario's name, or its label as the table prints it ("pipe W=4": every
    # part of it a whole part of the row's full label)
    if a.scenario is not None and a.scenario not in names[1:]:
        want = set(a.scenario.split())
        hits = [n for n, l in zip(names[1:], labels[1:]) if want and want <= set(l.split())]
        if len(hits) != 1:
            die(f"no scenario {a.scenario!r} in {a.results_dir} (a name or a label of summary.csv); have: "
                f"{', '.join(names[1:]) or 'none'}" if not hits else
                f"{len(hits)} scenarios of {a.results_dir} match the label {a.scenario!r}: give one's name, from "
                f"{', '.join(hits)}")
        a.scenario = hits[0]
    out = a.out or os.path.join(a.results_dir, "plots")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        die(f"cannot create {out}: {e}")
    written = []
    plot_summary(summary, labels, gpus, out, written, a.top)
    plot_ranked(summary, labels, out, written, a.top)
    if "measured" in series:
        chosen = a.scenario
        if chosen is None and len(names) > 1:
            chosen = names[1 + int(np.nanargmin(summary["iter_time_mean"][1:]))]
        if chosen is not None and chosen not in series:
            print(f"note: no per-iteration series for {chosen}; timeline shows the measured run only")
            chosen = None
        plot_timeline(series, chosen, out, written)
        if not plot_heatmap(series["measured"], a.gpus_max, out, written):
            print("note: no per-GPU stall_time in the measured series; heatmap.png not written")
    else:
        print(f"note: {a.results_dir} has no per-iteration data; only summary.png and ranked.png were written. "
              "Rerun with per_iteration = true in [output] (or --set output.per_iteration=true) "
              "for timeline.png and heatmap.png.")
    for p in written:
        print(f"wrote {p}")


if __name__ == "__main__":
    main()
