#!/usr/bin/env bash
# validate_pytorch.sh - holds stallsim's predictions against real PyTorch runs.
#
# RECORD phase (slow, ~10 minutes): real DDP jobs (gloo, 4 ranks on this machine) of
# scripts/workloads/pytorch_bench.py, recorded with scripts/stallsim_record.py and imported with
# `stallsim import pytorch`, over the grid workers 1,2,4,8 x storage latency x1,x0.5 x
# prefetch 2,4, plus synchronous loading (workers 0) at x1 and x0.5; the base point (2 workers, x1, prefetch 2) twice more (run-to-run noise);
# the base point with rank 3's storage 3x slower. Writes DIR/<point>.h5 (and the raw record
# files under DIR/raw/, gzipped).
#
# PREDICT phase (fast, seconds): from the ONE base trace DIR/w2-x1-p2.h5, `stallsim run`
# predicts every other point with pipeline scenarios (workers=0,1,2,4,8, prefetch=2,4,
# fetch_scale=1,0.5), `stallsim compare` sets each prediction beside the real run, and a
# table of errors (mean iteration time, mean stall) is printed, with the run-to-run noise
# of the repeated base runs (and of any point recorded again as DIR/<point>-repN.h5), the
# same predictions from each repeat of the base run (w2-x1-p2-rep1, -rep2: how much the
# predictions depend on which run was recorded) and the slow-rank case. Needs only the
# DIR/*.h5 traces.
#
# REGIMES experiment (--regimes): 2-rank jobs with synchronous loading and 1, 2, 4
# workers (storage 3 ms per sample, batch 12, 15 ms step, 2 epochs x 100 batches); each
# trace predicts every other (workers = 0, 1, 2, 4 from each), so every change of regime
# is checked: synchronous to workers and back, loader-bound to loader-ahead and back.
# Plus w2-slow1 (2 workers, rank 1's storage 3x slower): healing rank 1 (heal = 1) is set
# against the real run without the slow rank (w2), with a core per training process.
# DIR defaults to datasets/pytorch-regimes.
#
# STORAGE experiment (--storage): "what if the storage were twice as fast" when the loader
# also does CPU work. 2-rank jobs whose samples take 3 ms of storage latency and then 2 ms
# of CPU (decoding), batch 8, 10 ms step, 1 and 2 workers, at latency x1 and x0.5. Each x1
# trace predicts its x0.5 run with fetch_scale = 0.5, once scaling only the storage part
# (pipeline.fetch_cpu = auto: the recorded CPU time of each fetch stays) and once scaling
# the whole fetch (fetch_cpu = 0); w2-x1 also predicts 4 workers (w4-x1). Each prediction
# comes with the share of the cores it would keep busy (cpu_load_pct). DIR defaults to
# datasets/pytorch-storage.
#
# WORKLOADS (--workloads): the predictions on the thirteen workloads that helper sessions wrote
# as new users (datasets/pytorch-cnn, -zlib, -bigbatch, -text, -tail, -seq, -epochs, -sync,
# -vision, -spectra, -wave, -bursty, -stream (an IterableDataset),
# and -bigbatch-b: the bigbatch runs recorded again with format 3, the waits for a core
# measured; scripts/workloads/pytorch_cnn.py, _zlib.py, _bigbatch.py, _text.py, _tail.py, _seq.py,
# _epochs.py, _sync.py, _vision.py, _spectra.py, _wave.py, _bursty.py, _stream.py record them): 30 tables, from each base
# trace (1 worker; 2 for epochs, vision and spectra; synchronous for sync; 8, 2 and 1 for wave; prefetch 2, 1 and 8 for bursty; two base runs for stream) every other real run, with and without CPU sharing, the
# same from a trace with more workers, and the slow rank healed where a slow-rank run and a
# base.h5 were recorded. Predicts only (stallsim's default warm-up, as README's tables); to record such
# runs again, see each dataset's README.
#
# ALL PAIRS (--pairs, with --dir DIR of a grid): each of the grid's runs w<W>-x<X>-p<P>.h5
# predicts every other (its workers and prefetch factor, fetch_scale = its latency / the
# base's), 18 x 17 = 306 predictions for a full grid; prints the mean |error| of the
# iteration time, how many are within 5 %, the mean per base trace and the largest misses.
#
# TWO FAULTS (--twofaults): datasets/pytorch-twofaults (a new user's 4 ranks, rank 1's storage
# 3.5x slower and rank 3's loader CPU work 5x heavier, both on 2 cores; every run twice): from
# each base run, which rank to fix first (heal = each) against the real runs with each fault
# fixed, 4 workers instead, and both fixed (estimated by fetch_align = median, the middle
# two GPUs' mean); both models; errors against the mean of each point's two real runs.
#
# TWO SLOW RANKS (--twoslow, DIR defaults to datasets/pytorch-twoslow): the grid's workload
# (4 ranks, 2 workers, prefetch 2) with ranks 1 and 3's storage 3x and 2x slower (slow13),
# each alone (slow1, slow3) and neither (healthy), every point twice (-rep). From each slow13
# run: both healed together (heal = 1+3) against the healthy runs, rank 1 healed against
# slow3 and rank 3 healed against slow1, both models; errors against each point's mean.
#
# REAL DISK (--disk): datasets/pytorch-disk (a new user's 2 ranks whose loaders read real
# files from the local disk, each evicted from the page cache after it is read: 256 KB files,
# batch 48; 1 MB files, batch 8, mb-*; 16 KB files, batch 64, sm-*; workers 0, 1, 2, 4, 8,
# every point twice): from each 1- and 2-worker run (and the 4-worker mb- and sm- runs) every
# worker count, without storage sharing ([pipeline] storage_parallel = 0) and with it
# (storage_parallel = 2, or 4 for the 16 KB files: this VM's disk as scripts/storage_probe.py
# measures it); errors against the mean of each point's two runs.
#
# usage: scripts/validation/validate_pytorch.sh [--regimes | --storage | --workloads | --pairs | --twofaults | --twoslow | --disk] [--record] [--predict] [--dir DIR] [--iterations N] [--warmup N]
#                                    [--only "POINT..."] [--latency S] [--compute S] [--batch N] [--decode S] [--ranks N]
#                                    [--bench-args "ARGS"]
#   no phase named: --predict only (it never touches the traces). --record overwrites
#   DIR/*.h5; name both phases to record and then predict. DIR defaults to
#   datasets/pytorch-grid. --iterations N: batches per epoch per rank to record (150;
#   regimes 100; storage 80). --warmup N: iterations per epoch left out of every mean (default 10).
#   --only "w2-slow1 ...": record only these points (the others' traces are kept; the
#   provenance gets a line for them).
#   --latency S, --compute S, --batch N, --decode S: record the grid with another workload
#   (seconds of storage latency per sample at x1, of emulated accelerator time per step,
#   the batch size, seconds of CPU work per sample in the loader; the grid's defaults
#   0.006, 0.015, 12, 0), to check the predictions on a balance of your own.
#   --ranks N: with --record, record the grid with N DDP ranks (default 4; 4 to 64, as
#   rank 3 is the slow rank; the regimes and storage experiments record 2; the prediction
#   phases read the ranks off the traces).
#   --bench-args "ARGS": with --record, more options for every point's pytorch_bench.py
#   (for example "--fixed-work --compute-cpu": a workload whose times follow the machine's speed).
#   Record on an otherwise idle machine: other jobs change the runs by up to 20 %.
#   VALIDATION_POINTS=FILE: the phases --regimes, --storage, --workloads, --twofaults,
#   --twoslow and --disk also append each prediction to FILE as a CSV row (dataset, base,
#   target, scenario, kind, predicted, real); scripts/validation/tables.py uses it.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/scripts/env.sh"
py=/usr/bin/python3
# the prediction phases' Python finds points.py beside this script
export PYTHONPATH="$here/scripts/validation${PYTHONPATH:+:$PYTHONPATH}"
dir=$here/datasets/pytorch-grid
# make_work: a scratch folder in $work, removed when the script ends
make_work() {
  work=$(mktemp -d /tmp/stallsim-validate-XXXXXX)
  trap 'rm -rf "$work"' EXIT
}
# scenario_ini INI TRACE WARMUP 'LINES': a scenario file INI replaying TRACE (warm-up
# WARMUP; empty: stallsim's default) over the [scenarios] LINES (\n between them; later
# sections may follow), writing to INI's name less .ini
scenario_ini() {
  {
    printf '[trace]\npath = %s\n' "$2"
    if [ -n "$3" ]; then printf 'warmup_iterations = %s\n' "$3"; fi
    printf '[scenarios]\n%b\n[output]\ndir = %s\n' "$4" "${1%.ini}"
  } > "$1"
}
o_latency="" o_compute="" o_batch="" o_decode="" o_ranks="" bench_args=""
record=0 predict=0 iters="" warmup=10 regimes=0 storage=0 workloads=0 pairs=0 twofaults=0 twoslow=0 disk=0 dir_set=0 only=""
while [ $# -gt 0 ]; do
  case $1 in
    --regimes) regimes=1; shift ;;
    --storage) storage=1; shift ;;
    --workloads) workloads=1; shift ;;
    --twofaults) twofaults=1; shift ;;
    --twoslow) twoslow=1; shift ;;
    --disk) disk=1; shift ;;
    --pairs) pairs=1; shift ;;
    --record) record=1; shift ;;
    --predict) predict=1; shift ;;
    --dir) dir=$2; dir_set=1; shift 2 ;;
    --iterations) iters=$2; shift 2 ;;
    --latency) o_latency=$2; shift 2 ;;
    --compute) o_compute=$2; shift 2 ;;
    --batch) o_batch=$2; shift 2 ;;
    --decode) o_decode=$2; shift 2 ;;
    --ranks) o_ranks=$2; shift 2 ;;
    --bench-args) bench_args=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 { if (/^#/) print; else exit }' "$0"; exit 0 ;;
    *) echo "validate_pytorch.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $record -eq 0 ] && [ $predict -eq 0 ] && predict=1
if [ -n "$o_ranks" ] && { ! [[ $o_ranks =~ ^[0-9]+$ ]] || [ "$o_ranks" -lt 4 ] || [ "$o_ranks" -gt 64 ] ||
  [ $((regimes + storage + workloads + pairs + twofaults + twoslow + disk)) -gt 0 ] || [ $record -eq 0 ]; }; then
  echo "validate_pytorch.sh: --ranks $o_ranks: records the grid (with --record) with 4 to 64 ranks (rank 3 is its slow rank); the other phases have their own" >&2
  exit 2
fi
if [ $pairs -eq 1 ]; then
  [ $regimes -eq 0 ] && [ $storage -eq 0 ] && [ $workloads -eq 0 ] && [ $record -eq 0 ] ||
    { echo "validate_pytorch.sh: --pairs predicts only, with --dir DIR" >&2; exit 2; }
  stallsim=$here/build/stallsim
  [ -x "$stallsim" ] || "$here/scripts/setup.sh"
  make_work
  $py - "$stallsim" "$dir" "$work" "$warmup" <<'PY'
import csv, glob, os, re, subprocess, sys
ss, d, work, warmup = sys.argv[1:5]
d = os.path.abspath(d)
pat = re.compile(r"w(\d+)-x([\d.]+)-p(\d+)\.h5$")
pts = sorted(os.path.basename(x)[:-3] for x in glob.glob(os.path.join(d, "w*.h5")) if pat.match(os.path.basename(x)))
if len(pts) < 2:
    sys.exit("validate_pytorch.sh: --pairs needs grid runs w<W>-x<X>-p<P>.h5 in %s" % d)
setting = {p: (int(m.group(1)), float(m.group(2)), int(m.group(3))) for p in pts for m in [pat.match(p + ".h5")]}
errs, per_base = [], {}
for b in pts:
    wb, xb, pb = setting[b]
    scales = sorted({setting[t][1] / xb for t in pts})
    ini = os.path.join(work, b + ".ini")
    with open(ini, "w") as f:
        f.write("[trace]\npath = %s\nwarmup_iterations = %s\n[scenarios]\nmodel = pipeline\n"
                "workers = %s\nprefetch = %s\nfetch_scale = %s\n[output]\ndir = %s\n" % (
                    os.path.join(d, b + ".h5"), warmup, ", ".join(str(w) for w in sorted({setting[t][0] for t in pts})),
                    ", ".join(str(p) for p in sorted({setting[t][2] for t in pts})),
                    ", ".join("%.17g" % x for x in scales), os.path.join(work, "o-" + b)))
    subprocess.run([ss, "run", ini, "--quiet"], check=True)
    sett = {r["scenario"]: r for r in csv.DictReader(open(os.path.join(work, "o-" + b, "summary.csv")))}
    for t in pts:
        if t == b:
            continue
        wt, xt, pt = setting[t]
        c = os.path.join(work, "c.csv")
        subprocess.run([ss, "compare", os.path.join(d, t + ".h5"), os.path.join(work, "o-" + b), "--warmup", warmup,
                        "--csv", c], check=True, stdout=subprocess.DEVNULL)
        rows = list(csv.DictReader(open(c)))
        real = float(rows[0]["iter_time_mean"])
        hit = [r for r in rows[1:] if r["scenario"] in sett and sett[r["scenario"]]["workers"] not in ("", None)
               and int(float(sett[r["scenario"]]["workers"])) == wt
               and (wt == 0 or int(float(sett[r["scenario"]]["prefetch"])) == pt)
               and abs(float(sett[r["scenario"]]["fetch_scale"]) - xt / xb) < 1e-9]
        if wt == 0:
            hit = hit[:1]  # the prefetch factor means nothing without workers
        if len(hit) != 1:
            sys.exit("no single scenario for %s from %s" % (t, b))
        e = 100 * (float(hit[0]["iter_time_mean"]) / real - 1)
        errs.append((abs(e), e, b, t))
        per_base.setdefault(b, []).append(abs(e))
n = len(errs)
print("All pairs of the %d runs of %s (each predicting the %d others; warm-up %s): %d predictions" % (
    len(pts), d, len(pts) - 1, warmup, n))
print("  mean |error| of the iteration time %.2f %%, %d within 5 %%" % (sum(a for a, _, _, _ in errs) / n,
                                                                       sum(a <= 5 for a, _, _, _ in errs)))
print("  per base trace: " + ", ".join("%s %.1f %%" % (b, sum(v) / len(v)) for b, v in per_base.items()))
print("  largest misses: " + ", ".join("%s -> %s %+.1f %%" % (b, t, e) for _, e, b, t in sorted(errs, reverse=True)[:6]))
PY
  exit 0
fi
if [ $disk -eq 1 ]; then
  d=$here/datasets/pytorch-disk
  stallsim=$here/build/stallsim
  [ -x "$stallsim" ] || "$here/scripts/setup.sh"
  make_work
  echo "Real disk (datasets/pytorch-disk; warm-up $warmup): error of the predicted mean iteration time against the mean of each point's two real runs"
  for b in w1-a w1-b w2-a w2-b mb-w1-a mb-w1-b mb-w2-a mb-w2-b mb-w4-a sm-w1-a sm-w1-b sm-w2-a sm-w2-b sm-w4-a; do
    case $b in sm-*) on=4 ;; *) on=2 ;; esac
    for n in 0 $on; do
      scenario_ini "$work/$b-$n.ini" "$d/$b.h5" "$warmup" "model = pipeline\nworkers = 0, 1, 2, 4, 8\n[pipeline]\nstorage_parallel = $n"
      "$stallsim" run "$work/$b-$n.ini" --quiet
    done
  done
  for p in "" mb- sm-; do for w in 0 1 2 4 8; do for r in a b; do
    "$stallsim" compare "$d/${p}w$w-$r.h5" --warmup "$warmup" --csv "$work/real-${p}w$w-$r.csv" >/dev/null
  done; done; done
  $py - "$work" <<'PY'
