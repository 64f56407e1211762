#!/usr/bin/env bash
# cli_plot.sh - scripts/plot_results.py on a small sweep: summary.png, ranked.png, timeline.png
# and heatmap.png are valid PNGs of a sensible size; without per-iteration data only summary.png
# and ranked.png are written, with a note; ranked.png and the committed figures
# (datasets/figures/validation.png, which-fix.png) are read back and are not blank; a folder without results (empty, or a results.h5 that is not
# HDF5) fails with status 1 and names the folder. Skipped (77) without python3-h5py and
# python3-matplotlib.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
plot=$src/scripts/plot_results.py
[ -x "$py" ] && "$py" -c 'import h5py, matplotlib, numpy' 2>/dev/null ||
  { echo "skipped: $py cannot import h5py, matplotlib and numpy"; exit 77; }
export MPLCONFIGDIR=$work/mplconfig  # matplotlib's cache, not in $HOME

# png_ok FILE: a PNG signature, an IHDR chunk of width >= 600 and height >= 400, > 10 KB
png_ok() {
  local f=$1 sig ihdr w h size
  [ -f "$f" ] || { fail "$f not written"; return; }
  sig=$(od -An -tx1 -N8 "$f" | tr -d ' \n')
  [ "$sig" = 89504e470d0a1a0a ] || { fail "$f: not a PNG (signature $sig)"; return; }
  ihdr=$(od -An -c -j12 -N4 "$f" | tr -d ' \n')
  [ "$ihdr" = IHDR ] || { fail "$f: no IHDR chunk first"; return; }
  read -r w h < <(od -An -tu1 -j16 -N8 "$f" |
    awk '{ printf "%d %d\n", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }')
  size=$(stat -c %s "$f")
  if [ "$w" -ge 600 ] && [ "$h" -ge 400 ] && [ "$size" -gt 10240 ]; then ok
  else fail "$f: ${w}x${h} pixels, $size bytes (want >= 600x400 and > 10 KB)"; fi
}

"$stallsim" gen -o "$work/t.h5" --gpus 4 --iterations 200 --epochs 1 --seed 5 >/dev/null || fail "gen"
cat > "$work/s.ini" <<INI
[trace]
path = t.h5
[scenarios]
model = independent, pipeline
fetch_align = none, min
start_align = none, avg
[output]
per_iteration = true
INI
"$stallsim" run "$work/s.ini" --out "$work/r" --quiet || fail "sweep with per_iteration"

# not_blank FILE: read back, at least 8 distinct colours and 3 % of the pixels not the background
not_blank() {
  local r
  r=$("$py" - "$1" 2>&1 <<'PY'
import sys
import matplotlib.image as mpimg
import numpy as np
a = mpimg.imread(sys.argv[1])[:, :, :3]
px = (a.reshape(-1, 3) * 255).round().astype(int)
colours = len(np.unique(px[:, 0] * 65536 + px[:, 1] * 256 + px[:, 2]))
bg = np.bincount(px[:, 0] * 65536 + px[:, 1] * 256 + px[:, 2]).argmax()
share = float(np.mean(px[:, 0] * 65536 + px[:, 1] * 256 + px[:, 2] != bg))
print("%d colours, %.3f of the pixels not the background" % (colours, share))
sys.exit(0 if colours >= 8 and share >= 0.03 else 1)
PY
  ) && ok || fail "$1 looks blank: $r"
}

# 1. with per-iteration data: four figures, in RESULTS_DIR/plots by default
if "$py" "$plot" "$work/r" > "$work/out1" 2> "$work/err1"; then ok
else fail "plot_results.py exit status $?: $(cat "$work/err1")"; fi
for f in summary ranked timeline heatmap; do
  png_ok "$work/r/plots/$f.png"
  grep -q "$work/r/plots/$f.png" "$work/out1" && ok || fail "$f.png path not printed"
done
# a chosen scenario and another output folder
scen=$(sed -n 3p "$work/r/summary.csv" | cut -d, -f1)
if "$py" "$plot" "$work/r" --scenario "$scen" --out "$work/p2" --gpus-max 2 >/dev/null 2>"$work/err2"; then ok
else fail "--scenario $scen --out --gpus-max: $(cat "$work/err2")"; fi
[ -f "$work/p2/timeline.png" ] && [ -f "$work/p2/heatmap.png" ] && ok || fail "--out folder not filled"
"$py" "$plot" "$work/r" --scenario no-such-scenario >/dev/null 2>&1
[ $? -eq 1 ] && ok || fail "an unknown --scenario should exit 1"
# --scenario by the label the table prints: the parts of the row's label that tell it apart
label=$(sed -n 3p "$work/r/summary.csv" | cut -d, -f3)
if "$py" "$plot" "$work/r" --scenario "$label" --out "$work/p3" >/dev/null 2>"$work/err3"; then ok
else fail "--scenario by its label '$label': $(cat "$work/err3")"; fi

