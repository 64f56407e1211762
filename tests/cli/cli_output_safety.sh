#!/usr/bin/env bash
# cli_output_safety.sh - no command writes over a file it reads (same device and inode,
# whatever the names: hard links and symbolic links included) or over an existing file
# that is not its own kind of output: run (results.h5, summary.csv), gen and import (a
# stalltrace), compare --csv (a compare CSV). Each refusal exits 2, names the file, and
# leaves the file byte for byte as it was; replacing an output of the same kind works.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"

# refuse NAME FILE-THAT-MUST-SURVIVE NEEDLE CMD...
refuse() {
  local name=$1 keep=$2 needle=$3
  shift 3
  cp "$keep" "$work/before"
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ $rc -ne 2 ]; then fail "$name: exit status $rc, expected 2: $(head -c 300 "$work/err")"; return; fi
  grep -qF -- "$needle" "$work/err" || { fail "$name: stderr lacks '$needle': $(cat "$work/err")"; return; }
  cmp -s "$keep" "$work/before" && ok || fail "$name: $keep was changed"
  ls -A "$(dirname "$keep")" | grep -q '\.tmp\.' && fail "$name: temporary left in $(dirname "$keep")" || ok
}

"$stallsim" gen -o "$work/before.h5" --gpus 2 --iterations 40 --seed 1 >/dev/null || fail "gen before"
"$stallsim" gen -o "$work/after.h5" --gpus 2 --iterations 40 --seed 2 >/dev/null || fail "gen after"
printf '[trace]\npath = before.h5\n[scenarios]\nfetch_align = none, min\n' > "$work/s.ini"
"$stallsim" run "$work/s.ini" --out "$work/results" --quiet || fail "first run"

# ---- compare --csv ----
# the slip of the issue: --csv typed before the inputs takes the measured trace as its output
refuse compare_slip "$work/before.h5" "is not a stallsim compare CSV" \
  "$stallsim" compare --csv "$work/before.h5" "$work/after.h5" "$work/results"
refuse compare_input "$work/after.h5" "would replace the input" \
  "$stallsim" compare "$work/before.h5" "$work/after.h5" --csv "$work/after.h5"
refuse compare_folder_csv "$work/results/summary.csv" "would replace the input" \
  "$stallsim" compare "$work/before.h5" "$work/results" --csv "$work/results/summary.csv"
ln "$work/before.h5" "$work/hardlink.csv"
refuse compare_hardlink "$work/before.h5" "would replace the input $work/before.h5" \
  "$stallsim" compare "$work/before.h5" "$work/results" --csv "$work/hardlink.csv"
rm -f "$work/hardlink.csv"
echo "my notes" > "$work/notes.csv"
refuse compare_other_csv "$work/notes.csv" "is not a stallsim compare CSV" \
  "$stallsim" compare "$work/before.h5" "$work/results" --csv "$work/notes.csv"
"$stallsim" compare "$work/before.h5" "$work/results" --csv "$work/cmp.csv" >/dev/null && ok || fail "compare --csv"
"$stallsim" compare "$work/after.h5" "$work/results" --csv "$work/cmp.csv" >/dev/null && ok || fail "compare --csv again"
head -1 "$work/cmp.csv" | grep -q '^source,scenario,' && grep -q after.h5 "$work/cmp.csv" && ok || fail "compare CSV not replaced"
: > "$work/empty.csv"
"$stallsim" compare "$work/before.h5" --csv "$work/empty.csv" >/dev/null && ok || fail "an empty file may be replaced"