import csv, os, sys
work = sys.argv[1]
from points import log_point  # one prediction for VALIDATION_POINTS
def mean_of(name):
    return float(next(csv.DictReader(open(os.path.join(work, "real-%s.csv" % name))))["iter_time_mean"])
for pre, title, on in (("", "256 KB files, batch 48", 2), ("mb-", "1 MB files, batch 8", 2),
                       ("sm-", "16 KB files, batch 64 (the loaders' CPU sets the pace; storage_probe.py: N = 4)", 4)):
    real = {w: [mean_of("%sw%d-%s" % (pre, w, r)) for r in "ab"] for w in (0, 1, 2, 4, 8)}
    print("%s: real s (two runs) %s" % (title, ", ".join("W=%d %.4f/%.4f" % (w, v[0], v[1]) for w, v in real.items())))
    print("  %-10s %-15s %s" % ("base", "storage_parallel", "  ".join("%11s" % ("W=%d" % w) for w in real)) + "  mean |error|")
    total = {0: [], on: []}
    for base in ("w1-a", "w1-b", "w2-a", "w2-b") + (("w4-a",) if pre else ()):
        for n in (0, on):
            rows = [x for x in csv.DictReader(open(os.path.join(work, "%s%s-%d" % (pre, base, n), "summary.csv")))
                    if x["model"] == "pipeline"]
            cells, errs = [], []
            for w in real:
                hit = [x for x in rows if x["workers"] == str(w)]
                e = 100 * (float(hit[0]["iter_time_mean"]) / (sum(real[w]) / 2) - 1)
                own = "w%d-" % w in base
                cells.append("%+9.1f %%%s" % (e, "*" if own else " "))
                if not own:
                    errs.append(abs(e))
                    log_point("pytorch-disk", pre + base, "%sw%d" % (pre, w), "workers = %d, storage_parallel = %d" % (w, n),
                          "steady", float(hit[0]["iter_time_mean"]), sum(real[w]) / 2)
            total[n] += errs
            print("  %-10s %-15d %s  %5.1f %%" % (pre + base, n, "  ".join(cells), sum(errs) / len(errs)))
    print("  over the bases: %.1f %% without storage sharing, %.1f %% with storage_parallel = %d (* the base's own setting, left out)"
          % (sum(total[0]) / len(total[0]), sum(total[on]) / len(total[on]), on))
