#!/usr/bin/env bash
# real_runs_regimes.sh - the models against the committed real runs of the bench workload's
# loader regimes and storage (datasets/pytorch-regimes, -regimes-b, -storage, -cputrain):
# every regimes trace recorded with workers predicts the other loader settings within 5 %
# (the second recording: on average) and heals its slow rank within 5 %; with CPU work in
# every fetch, "storage twice as fast" from the x1 run within 5 % of the x0.5 run, and CPU
# sharing with 2 workers; training on the CPU.
. "$(dirname "$0")/../lib/lib_real_runs.sh" "$@"
r=$ds/pytorch-regimes
if [ -e "$r/w2-slow1.h5" ]; then
  printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = independent, pipeline\nheal = none, 1\n' "$r/w2-slow1.h5" > "$work/rs.ini"
  "$stallsim" run --explain --verbose "$work/rs.ini" --out "$work/rs" --quiet || fail "regimes: slow run"
  "$stallsim" compare "$r/w2.h5" "$work/rs" --warmup 10 --csv "$work/rs-healed.csv" >/dev/null || fail "regimes: compare healed"
  for m in "$pipe_base" 'independent_fetch-none_start-none'; do
    expect_within "$work/rs-healed.csv" "${m}_heal-1" "$work/rs-healed.csv" 5 "regimes: ${m%%_*}, rank 1 healed vs the run without it" &&
      ok || fail "regimes: ${m%%_*} healed"
  done
fi
for b in 1 2 4; do
  printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = 0, 1, 2, 4\n' "$r/w$b.h5" > "$work/w$b.ini"
  "$stallsim" run --explain --verbose "$work/w$b.ini" --out "$work/from$b" --quiet || fail "regimes: run from W=$b"
  for t in 0 1 2 4; do
    [ "$t" = "$b" ] && continue
    "$stallsim" compare "$r/w$t.h5" "$work/from$b" --warmup 10 --csv "$work/c$b-$t.csv" >/dev/null || fail "regimes: compare"
    expect_within "$work/c$b-$t.csv" "pipeline_fetch-none_start-none_w-$t"'_p2_fs1_cs1' "$work/c$b-$t.csv" 5 \
      "regimes: W=$t predicted from the W=$b trace" && ok || fail "regimes: W=$t from W=$b"
  done
done

# the regimes recorded again (regimes-b, an idle machine): the mean |error| over the 12
# predictions of another regime within 5 %, rank 1 healed within 5 % by both models
if [ -e "$ds/pytorch-regimes-b/w2-slow1.h5" ]; then
  "$src/scripts/validation/validate_pytorch.sh" --regimes --dir "$ds/pytorch-regimes-b" > "$work/regimes-b.txt" 2>&1 ||
    fail "regimes-b: validate_pytorch.sh"
  /usr/bin/python3 - "$work/regimes-b.txt" <<'PY' && ok || fail "regimes-b: $(cat "$work/regimes-b.txt")"
