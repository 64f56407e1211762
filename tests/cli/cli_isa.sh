#!/usr/bin/env bash
# cli_isa.sh - one build, every vector path: the hot loops run as AVX-512, AVX2 or
# baseline x86-64 code (ss_isa.h), and summary.csv and the per-iteration series must be
# byte-identical whichever runs. STALLSIM_ISA=generic forces the baseline path; the
# default takes the best the CPU has (on a CPU without AVX2 both runs are the baseline,
# and the test says so).
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
cd "$work" || exit 1
# traces: an odd GPU count (vector tails), a wide one (several chunks of the argmax
# search), stragglers, a slow GPU, GPUs with their own worker counts, two epochs
"$stallsim" gen -o a.h5 --gpus 37 --iterations 400 --epochs 2 --straggler-prob 0.05 --slow-gpu 5:2 \
  --workers-gpu 3:1 --delivery 0.001 --seed 3 >/dev/null || fail "gen a"
"$stallsim" gen -o b.h5 --gpus 300 --iterations 150 --workers 2 --straggler-prob 0.02 --seed 4 >/dev/null || fail "gen b"
for t in a b; do
  cat > $t.ini <<INI
[trace]
path = $t.h5
[scenarios]
model = independent, pipeline
fetch_align = none, avg, median
start_align = none, min, mean
workers = auto, 0
heal = none, 5
[output]
per_iteration = true
INI
  for isa in generic default; do
    if [ $isa = generic ]; then env STALLSIM_ISA=generic "$stallsim" run $t.ini --out $t-$isa --quiet --timing 2> $t-$isa.err
    else env -u STALLSIM_ISA "$stallsim" run $t.ini --out $t-$isa --quiet --timing 2> $t-$isa.err; fi ||
      fail "$t $isa: $(head -3 $t-$isa.err)"
    # every value but the run_id (host-pid-time, different in every run)
    h5dump $t-$isa/results.h5 | tail -n +2 | grep -Ev '^ +\(0\): "[^"]*-[0-9]+-[0-9]+\.[0-9]+"$' > $t-$isa.dump
  done
  grep -q "vector instructions of the hot loops: generic" $t-generic.err && ok ||
    fail "$t: STALLSIM_ISA=generic was not taken: $(grep vector $t-generic.err)"
  same_file $t-generic/summary.csv $t-default/summary.csv "$t summary.csv, generic vs default path"
  # without per-iteration output the independent replay stores no per-GPU stalls (it
  # replays the argmax's chunk again instead): the same summary on both paths
  for isa in generic default; do
    if [ $isa = generic ]; then env STALLSIM_ISA=generic "$stallsim" run $t.ini --set output.per_iteration=false --out $t-lean-$isa --quiet
    else env -u STALLSIM_ISA "$stallsim" run $t.ini --set output.per_iteration=false --out $t-lean-$isa --quiet; fi ||
      fail "$t lean $isa"
    same_file $t-default/summary.csv $t-lean-$isa/summary.csv "$t summary.csv without per-iteration output ($isa path)"
  done
  same_file $t-generic.dump $t-default.dump "$t results.h5 (per-iteration series), generic vs default path"
done
path=$(sed -n 's/^timing: vector instructions of the hot loops: \([^ ]*\).*/\1/p' a-default.err)
echo "default path on this CPU: $path"
# a value it does not know is named in a warning, not ignored in silence
"$stallsim" gen -o isa-warn.h5 --gpus 2 --iterations 30 > /dev/null
printf '[trace]\npath = isa-warn.h5\n' > isa-warn.ini
STALLSIM_ISA=genric "$stallsim" run isa-warn.ini --out isa-warn --quiet 2> isa-warn.err
grep -q "STALLSIM_ISA = 'genric' is not generic, avx2 or avx512: ignored" isa-warn.err && ok || fail "STALLSIM_ISA typo: $(cat isa-warn.err)"
if [ "$path" = generic ] && [ "$failures" -eq 0 ]; then
  echo "skipped: this CPU has no AVX2, so both runs took the baseline path ($checks checks passed)"
  exit 77
fi
finish