PY
  exit 0
fi
if [ $twofaults -eq 1 ]; then
  d=$here/datasets/pytorch-twofaults
  stallsim=$here/build/stallsim
  [ -x "$stallsim" ] || "$here/scripts/setup.sh"
  make_work
  echo "Two faults (datasets/pytorch-twofaults; warm-up $warmup): predicted s / error against the real runs' mean"
  for b in base base-rep; do
    scenario_ini "$work/$b.ini" "$d/$b.h5" "$warmup" 'model = independent, pipeline\nheal = none, each, 1+3\nworkers = auto, 4'
    "$stallsim" run "$work/$b.ini" > "$work/$b.txt"
    scenario_ini "$work/$b-med.ini" "$d/$b.h5" "$warmup" 'model = independent, pipeline\nfetch_align = median'
    "$stallsim" run "$work/$b-med.ini" --quiet
  done
  for r in base base-rep stofix stofix-rep cpufix cpufix-rep healthy healthy-rep w4 w4-rep; do
    "$stallsim" compare "$d/$r.h5" --warmup "$warmup" --csv "$work/real-$r.csv" >/dev/null
  done
  $py - "$work" <<'PY'
import csv, os, sys
work = sys.argv[1]
from points import log_point  # one prediction for VALIDATION_POINTS
real = {}
for r in ("base", "stofix", "cpufix", "healthy", "w4"):
    v = [float(next(csv.DictReader(open(os.path.join(work, "real-%s%s.csv" % (r, s)))))["iter_time_mean"]) for s in ("", "-rep")]
    real[r] = (v, sum(v) / 2)
points = (("rank 1's storage fixed (heal = 1)", "stofix", lambda x: x["heal_gpu"] == "1" and x["workers"] in ("", "2")),
          ("rank 3's CPU fault fixed (heal = 3)", "cpufix", lambda x: x["heal_gpu"] == "3" and x["workers"] in ("", "2")),
          ("4 workers instead", "w4", lambda x: x["heal_gpus"] == "" and x["workers"] == "4"),
          ("both fixed (heal = 1+3)", "healthy", lambda x: x["heal_gpus"] == "1+3" and x["workers"] in ("", "2")),
          ("both fixed (fetch_align = median)", "healthy", None))
errs = {"independent": [], "pipeline": []}
for b in ("base", "base-rep"):
    rows = list(csv.DictReader(open(os.path.join(work, b, "summary.csv"))))
    med = list(csv.DictReader(open(os.path.join(work, b + "-med", "summary.csv"))))
    print("from %s (real %.4f s):" % (b, real["base"][0][0 if b == "base" else 1]))
    print("  %-38s %-16s %-18s %-18s" % ("what-if", "real s", "independent", "pipeline"))
    for what, r, sel in points:
        cells = []
        for model in ("independent", "pipeline"):
            src = med if sel is None else rows
            hit = [x for x in src if x["model"] == model and (sel is None or sel(x))]
            if not hit:
                cells.append("%-18s" % "-")
                continue
            p = float(hit[0]["iter_time_mean"])
            e = 100 * (p / real[r][1] - 1)
            errs[model].append(abs(e))
            log_point("pytorch-twofaults", b, r, "%s, %s model" % (what, model), "steady", p, real[r][1])
            cells.append("%.4f %+6.1f %%   " % (p, e))
        print("  %-38s %.4f, %.4f %s" % (what, real[r][0][0], real[r][0][1], " ".join(cells)))
    print("  " + "\n  ".join(l.strip() for l in open(os.path.join(work, b + ".txt"))
                             if l.startswith("  GPU ") or l.startswith("GPUs to fix first")
                             or l.startswith("CPU-heavy")))
for m, e in errs.items():
    print("mean |error| %s: %.1f %% over %d predictions" % (m, sum(e) / len(e), len(e)))
PY
  exit 0