not_blank "$work/r/plots/ranked.png"
# the committed figures: the validation figure and the ranked answer of which-fix.ini
for f in "$src/datasets/figures/validation.png" "$src/datasets/figures/which-fix.png"; do
  png_ok "$f"
  not_blank "$f"
done
# the blank check can fail: a white PNG of the same size is refused
"$py" -c "import matplotlib.pyplot as p, numpy as n; p.imsave('$work/white.png', n.ones((400, 600, 3)))"
( failures=0; not_blank "$work/white.png" 2>/dev/null; exit $failures ) && fail "a white PNG passes not_blank" || ok

# 2. without per-iteration data: summary.png and ranked.png, and a note saying how to get the rest
"$stallsim" run "$work/s.ini" --set output.per_iteration=false --out "$work/q" --quiet || fail "sweep without per_iteration"
if "$py" "$plot" "$work/q" > "$work/out3" 2> "$work/err3"; then ok
else fail "plot without per-iteration data, status $?: $(cat "$work/err3")"; fi
png_ok "$work/q/plots/summary.png"
png_ok "$work/q/plots/ranked.png"
n=$(find "$work/q/plots" -name '*.png' | wc -l)
[ "$n" -eq 2 ] && ok || fail "expected only summary.png and ranked.png without per-iteration data, got $n PNGs"
grep -q "per_iteration = true" "$work/out3" && ok || fail "no note to rerun with per_iteration = true: $(cat "$work/out3")"

# 2b. a sweep of 2000 scenarios: summary.png shows
# the 40 fastest plus the measured and baseline rows, at a bounded size, and says so
cat > "$work/big.ini" <<INI
[trace]
path = t.h5
[scenarios]
model = pipeline
workers = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
prefetch = 1, 2, 3, 4
fetch_scale = 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8
compute_scale = 0.5, 0.75, 1, 1.5, 2
INI
"$stallsim" run "$work/big.ini" --out "$work/big" --quiet || fail "2000-scenario sweep"
n=$(($(wc -l < "$work/big/summary.csv") - 1))
[ "$n" -eq 2001 ] && ok || fail "expected 2001 rows (measured + 2000), got $n"
if "$py" "$plot" "$work/big" > "$work/out5" 2> "$work/err5"; then ok
else fail "plot of 2000 scenarios, status $?: $(tail -3 "$work/err5")"; fi
png_ok "$work/big/plots/summary.png"
h=$(od -An -tu1 -j20 -N4 "$work/big/plots/summary.png" | awk '{ print (($1*256+$2)*256+$3)*256+$4 }')
[ "${h:-99999}" -le 3000 ] && ok || fail "summary.png of 2000 scenarios is $h pixels high"
grep -q "note: summary.png shows the 40 fastest of 2000 scenarios, plus the measured run" "$work/out5" && ok ||
  fail "no note on the selection: $(cat "$work/out5")"
"$py" "$plot" "$work/big" --top 5 --out "$work/big5" > "$work/out6" 2>&1 && grep -q "the 5 fastest of 2000" "$work/out6" && ok ||
  fail "--top 5: $(cat "$work/out6")"
"$py" "$plot" "$work/big" --top 0 >/dev/null 2>&1
[ $? -eq 2 ] && ok || fail "--top 0 should exit 2"
# rows that heal a GPU are not baselines, even with both aligns none: heal = each on 60 GPUs
# with --top 5 shows the 5 fastest plus the measured run and the one baseline
"$stallsim" gen -o "$work/g60.h5" --gpus 60 --iterations 40 --seed 3 >/dev/null || fail "gen 60 GPUs"
printf '[trace]\npath = g60.h5\n[scenarios]\nheal = none, each\n' > "$work/h60.ini"
"$stallsim" run "$work/h60.ini" --out "$work/h60" --quiet || fail "heal = each on 60 GPUs"
"$py" "$plot" "$work/h60" --top 5 > "$work/out7" 2>&1 &&
  grep -q "note: summary.png shows the 5 fastest of 61 scenarios, plus the measured run and the baseline " "$work/out7" && ok ||
  fail "heal rows taken for baselines: $(cat "$work/out7")"

# 3. folders without results: status 1, a one-line message naming the folder
mkdir -p "$work/empty" "$work/bogus"
echo "not hdf5" > "$work/bogus/results.h5"
for d in "$work/empty" "$work/bogus"; do
  "$py" "$plot" "$d" > /dev/null 2> "$work/err4"
  st=$?
  [ "$st" -eq 1 ] && ok || fail "$d: exit status $st, expected 1"
  [ "$(wc -l < "$work/err4")" -eq 1 ] && grep -qF "$d" "$work/err4" && ok ||
    fail "$d: expected a one-line message naming the folder, got: $(cat "$work/err4")"
  [ ! -e "$d/plots" ] && ok || fail "$d: plots folder created despite the failure"
done
# bad usage: argparse, status 2
"$py" "$plot" >/dev/null 2>&1
[ $? -eq 2 ] && ok || fail "no RESULTS_DIR should exit 2"
finish