import re, sys
text = open(sys.argv[1]).read()
mean = float(re.search(r"mean \|error\| over the 12 predictions of another regime: ([\d.]+) %", text).group(1))
healed = [float(m.group(1)) for m in re.finditer(r"_heal-1\s+\S+\s+healed\*\s+([-+][\d.]+)", text)]
print("regimes-b: mean |error| %.1f %%, rank 1 healed %s %%" % (mean, ", ".join("%+.1f" % h for h in healed)))
assert mean <= 5 and len(healed) == 2 and max(abs(h) for h in healed) <= 5, (mean, healed)
PY
fi
# storage twice as fast with CPU work in every fetch (datasets/pytorch-storage, 1 worker):
# the x1 trace predicts the x0.5 run within 5 % when only the storage part scales (the
# recorded fetch CPU time stays), and misses it by more than 15 % when the whole fetch does
st=$ds/pytorch-storage
if [ -e "$st/w1-x1.h5" ] && [ -e "$st/w1-x0.5.h5" ]; then
  for cpu in auto 0; do
    printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nfetch_scale = 0.5\n[pipeline]\nfetch_cpu = %s\n' \
      "$st/w1-x1.h5" "$cpu" > "$work/st-$cpu.ini"
    "$stallsim" run --explain --verbose "$work/st-$cpu.ini" --out "$work/st-$cpu" --quiet || fail "storage: run fetch_cpu = $cpu"
    "$stallsim" compare "$st/w1-x0.5.h5" "$work/st-$cpu" --warmup 10 --csv "$work/st-$cpu.csv" >/dev/null ||
      fail "storage: compare fetch_cpu = $cpu"
  done
  expect_within "$work/st-auto.csv" 'pipeline_.*_fs0.5_cs1' "$work/st-auto.csv" 5 \
    "storage x0.5, 1 worker: storage part scaled (fetch_cpu = auto)" && ok || fail "storage: fetch_cpu = auto"
  expect_within "$work/st-0.csv" 'pipeline_.*_fs0.5_cs1' "$work/st-0.csv" 15 \
    "storage x0.5, 1 worker: whole fetch scaled (fetch_cpu = 0), must miss" && fail "storage: the whole fetch scaled is within 15 %" || ok
  # CPU sharing (MODELS-pipeline.md): with 2 workers per rank the workers' decoding keeps
  # most of the 2 cores busy; from the 2-worker trace, storage x0.5 and 4 workers are
  # within 10 % of the real runs with CPU sharing, and more than 12 % optimistic without
  # it (the measured wait of the fetches' CPU work kept as it was)
  for share in true false; do
    printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\nfetch_scale = 1, 0.5\n[pipeline]\ncpu_sharing = %s\n' \
      "$st/w2-x1.h5" "$share" > "$work/st2-$share.ini"
    "$stallsim" run --explain --verbose "$work/st2-$share.ini" --out "$work/st2-$share" --quiet || fail "storage: run from w2-x1 (cpu_sharing = $share)"
    for real in w2-x0.5 w4-x1; do
      "$stallsim" compare "$st/$real.h5" "$work/st2-$share" --warmup 10 --csv "$work/st2-$share-$real.csv" >/dev/null ||
        fail "storage: compare $real (cpu_sharing = $share)"
    done
  done
  expect_within "$work/st2-true-w2-x0.5.csv" 'pipeline_.*_w-auto_p2_fs0.5_cs1' "$work/st2-true-w2-x0.5.csv" 10 \
    "storage x0.5, 2 workers, CPU sharing" && ok || fail "storage: 2 workers x0.5 with CPU sharing"
  expect_within "$work/st2-true-w4-x1.csv" 'pipeline_.*_w-4_p2_fs1_cs1' "$work/st2-true-w4-x1.csv" 10 \
    "storage 4 workers from 2, CPU sharing" && ok || fail "storage: 4 workers with CPU sharing"
  expect_within "$work/st2-false-w2-x0.5.csv" 'pipeline_.*_w-auto_p2_fs0.5_cs1' "$work/st2-false-w2-x0.5.csv" 12 \
    "storage x0.5, 2 workers, no CPU sharing, must miss" && fail "storage: without CPU sharing within 12 %" || ok
  expect_within "$work/st2-false-w4-x1.csv" 'pipeline_.*_w-4_p2_fs1_cs1' "$work/st2-false-w4-x1.csv" 12 \
    "storage 4 workers from 2, no CPU sharing, must miss" && fail "storage: without CPU sharing within 12 %" || ok
  # training on the CPU (datasets/pytorch-cputrain): 4 workers from the 1-worker trace within
  # 5 % of the real run, at a high load that stays under all of the cores (not flagged)
  ct=$ds/pytorch-cputrain
  printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = 4\n' "$ct/w1.h5" > "$work/ct.ini"
  "$stallsim" run --explain --verbose "$work/ct.ini" --out "$work/ct" --quiet || fail "cputrain: run"
  "$stallsim" compare "$ct/w4.h5" "$work/ct" --warmup 10 --csv "$work/ct.csv" >/dev/null || fail "cputrain: compare"
  expect_within "$work/ct.csv" 'pipeline_.*_w-4_.*' "$work/ct.csv" 5 "training on the CPU: 4 workers from the 1-worker trace" &&
    ok || fail "cputrain: 4 workers"
  /usr/bin/python3 - "$work/ct/summary.csv" <<'PY' && ok || fail "cputrain: cpu_load_pct not between 50 and 100 %"
import csv, sys
load = [float(r["cpu_load_pct"]) for r in csv.DictReader(open(sys.argv[1])) if "_w-4_" in r["scenario"]][0]
print("training on the CPU: cpu_load_pct of the 4-worker prediction %.0f %%" % load)
assert 50 < load < 100, load
PY
else
  fail "datasets/pytorch-storage/w1-x1.h5 or w1-x0.5.h5 is missing (committed with the repository)"
fi
finish