fi
if [ $workloads -eq 1 ]; then
  [ $regimes -eq 0 ] && [ $storage -eq 0 ] && [ $record -eq 0 ] ||
    { echo "validate_pytorch.sh: --workloads predicts only, alone" >&2; exit 2; }
  stallsim=$here/build/stallsim
  [ -x "$stallsim" ] || "$here/scripts/setup.sh"
  make_work
  # workload NAME DATASET BASE "REAL..." [SLOW_GPU] [BASE_WORKERS]: BASE predicts every REAL
  # run (with and without CPU sharing); slow<G>.h5 healed against base.h5; base and half
  # runs have BASE_WORKERS workers (1)
  workload() {
    local name=$1 d=$here/datasets/$2 base=$3 reals=$4 slow=${5:-} bw=${6:-1} share r
    for share in true false; do
      scenario_ini "$work/$name-$base-$share.ini" "$d/$base.h5" "" \
        "model = pipeline\nworkers = auto, 0, 1, 2, 3, 4, 6, 8\nprefetch = auto, 1, 2, 4, 8\nfetch_scale = 1, 0.5\n[pipeline]\ncpu_sharing = $share"
      "$stallsim" run "$work/$name-$base-$share.ini" --quiet
      for r in $reals; do
        "$stallsim" compare "$d/$r.h5" "$work/$name-$base-$share" --csv "$work/cmp-$name-$base-$share-$r.csv" >/dev/null
      done
    done
    if [ -n "$slow" ]; then
      scenario_ini "$work/$name-heal.ini" "$d/slow$slow.h5" "" "model = independent, pipeline\nprefetch = auto\nheal = $slow"
      "$stallsim" run "$work/$name-heal.ini" --quiet
      "$stallsim" compare "$d/base.h5" "$work/$name-heal" --csv "$work/cmp-$name-heal.csv" >/dev/null
    fi
    $py - "$work" "$name" "$base" "$slow" "$bw" $reals <<'PY'
import csv, os, re, sys
work, name, base, slow, bw, reals = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
from points import log_point  # one prediction for VALIDATION_POINTS
def point(r):  # the scenario of a real run's settings: its workers, prefetch (wNpM) and latency (x0.5, half)
    m = re.match(r"w(\d+)(?:p(\d+))?", r)
    w = m.group(1) if m else (bw if r.startswith(("half", "base")) else None)  # those record bw workers
    p = m.group(2) if m and m.group(2) else "auto"
    return w, p, "0.5" if ("x0.5" in r or "half" in r) else "1"
print("%s, from %s:" % (name, base))
print("  %-10s %9s %10s %8s %5s %12s %8s" % ("real run", "real (s)", "predicted", "err %", "cpu%", "no sharing", "err %"))
errs = []
for r in reals:
    w, pf, fs = point(r)
    line = "  %-10s" % r
    for share in ("true", "false"):
        sset = {x["scenario"]: x for x in csv.DictReader(open(os.path.join(work, "%s-%s-%s" % (name, base, share), "summary.csv")))}
        rows = list(csv.DictReader(open(os.path.join(work, "cmp-%s-%s-%s-%s.csv" % (name, base, share, r)))))
        real = float(rows[0]["iter_time_mean"])
        # the explicit count (w-1), or auto where the trace has that count (the baseline)
        hit = [x for x in rows[1:] if "_w-%s_p%s_fs%s_" % (w, pf, fs) in x["scenario"]]
        p = float(hit[0]["iter_time_mean"])
        load = sset[hit[0]["scenario"]].get("cpu_load_pct", "")
        e = 100 * (p / real - 1)
        if share == "true":
            errs.append(abs(e))
            log_point("pytorch-" + name, base, r, "workers = %s, prefetch = %s, fetch_scale = %s" % (w, pf, fs), "steady",
                  p, real)
            line += " %9.4f %10.4f %+8.1f %5s" % (real, p, e, "%.0f" % float(load) if load else "-")
        else:
            line += " %12.4f %+8.1f" % (p, e)
    print(line)
print("  mean |error| with CPU sharing: %.1f %%" % (sum(errs) / len(errs)))
if slow:
    rows = list(csv.DictReader(open(os.path.join(work, "cmp-%s-heal.csv" % name))))
    real = float(rows[0]["iter_time_mean"])
    for x in rows[1:]:
        if x["scenario"].endswith("_heal-" + slow):
            log_point("pytorch-" + name, "slow" + slow, "base", "heal = %s, %s model" % (slow, x["scenario"].split("_")[0]),
                  "steady", float(x["iter_time_mean"]), real)
            print("  slow%s.h5 healed (%s): %.4f s against base.h5's %.4f s (%+.1f %%)" % (
                slow, x["scenario"].split("_")[0], float(x["iter_time_mean"]), real,
                100 * (float(x["iter_time_mean"]) / real - 1)))
PY
  }
  workload cnn pytorch-cnn w1-x1 "w0-x1 w2-x1 w4-x1 w1-x0.5 w2-x0.5"
  workload cnn pytorch-cnn w2-x1 "w1-x1 w0-x1 w4-x1 w1-x0.5 w2-x0.5"
  workload zlib pytorch-zlib base "w0 w2 w3 w1-x0.5 w2-x0.5" 2
  workload zlib pytorch-zlib w3 "base w0"
  workload bigbatch pytorch-bigbatch base "w0 w2 w3 half" 3
  workload bigbatch pytorch-bigbatch w3 "base w0 w2"
  workload bigbatch-b pytorch-bigbatch-b base "w0 w2 w3 half" 3
  workload bigbatch-b pytorch-bigbatch-b w3 "base w0 w2"
  workload text pytorch-text base "w0 w2 w4 half" 1
  workload text pytorch-text w4 "base w0 w2 half"
  workload tail pytorch-tail base "w0 w2 w4 half w2-half" 2
  workload tail pytorch-tail w4 "base w0 w2 half"
  workload vision pytorch-vision base "w0 w1 w4 half" 2 2
  workload vision pytorch-vision w4 "base w0 w1" "" 2
  workload spectra pytorch-spectra base "w0 w1 w3 w4 half w1-x0.5" 1 2
  workload spectra pytorch-spectra w1 "base w0 w3 w4 w1-x0.5" "" 2
  workload seq pytorch-seq base "w0 w2 w3 half" 1
  workload seq pytorch-seq w3 "base w0 w2 half"
  workload epochs pytorch-epochs base "w1 w4 w6 half" 3 2
  workload epochs pytorch-epochs w6 "base w1 w4 half" "" 2
  workload sync pytorch-sync w0 "w1 w2 half0" "" 0
  workload sync pytorch-sync w2 "w0 w1" "" 0
  workload wave pytorch-wave w8p4 "w8p4b w4p2 w4p2b w2p2 w2p2b w1p2 w1p2b w1p2c" "" 8
  workload wave pytorch-wave w2p2 "w8p4 w8p4b w4p2 w4p2b w2p2b w1p2 w1p2b w1p2c" "" 2
  workload wave pytorch-wave w1p2 "w8p4 w8p4b w4p2 w4p2b w2p2 w2p2b w1p2b w1p2c" "" 1
  workload bursty pytorch-bursty w2p2 "w2p1 w2p2b w2p4 w2p8 w4p2" "" 2
  workload bursty pytorch-bursty w2p1 "w2p2 w2p2b w2p4 w2p8 w4p2" "" 2
  workload bursty pytorch-bursty w2p8 "w2p1 w2p2 w2p2b w2p4 w4p2" "" 2
  workload stream pytorch-stream base "w0 w0b w2 w2b w3 w3b w4 w4b half halfb w0-x0.5 w0-x0.5b w2-x0.5 w2-x0.5b base2" "" 1
  workload stream pytorch-stream base2 "w0 w0b w2 w2b w3 w3b w4 w4b half halfb w0-x0.5 w0-x0.5b w2-x0.5 w2-x0.5b base" "" 1
  echo "cpu%: the share of the cores the predicted run would keep busy (cpu_load_pct); no sharing: [pipeline] cpu_sharing = false"
  exit 0