# ---- run ----
# a trace named results.h5 in the output folder
mkdir -p "$work/o1"
cp "$work/before.h5" "$work/o1/results.h5"
printf '[trace]\npath = o1/results.h5\n' > "$work/t1.ini"
refuse run_trace_is_output "$work/o1/results.h5" "would replace the input" "$stallsim" run "$work/t1.ini" --out "$work/o1"
# the trace reached through a symbolic link named results.h5
mkdir -p "$work/o2"
ln -s ../before.h5 "$work/o2/results.h5"
refuse run_symlink "$work/before.h5" "would replace the input" "$stallsim" run "$work/s.ini" --out "$work/o2"
# an HDF5 file that is not a results file
mkdir -p "$work/o3"
cp "$work/after.h5" "$work/o3/results.h5"
refuse run_not_results "$work/o3/results.h5" "is not a stallsim results file" "$stallsim" run "$work/s.ini" --out "$work/o3"
# a summary.csv that is not ours
mkdir -p "$work/o4"
printf 'a,b\n1,2\n' > "$work/o4/summary.csv"
refuse run_not_summary "$work/o4/summary.csv" "is not a stallsim summary.csv" "$stallsim" run "$work/s.ini" --out "$work/o4"
# the scenario file itself named summary.csv in the output folder
mkdir -p "$work/o5"
printf '[trace]\npath = ../before.h5\n' > "$work/o5/summary.csv"
refuse run_config_is_output "$work/o5/summary.csv" "would replace the input" "$stallsim" run "$work/o5/summary.csv" --out "$work/o5"
[ -e "$work/o5/results.h5" ] && fail "run_config_is_output: results.h5 written" || ok
# results.h5 a folder
mkdir -p "$work/o6/results.h5"
refuse run_folder "$work/o4/summary.csv" "is a folder" "$stallsim" run "$work/s.ini" --out "$work/o6"
# earlier results are replaced
cp "$work/results/summary.csv" "$work/old.csv"
"$stallsim" run "$work/s.ini" --set scenarios.fetch_align=avg --out "$work/results" --quiet && ok || fail "rerun into results"
cmp -s "$work/old.csv" "$work/results/summary.csv" && fail "results not replaced" || ok

# ---- gen ----
refuse gen_over_csv "$work/notes.csv" "is not a synthetic trace" "$stallsim" gen -o "$work/notes.csv" --gpus 1 --iterations 20
refuse gen_over_results "$work/results/results.h5" "is not a synthetic trace" "$stallsim" gen -o "$work/results/results.h5" --gpus 1 --iterations 20
# nor over a recorded or imported trace (the demo's: a real run), which may be all a user has of it
if [ -e "$src/datasets/demo-4gpu.h5" ]; then
  cp "$src/datasets/demo-4gpu.h5" "$work/recorded.h5"
  refuse gen_over_recorded "$work/recorded.h5" "is not a synthetic trace (one gen wrote; a recorded or imported trace is kept)" \
    "$stallsim" gen -o "$work/recorded.h5" --gpus 1 --iterations 20
fi
refuse gen_over_folder "$work/notes.csv" "is a folder" "$stallsim" gen -o "$work/results" --gpus 1 --iterations 20
# not a regular file (a FIFO here: never try this on a real device, an old stallsim
# replaced /dev/null with its trace)
mkfifo "$work/fifo"
"$stallsim" gen -o "$work/fifo" --gpus 1 --iterations 20 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && [ -p "$work/fifo" ] && grep -q "not a regular file" "$work/err" && ok || fail "gen -o FIFO: $(cat "$work/err")"
"$stallsim" gen -o "$work/after.h5" --gpus 2 --iterations 40 --seed 5 >/dev/null && ok || fail "gen over a trace"

# ---- import ----
P=$work/csv/fsNprepNloadNtrain_demo_none_net_epoch1_b64_worker4_thread0
mkdir -p "$work/csv"
cat > "$P.csv" <<CSV
,Epoch,Step,GPU,Time,Iteration time (sec),Training stall time (sec)
0,1,0,0,2021-09-01 19:48:55.191641,1.5,0.5
1,1,1,0,2021-09-01 19:48:56.691641,1.0,0.000002
2,1,0,1,2021-09-01 19:48:55.191641,1.5,0.4
3,1,1,1,2021-09-01 19:48:56.691641,1.0,0.000006
CSV
cat > "${P}_simp_fetchdifftime.csv" <<CSV
,Epoch,Index number,Fetch time (sec)_gpu0,Fetch time (sec)_gpu1
0,1,0,1.25,1.5
1,1,1,1.0,1.125
CSV
cat > "${P}_simp_fetchstartdifftime.csv" <<CSV
,Epoch,Index number,Start time_gpu0,Start time_gpu1
0,1,0,2021-09-01 19:48:54.000000,2021-09-01 19:48:54.100000
1,1,1,2021-09-01 19:48:54.000001,2021-09-01 19:48:54.1
CSV
refuse import_over_input "$P.csv" "would replace the input" "$stallsim" import dsanalyzer "$P" -o "$P.csv"
refuse import_over_other "$work/notes.csv" "is not a stalltrace file" "$stallsim" import dsanalyzer "$P" -o "$work/notes.csv"
refuse import_over_other_trace "$work/before.h5" "a trace of another source is there" "$stallsim" import dsanalyzer "$P" -o "$work/before.h5"
"$stallsim" import dsanalyzer "$P" -o "$work/ds.h5" >/dev/null && "$stallsim" import dsanalyzer "$P" -o "$work/ds.h5" >/dev/null &&
  ok || fail "import over its own earlier import"