fi
[ $regimes -eq 1 ] && [ $storage -eq 1 ] && { echo "validate_pytorch.sh: --regimes or --storage, not both" >&2; exit 2; }
[ $regimes -eq 1 ] && [ $dir_set -eq 0 ] && dir=$here/datasets/pytorch-regimes
[ $storage -eq 1 ] && [ $dir_set -eq 0 ] && dir=$here/datasets/pytorch-storage
[ $twoslow -eq 1 ] && [ $dir_set -eq 0 ] && dir=$here/datasets/pytorch-twoslow
stallsim=$here/build/stallsim
[ -x "$stallsim" ] || "$here/scripts/setup.sh"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# the bench's fixed settings (the grid varies workers, prefetch and latency)
latency=0.006 compute=0.015 batch=12 epochs=2 ranks=4 busy_log=""
decode=0
[ $regimes -eq 1 ] && latency=0.003 ranks=2
[ $storage -eq 1 ] && latency=0.003 ranks=2 batch=8 compute=0.010 decode=0.002
latency=${o_latency:-$latency} compute=${o_compute:-$compute} batch=${o_batch:-$batch} decode=${o_decode:-$decode}
[ -n "$o_ranks" ] && ranks=$o_ranks
[ -n "$iters" ] || { [ $regimes -eq 1 ] && iters=100 || { [ $storage -eq 1 ] && iters=80; } || iters=150; }

# cpu_ticks: "busy total" clock ticks of all cores since boot (/proc/stat)
cpu_ticks() {
  local a total=0 i
  a=($(head -1 /proc/stat))
  for i in 1 2 3 4 5 6 7 8; do total=$((total + a[i])); done
  echo "$((total - a[4] - a[5])) $total"
}

# busy_pct: the share of the machine's CPU time (all cores) used over the next 2 seconds
busy_pct() {
  local a b
  a=($(cpu_ticks)); sleep 2; b=($(cpu_ticks))
  echo $(( b[1] > a[1] ? 100 * (b[0] - a[0]) / (b[1] - a[1]) : 0 ))
}

# waits (up to 2 minutes) until nothing else uses more than 10 % of the CPU: other jobs
# change the runs by up to 20 % (datasets/VALIDATION-history.md)
wait_idle() {
  local t=0 b
  while b=$(busy_pct); [ "$b" -gt 10 ]; do
    [ $t -eq 0 ] && echo "record: the machine is busy ($b % of the CPU); waiting until it is idle"
    t=$((t + 2))
    [ $t -ge 120 ] && { echo "record: WARNING: still busy ($b %) after 2 minutes; recording anyway" >&2; break; }
  done
  busy_log+="$1 ${b}% "
}

# record NAME WORKERS LATENCY_SCALE PREFETCH [bench options...]
# A point is recorded again (up to twice) when other processes used more than 10 % of the
# CPU while it ran: the machine's busy ticks minus the job's own CPU time.
record_point() {
  local name=$1 w=$2 x=$3 p=$4
  shift 4
  if [ -n "$only" ] && ! [[ " $only " == *" $name "* ]]; then return 0; fi
  local lat
  lat=$($py -c "print($latency * $x)")
  local raw=$dir/raw/$name try other
  for try in 1 2 3; do
    wait_idle "$name"
    rm -rf "$raw"
    mkdir -p "$raw"
    echo "record: $name (workers $w, latency x$x = $lat s/sample, prefetch $p $*)"
    local t0 t1
    t0=($(cpu_ticks))
    /usr/bin/time -f "%e %U %S" -o "$raw/time.txt" $py "$here/scripts/workloads/pytorch_bench.py" --nproc $ranks \
      --workers "$w" --prefetch "$p" --latency "$lat" --compute $compute --batch $batch --iterations "$iters" \
      --epochs $epochs --decode $decode --out "$raw/run" $bench_args "$@"
    t1=($(cpu_ticks))
    other=$(awk -v b="$((t1[0] - t0[0]))" -v t="$((t1[1] - t0[1]))" -v hz="$(getconf CLK_TCK)" \
      '{ o = b / hz - ($2 + $3); print (t > 0 && o > 0) ? int(100 * o * hz / t) : 0 }' "$raw/time.txt")
    busy_log+="(during: ${other}%) "
    [ "$other" -le 10 ] && break
    if [ "$try" -lt 3 ]; then
      echo "record: other processes used $other % of the CPU during $name; recording it again" >&2
    else
      echo "record: WARNING: other processes used $other % of the CPU during $name in all 3 attempts; keeping the last" >&2
    fi
  done
  rm -f "$raw/time.txt"
  (cd "$dir" && "$stallsim" import pytorch "raw/$name/run" -o "$name.h5" >/dev/null)
  gzip -f "$raw"/*.csv
}

if [ $record -eq 1 ] && [ $twoslow -eq 1 ]; then
  start=$(date -u +%FT%TZ)
  for rep in "" -rep; do
    record_point "slow13$rep" 2 1 2 --slow-rank 1,3 --slow-factor 3,2
    record_point "slow1$rep" 2 1 2 --slow-rank 1 --slow-factor 3
    record_point "slow3$rep" 2 1 2 --slow-rank 3 --slow-factor 2
    record_point "healthy$rep" 2 1 2
  done
elif [ $record -eq 1 ] && [ $regimes -eq 1 ]; then
  start=$(date -u +%FT%TZ)
  for w in 0 1 2 4; do record_point "w$w" $w 1 2; done
  record_point w2-slow1 2 1 2 --slow-rank 1 --slow-factor 3
elif [ $record -eq 1 ] && [ $storage -eq 1 ]; then
  start=$(date -u +%FT%TZ)
  for w in 1 2; do
    for x in 1 0.5; do record_point "w$w-x$x" $w $x 2; done
  done
  record_point w4-x1 4 1 2
elif [ $record -eq 1 ]; then
  start=$(date -u +%FT%TZ)
  for w in 1 2 4 8; do
    for x in 1 0.5; do
      for p in 2 4; do
        record_point "w$w-x$x-p$p" $w $x $p
      done
    done
  done
  record_point w0-x1-p2 0 1 2
  record_point w0-x0.5-p2 0 0.5 2
  record_point w2-x1-p2-rep1 2 1 2
  record_point w2-x1-p2-rep2 2 1 2
  record_point w2-x1-p2-slow3 2 1 2 --slow-rank 3 --slow-factor 3
fi
if [ $record -eq 1 ] && [ -n "$only" ]; then
  echo "added by scripts/validation/validate_pytorch.sh --record --only \"$only\", $start .. $(date -u +%FT%TZ), stallsim $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown); CPU busy just before (must be <= 10 %): $busy_log" >> "$dir/PROVENANCE.txt"
elif [ $record -eq 1 ]; then
  cat > "$dir/PROVENANCE.txt" <<EOF
recorded by scripts/validation/validate_pytorch.sh --record, $start .. $(date -u +%FT%TZ)
machine: $(uname -srm), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))
python: $($py -c 'import sys; print(sys.version.split()[0])'), torch $($py -c 'import torch; print(torch.__version__)')
bench: scripts/workloads/pytorch_bench.py --nproc $ranks --batch $batch --iterations $iters --epochs $epochs
       --compute $compute --latency $latency*X --decode $decode${bench_args:+ $bench_args} --workers W --prefetch P$([ $storage -eq 1 ] || echo " [--slow-rank R --slow-factor 3]")
       (regimes experiment: $regimes; storage experiment: $storage; two slow ranks: $twoslow, slow13 = --slow-rank 1,3 --slow-factor 3,2)
stallsim: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
CPU busy just before each point (other processes; must be <= 10 %): $busy_log
EOF
fi

[ $predict -eq 1 ] || exit 0

if [ $twoslow -eq 1 ]; then
  make_work
  echo "Two slow ranks ($dir; warm-up $warmup): predicted s / error against the real runs' mean"
  for b in slow13 slow13-rep; do
    scenario_ini "$work/$b.ini" "$dir/$b.h5" "$warmup" 'model = independent, pipeline\nheal = none, 1, 3, 1+3'
    "$stallsim" run "$work/$b.ini" > "$work/$b.txt"
  done
  for r in slow13 slow13-rep slow1 slow1-rep slow3 slow3-rep healthy healthy-rep; do
    "$stallsim" compare "$dir/$r.h5" --warmup "$warmup" --csv "$work/real-$r.csv" >/dev/null
  done
  $py - "$work" <<'PY'
import csv, os, sys
work = sys.argv[1]
from points import log_point  # one prediction for VALIDATION_POINTS
real = {}
for r in ("slow13", "slow1", "slow3", "healthy"):
    v = [float(next(csv.DictReader(open(os.path.join(work, "real-%s%s.csv" % (r, s)))))["iter_time_mean"]) for s in ("", "-rep")]
    real[r] = (v, sum(v) / 2)
points = (("rank 1 fixed (heal = 1), rank 3 still slow", "slow3", "1"),
          ("rank 3 fixed (heal = 3), rank 1 still slow", "slow1", "3"),
          ("both fixed (heal = 1+3)", "healthy", "1+3"),
          ("baseline replay", "slow13", None))
errs = {"independent": [], "pipeline": []}
for b in ("slow13", "slow13-rep"):
    rows = list(csv.DictReader(open(os.path.join(work, b, "summary.csv"))))
    print("from %s (real %.4f s):" % (b, real["slow13"][0][0 if b == "slow13" else 1]))
    print("  %-42s %-16s %-18s %-18s" % ("what-if", "real s", "independent", "pipeline"))
    for what, r, heal in points:
        cells = []
        for model in ("independent", "pipeline"):
            hit = [x for x in rows if x["model"] == model and x["heal_gpus"] == (heal or "")]
            p = float(hit[0]["iter_time_mean"])
            e = 100 * (p / real[r][1] - 1)
            if heal:
                errs[model].append(abs(e))
                log_point("pytorch-twoslow", b, r, "heal = %s, %s model" % (heal, model), "steady", p, real[r][1])
            cells.append("%.4f %+6.1f %%   " % (p, e))
        print("  %-42s %.4f, %.4f %s" % (what, real[r][0][0], real[r][0][1], " ".join(cells)))
    print("  " + "\n  ".join(l.strip() for l in open(os.path.join(work, b + ".txt"))
                             if l.startswith("  GPU ") or l.startswith("GPUs to fix first")))
for r, (v, m) in real.items():
    print("real %-8s %.4f and %.4f s (%.1f %% apart)" % (r, v[0], v[1], 100 * abs(v[0] - v[1]) / m))
for m, e in errs.items():
    print("mean |error| of the healed predictions, %s: %.1f %% over %d" % (m, sum(e) / len(e), len(e)))
PY
  exit 0
fi

# slow_report SLOW.h5 HEALTHY.h5 RUN_DIR GPU WHAT: the slow-rank sweep in RUN_DIR (its
# replays, and the same with GPU healed) against the slow run's own mean, and the healed
# ones against the real run without the slow rank (HEALTHY.h5) and, where that setting was
# recorded more than once (HEALTHY less .h5, then -rep*.h5), against the mean of its runs
slow_report() {
  local slow=$1 healthy=$2 run=$3 gpu=$4 what=$5 rep i=0
  "$stallsim" compare "$slow" "$run" --warmup "$warmup" --csv "$work/cmp-slow.csv" >/dev/null
  "$stallsim" compare "$healthy" "$run" --warmup "$warmup" --csv "$work/cmp-healed.csv" >/dev/null
  rm -f "$work"/cmp-healed-rep*.csv
  for rep in "${healthy%.h5}"-rep*.h5; do
    [ -e "$rep" ] || continue
    i=$((i + 1))
    "$stallsim" compare "$rep" "$run" --warmup "$warmup" --csv "$work/cmp-healed-rep$i.csv" >/dev/null
  done
  $py - "$work" "$run" "$gpu" "$what" "$(basename "$slow" .h5)" "$(basename "$healthy" .h5)" <<'PY'
import csv, os, sys
work, run, gpu, what, slow, healthy = sys.argv[1:7]
rows = lambda name: list(csv.DictReader(open(os.path.join(work, name))))
rr, real, healed = rows("cmp-slow.csv"), rows("cmp-slow.csv")[0], rows("cmp-healed.csv")[0]
it_r, st_r = float(real["iter_time_mean"]), float(real["stall_mean"])
it_h, st_h = float(healed["iter_time_mean"]), float(healed["stall_mean"])
sset = {r["scenario"]: r for r in csv.DictReader(open(os.path.join(run, "summary.csv")))}
print()
print("Slow rank (%s), from its own trace %s:" % (what, slow))
print("  measured: %.4f s/iter, stall %.4f s; the real run without the slow rank (%s): %.4f s/iter, "
      "stall %.4f s" % (it_r, st_r, healthy, it_h, st_h))
print("  %-58s %9s %9s %8s" % ("scenario", "iter pred", "vs", "err %"))
for r in rr[1:]:
    s = sset.get(r["scenario"])
    if r["scenario"] == "measured" or s is None:
        continue
    heal = s.get("heal_gpu", "") not in ("", None)
    ref, vs = (it_h, "healed*") if heal else (it_r, "measured")
    print("  %-58s %9.4f %9s %+8.1f" % (r["scenario"], float(r["iter_time_mean"]), vs,
                                         100 * (float(r["iter_time_mean"]) / ref - 1)))
print("  * healed (heal = %s: rank %s's fetch times become the other ranks' median) is set against the real "
      "run without the slow rank (%s)" % (gpu, gpu, healthy))
reps = sorted(n for n in os.listdir(work) if n.startswith("cmp-healed-rep"))
if reps:
    its = [it_h] + [float(rows(n)[0]["iter_time_mean"]) for n in reps]
    mean = sum(its) / len(its)
    for r in rr[1:]:
        s = sset.get(r["scenario"])
        if s is not None and s.get("heal_gpu", "") not in ("", None):
            print("  %-58s %9.4f against the mean of the %d runs without the slow rank (%.4f s, %.1f %% apart): %+.1f %%" % (
                r["scenario"], float(r["iter_time_mean"]), len(its), mean, 100 * (max(its) - min(its)) / mean,
                100 * (float(r["iter_time_mean"]) / mean - 1)))
PY
}

if [ $storage -eq 1 ]; then
  # each x1 trace predicts its x0.5 run: fetch_scale 0.5 on the storage part only (the
  # recorded CPU part stays), and on the whole fetch
  make_work
  for w in 1 2; do
    for t in "w$w-x1" "w$w-x0.5"; do
      [ -e "$dir/$t.h5" ] || { echo "validate_pytorch.sh: no trace $dir/$t.h5 (run --storage --record first)" >&2; exit 1; }
    done
    for cpu in auto 0; do
      scenario_ini "$work/w$w-$cpu.ini" "$dir/w$w-x1.h5" "$warmup" \
        "model = pipeline\nworkers = auto, 4\nfetch_scale = 1, 0.5\n[pipeline]\nfetch_cpu = $cpu"
      "$stallsim" run "$work/w$w-$cpu.ini" --quiet
      "$stallsim" compare "$dir/w$w-x0.5.h5" "$work/w$w-$cpu" --warmup "$warmup" --csv "$work/cmp-w$w-$cpu.csv" >/dev/null
    done
  done
  [ -e "$dir/w4-x1.h5" ] && "$stallsim" compare "$dir/w4-x1.h5" "$work/w2-auto" --warmup "$warmup" --csv "$work/cmp-w4.csv" >/dev/null
  $py - "$work" "$dir" <<'PY'
import csv, os, sys
import h5py
work, d = sys.argv[1], sys.argv[2]
from points import log_point  # one prediction for VALIDATION_POINTS
print("Storage twice as fast, with CPU work in every fetch: each x1 trace predicts its x0.5 run (fetch_scale = 0.5)")
print("%-8s %10s %9s %9s %11s %9s %5s %11s" % ("workers", "fetch cpu", "fetch x1", "iter real", "storage only", "err %",
                                                 "cpu%", "whole fetch") + "     err %")
for w in (1, 2):
    with h5py.File(os.path.join(d, "w%d-x1.h5" % w), "r") as f:
        cpu = f["fetch_cpu_time"][:].mean() if "fetch_cpu_time" in f else float("nan")
        ft = f["timeline/fetch_time"][:].mean()
    line = "%-8d %9.4fs %8.4fs" % (w, cpu, ft)
    for c in ("auto", "0"):
        setting = {r["scenario"]: r for r in csv.DictReader(open(os.path.join(work, "w%d-%s" % (w, c), "summary.csv")))}
        rr = list(csv.DictReader(open(os.path.join(work, "cmp-w%d-%s.csv" % (w, c)))))
        real = float(rr[0]["iter_time_mean"])
        pred = [r for r in rr[1:] if setting.get(r["scenario"], {}).get("fetch_scale") not in (None, "")
                and abs(float(setting[r["scenario"]]["fetch_scale"]) - 0.5) < 1e-9
                and "_w-auto_" in r["scenario"]]
        p = float(pred[0]["iter_time_mean"])
        load = setting[pred[0]["scenario"]].get("cpu_load_pct", "")
        log_point("pytorch-storage", "w%d-x1" % w, "w%d-x0.5" % w, "fetch_scale = 0.5, fetch_cpu = %s" % c, "steady", p, real)
        if c == "auto":
            line += " %9.4f %11.4f %+8.1f %5s" % (real, p, 100 * (p / real - 1),
                                                 "%.0f" % float(load) if load else "-")
        else:
            line += " %11.4f %+8.1f" % (p, 100 * (p / real - 1))
    print(line)
print("storage only: pipeline.fetch_cpu = auto (the recorded CPU part of each fetch stays); whole fetch: fetch_cpu = 0;")
print("cpu%: the share of the cores the predicted run would keep busy (cpu_load_pct); above 100 % it cannot run as predicted")
p4 = os.path.join(work, "cmp-w4.csv")
if os.path.exists(p4):
    setting = {r["scenario"]: r for r in csv.DictReader(open(os.path.join(work, "w2-auto", "summary.csv")))}
    rr = list(csv.DictReader(open(p4)))
    real = float(rr[0]["iter_time_mean"])
    for r in rr[1:]:
        s = setting.get(r["scenario"], {})
        if s.get("workers") == "4" and abs(float(s["fetch_scale"]) - 1) < 1e-9:
            p = float(r["iter_time_mean"])
            load = s.get("cpu_load_pct", "")
            log_point("pytorch-storage", "w2-x1", "w4-x1", "workers = 4", "steady", p, real)
            print("4 workers from the 2-worker x1 trace: predicted %.4f s, real %.4f s (%+.1f %%), cpu%% %s" %
                  (p, real, 100 * (p / real - 1), "%.0f" % float(load) if load else "-"))
PY
  exit 0
fi
if [ $regimes -eq 1 ]; then
  # every trace predicts every other: workers = 0, 1, 2, 4 from each
  make_work
  for b in 0 1 2 4; do
    [ -e "$dir/w$b.h5" ] || { echo "validate_pytorch.sh: no trace $dir/w$b.h5 (run --regimes --record first)" >&2; exit 1; }
    scenario_ini "$work/from-w$b.ini" "$dir/w$b.h5" "$warmup" 'model = pipeline\nworkers = 0, 1, 2, 4'
    "$stallsim" run "$work/from-w$b.ini" --quiet
    for t in 0 1 2 4; do
      "$stallsim" compare "$dir/w$t.h5" "$work/from-w$b" --warmup "$warmup" --csv "$work/cmp-$b-$t.csv" >/dev/null
    done
  done
  $py - "$work" <<'PY'
import csv, os, sys
work = sys.argv[1]
from points import log_point  # one prediction for VALIDATION_POINTS
W = (0, 1, 2, 4)
print("Each trace predicts every other (pipeline model, everything auto): error of the mean iteration time")
print("%-14s" % "from \\ real" + "".join("%10s" % ("W=%d" % t) for t in W))
errs = []
for b in W:
    setting = {r["scenario"]: r for r in csv.DictReader(open(os.path.join(work, "from-w%d" % b, "summary.csv")))}
    line = "%-14s" % ("W=%d trace" % b)
    for t in W:
        rr = list(csv.DictReader(open(os.path.join(work, "cmp-%d-%d.csv" % (b, t)))))
        real = float(rr[0]["iter_time_mean"])
        pred = [r for r in rr[1:] if setting.get(r["scenario"], {}).get("workers") not in (None, "")
                and int(float(setting[r["scenario"]]["workers"])) == t]
        e = 100 * (float(pred[0]["iter_time_mean"]) / real - 1)
        if b != t:
            errs.append(abs(e))
            log_point("pytorch-regimes", "w%d" % b, "w%d" % t, "workers = %d" % t, "steady", float(pred[0]["iter_time_mean"]),
                  real)
        line += "%+9.1f%%" % e
    print(line)
print("real mean iteration times: " + ", ".join(
    "W=%d %.4f s" % (t, float(list(csv.DictReader(open(os.path.join(work, "cmp-0-%d.csv" % t))))[0]["iter_time_mean"]))
    for t in W))
print("mean |error| over the %d predictions of another regime: %.1f %%" % (len(errs), sum(errs) / len(errs)))
PY
  if [ -e "$dir/w2-slow1.h5" ]; then
    # the slow rank, healed: "what if rank 1's storage were as fast as rank 0's"
    scenario_ini "$work/slow.ini" "$dir/w2-slow1.h5" "$warmup" 'model = independent, pipeline\nheal = none, 1'
    "$stallsim" run "$work/slow.ini" --quiet
    slow_report "$dir/w2-slow1.h5" "$dir/w2.h5" "$work/slow" 1 "rank 1's storage 3x slower; 2 workers"
  fi
  exit 0
fi
base=$dir/w2-x1-p2.h5
[ -e "$base" ] || { echo "validate_pytorch.sh: no base trace $base (run --record first)" >&2; exit 1; }
make_work

# the predictions: every grid point from the base trace
cat > "$work/grid.ini" <<EOF
[trace]
path = $base
warmup_iterations = $warmup
[scenarios]
model = pipeline
workers = 0, 1, 2, 4, 8
prefetch = 2, 4
fetch_scale = 1, 0.5
compute_scale = 1
fetch_align = none
start_align = none
[pipeline]
worker_gap = auto
[output]
dir = $work/grid
EOF
"$stallsim" run "$work/grid.ini" --quiet
# the slow-rank trace's own replay (workers auto = calibrated, as a user would run it),
# and the same with rank 3 healed (its fetch times become the other ranks' median): the
# prediction of "what if the slow rank's storage were as fast as the others'"
sed -e "s#^path = .*#path = $dir/w2-x1-p2-slow3.h5#" -e "s#^dir = .*#dir = $work/slow#" \
    -e "s#^model = .*#model = independent, pipeline#" -e "s#^workers = .*#workers = auto, 2#" \
    -e "s#^prefetch = .*#prefetch = 2#" -e "s#^fetch_scale = .*#fetch_scale = 1#" \
    -e "s#^start_align = .*#start_align = none\nheal = none, 3#" \
    "$work/grid.ini" > "$work/slow.ini"
"$stallsim" run "$work/slow.ini" --quiet

for t in "$dir"/w*.h5; do
  n=$(basename "$t" .h5)
  "$stallsim" compare "$t" "$work/grid" --warmup "$warmup" --csv "$work/cmp-$n.csv" >/dev/null
done
# the same predictions from each repeat of the base run (w2-x1-p2-rep1, -rep2): how much a
# prediction depends on which run of the same setting was recorded
for r in "$dir"/w2-x1-p2-rep*.h5; do
  [ -e "$r" ] || continue
  b=$(basename "$r" .h5)
  sed -e "s#^path = .*#path = $r#" -e "s#^dir = .*#dir = $work/grid-$b#" "$work/grid.ini" > "$work/grid-$b.ini"
  "$stallsim" run "$work/grid-$b.ini" --quiet
  for t in "$dir"/w*.h5; do
    n=$(basename "$t" .h5)
    "$stallsim" compare "$t" "$work/grid-$b" --warmup "$warmup" --csv "$work/cmp-$b-$n.csv" >/dev/null
  done
done

$py - "$work" "$dir" <<'PY'
import csv, glob, os, re, sys
work, d = sys.argv[1], sys.argv[2]

def rows(path):
    return list(csv.DictReader(open(path)))

def f(x):
    return float(x)

# each scenario's settings come from the sweep's own summary.csv (compare's rows name the scenario)
def match(setting, r, w, p, x):
    s = setting.get(r["scenario"])
    return (s is not None and s.get("workers") not in (None, "") and int(float(s["workers"])) == w
            and int(float(s["prefetch"])) == p and abs(f(s["fetch_scale"]) - x) < 1e-9)

POINTS = [("w%d-x%g-p%d" % (w, x, p), w, p, x) for w in (0, 1, 2, 4, 8) for x in (1.0, 0.5) for p in (2, 4)
          if w > 0 or p == 2]  # the prefetch factor means nothing without workers: one point


def predictions(tag):
    """(name, real row, predicted row, scenario settings) of every recorded point, from the
    sweep grid<tag> (compare files cmp<tag>-<point>.csv)"""
    sett = {r["scenario"]: r for r in rows(os.path.join(work, "grid" + tag, "summary.csv"))}
    out = []
    for name, w, p, x in POINTS:
        path = os.path.join(work, "cmp%s-%s.csv" % (tag, name))
        if not os.path.exists(path):
            out.append((name, None, None, None))
            continue
        rr = rows(path)
        pred = [r for r in rr[1:] if match(sett, r, w, p, x)]
        if len(pred) != 1:
            sys.exit("no single scenario for %s in %s" % (name, path))
        out.append((name, rr[0], pred[0], sett[pred[0]["scenario"]]))
    return out


def error(real, pred):
    return 100 * (f(pred["iter_time_mean"]) / f(real["iter_time_mean"]) - 1)


print("Predictions from the one base trace w2-x1-p2 (pipeline model, worker_gap auto):")
print("%-16s %9s %9s %8s   %9s %9s %9s %6s" % ("point (real)", "iter real", "iter pred", "err %",
                                                "stall real", "stall pred", "err (ms)", "cpu%"))
errs = []
for name, real, pr, sc in predictions(""):
    if real is None:
        print("%-16s (not recorded)" % name)
        continue
    it_r, it_p = f(real["iter_time_mean"]), f(pr["iter_time_mean"])
    st_r, st_p = f(real["stall_mean"]), f(pr["stall_mean"])
    e = error(real, pr)
    errs.append((name, e))
    load = sc.get("cpu_load_pct", "")
    print("%-16s %9.4f %9.4f %+8.1f   %9.4f %9.4f %+9.1f %6s" % (name, it_r, it_p, e, st_r, st_p, 1000 * (st_p - st_r),
                                                               "%.0f" % float(load) if load else "-"))
others = [abs(e) for n, e in errs if n != "w2-x1-p2"]
if others:
    print("mean |error| of the iteration time over the %d other points: %.1f %%" % (len(others), sum(others) / len(others)))
print("cpu%: the share of the cores the predicted run would keep busy (cpu_load_pct; - : the base trace records no "
      "CPU times); above 100 % it cannot run as predicted")

# run-to-run noise: the base run and its repeats
reps = [n for n in ("w2-x1-p2", "w2-x1-p2-rep1", "w2-x1-p2-rep2") if os.path.exists(os.path.join(work, "cmp-%s.csv" % n))]
if len(reps) > 1:
    it = [f(rows(os.path.join(work, "cmp-%s.csv" % n))[0]["iter_time_mean"]) for n in reps]
    st = [f(rows(os.path.join(work, "cmp-%s.csv" % n))[0]["stall_mean"]) for n in reps]
    m = sum(it) / len(it)
    print("run-to-run noise (base run x%d): iteration time %s s, spread (max-min)/mean %.1f %%; stall %s s" % (
        len(it), " ".join("%.4f" % v for v in it), 100 * (max(it) - min(it)) / m, " ".join("%.4f" % v for v in st)))
# other points recorded more than once (<point>-rep<N>.h5): their run-to-run noise
for name, _, _, _ in POINTS:
    extra = sorted(glob.glob(os.path.join(d, "%s-rep*.h5" % name)))
    if name == "w2-x1-p2" or not extra or not os.path.exists(os.path.join(work, "cmp-%s.csv" % name)):
        continue
    it = [f(rows(os.path.join(work, "cmp-%s.csv" % n))[0]["iter_time_mean"])
          for n in [name] + [os.path.basename(x)[:-3] for x in extra]]
    print("run-to-run noise (%s x%d): iteration time %s s, spread (max-min)/mean %.1f %%" % (
        name, len(it), " ".join("%.4f" % v for v in it), 100 * (max(it) - min(it)) / (sum(it) / len(it))))
# the same predictions from the repeats of the base run
if len(reps) > 1:
    print()
    print("The same predictions from each run of the base setting (which run was recorded matters):")
    table = {"w2-x1-p2": {n: e for n, e in errs}}
    for b in reps[1:]:
        table[b] = {n: error(real, pr) for n, real, pr, _ in predictions("-" + b) if real is not None}
    for b, e in table.items():
        o = [abs(v) for n, v in e.items() if n != "w2-x1-p2"]
        print("  from %-14s mean |error| over the %d other points %.1f %%, %d within 5 %%, worst %+.1f %%" % (
            b, len(o), sum(o) / len(o), sum(v <= 5 for v in o), max((v for n, v in e.items() if n != "w2-x1-p2"), key=abs)))
    spread = []
    for name, _, _, _ in POINTS:
        v = [e[name] for e in table.values() if name in e]
        if name != "w2-x1-p2" and len(v) == len(table):
            spread.append(max(v) - min(v))
    if spread:
        spread.sort()
        print("  a point's prediction moves by %.1f %% (median over the points) and up to %.1f %% with the base run" % (
            spread[len(spread) // 2], spread[-1]))
PY
[ -e "$dir/w2-x1-p2-slow3.h5" ] &&
  slow_report "$dir/w2-x1-p2-slow3.h5" "$dir/w2-x1-p2.h5" "$work/slow" 3 "rank 3's storage 3x slower; 2 workers, x1, prefetch 2"
exit 0