# a run that fails (its trace is missing) leaves no output folder it made
printf '[trace]\npath = %s/none.h5\n[scenarios]\nmodel = independent\n' "$work" > "$work/none.ini"
"$stallsim" run "$work/none.ini" --out "$work/made/here" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && [ ! -e "$work/made" ] && ok || fail "a failed run left its new output folder (rc=$rc): $(ls -R "$work/made" 2>&1)"
# an output folder that cannot be made (a file where a parent folder would be) is an error
# before any work, naming both, and nothing is created; a new folder is made only when the
# results are opened: a run that fails before (no iteration left after its warm-up) makes none
"$stallsim" gen -o "$work/small.h5" --gpus 2 --iterations 50 --seed 3 >/dev/null || fail "gen small"
printf '[trace]\npath = %s/small.h5\n[scenarios]\nmodel = independent\n' "$work" > "$work/small.ini"
: > "$work/afile"
"$stallsim" run "$work/small.ini" --out "$work/afile/sub/x" > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "afile/sub/x: cannot create output folder: .*afile is not a folder" "$work/err" && [ -f "$work/afile" ] &&
  ok || fail "an output folder under a file: rc=$rc $(cat "$work/err")"
"$stallsim" run "$work/small.ini" --out "$work/made2/x" --set trace.warmup_iterations=100000 > /dev/null 2> "$work/err"; rc=$?
[ $rc -ne 0 ] && [ ! -e "$work/made2" ] && ok || fail "a run failing after its checks made its output folder (rc=$rc): $(ls -R "$work/made2" 2>&1) $(cat "$work/err")"
# a dangling link as the output folder fails before any work (it is not a name to make)
ln -s "$work/nothing-here" "$work/dangling"
"$stallsim" run "$work/small.ini" --out "$work/dangling" --set trace.warmup_iterations=100000 > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q "dangling: cannot create output folder: a link to nothing" "$work/err" && ok ||
  fail "a dangling link as the output folder: rc=$rc $(cat "$work/err")"
# a run stopped outright before its results are opened (its trace a FIFO nobody writes) leaves
# no output folder: the folder is made only when the results are opened
if command -v mkfifo >/dev/null; then
  mkfifo "$work/fifo.h5"
  printf '[trace]\npath = %s/fifo.h5\n[scenarios]\nmodel = independent\n' "$work" > "$work/fifo.ini"
  "$stallsim" run "$work/fifo.ini" --out "$work/kdir/x" > /dev/null 2>&1 &
  kp=$!
  sleep 1
  kill -9 $kp 2>/dev/null
  wait $kp 2>/dev/null
  [ ! -e "$work/kdir" ] && ok || fail "a run killed before opening its results left its output folder: $(ls -R "$work/kdir" 2>&1)"
  rm -f "$work/fifo.h5"
fi
# a second run into the same folder replaces the first's results and says so
"$stallsim" run "$work/small.ini" --out "$work/twice" > "$work/w1.txt" 2>&1 && "$stallsim" run "$work/small.ini" --out "$work/twice" > "$work/w2.txt" 2>&1 &&
  grep -q "^wrote .*twice/summary.csv and .*twice/results.h5$" "$work/w1.txt" &&
  grep -q "^wrote .*twice/summary.csv and .*twice/results.h5 (replacing an earlier run's)$" "$work/w2.txt" && ok ||
  fail "run twice into one folder: $(tail -1 "$work/w1.txt") / $(tail -1 "$work/w2.txt")"
# what goes to the standard output and cannot be written (a full disk) is an error, not silence
if [ -w /dev/full ]; then
  "$stallsim" info "$work/before.h5" > /dev/full 2> "$work/err"; rc=$?
  [ $rc -eq 1 ] && grep -q "writing to the standard output failed" "$work/err" && ok || fail "info > /dev/full: rc=$rc $(cat "$work/err")"
else
  echo "note: no writable /dev/full: the standard-output check is skipped"
fi
finish
