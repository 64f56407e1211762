#!/usr/bin/env bash
# cli_errors.sh - the catalogue of bad inputs: each gets exit status 2 (usage/config) or 1
# (data), a message on stderr that names the file and the line, column, dataset or key,
# and leaves no output behind; a failed run leaves earlier results as they were; an error
# on one rank ends the whole MPI job promptly with one message.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3

# expect STATUS 'needle1|needle2' CMD...   (every needle must occur in stderr)
expect() {
  local want=$1 needles=$2
  shift 2
  local err="$work/stderr" got
  timeout -k 5 120 "$@" >"$work/stdout" 2>"$err"
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "[$*] exit status $got, expected $want: $(head -c 300 "$err")"
    return
  fi
  if grep -q -e "Segmentation\|Assertion\|AddressSanitizer\|runtime error" "$err"; then
    fail "[$*] crashed: $(head -c 300 "$err")"
    return
  fi
  local IFS='|'
  for n in $needles; do
    grep -qF -- "$n" "$err" || { fail "[$*] stderr lacks '$n': $(head -c 300 "$err")"; return; }
  done
  ok
}

# no_leftovers DIR: no temporary or partial files
no_leftovers() {
  if ls -A "$1" 2>/dev/null | grep -q '\.tmp\.'; then fail "temporary files left in $1: $(ls -A "$1")"; else ok; fi
}

# ---------- a good trace and scenario file ----------
"$stallsim" gen -o "$work/good.h5" --gpus 2 --iterations 60 --seed 3 >/dev/null || fail "gen"
# gen's bounds keep every time finite and every seed its own
expect 2 "must be at most 100000 s" "$stallsim" gen -o "$work/inf.h5" --fetch-mean 1e307 --iterations 100
expect 2 "--seed must be from 0 to 4294967295" "$stallsim" gen -o "$work/seed.h5" --seed 4294967297 --iterations 10
# times within bounds whose sum runs past what a trace may hold (1e9 s): refused at the row
# that would, no file left (the trace was written, and then refused by every reader)
expect 2 "gen: epoch 1, iteration 9995 would start after 1e+09 s, more than a trace may hold" \
  "$stallsim" gen -o "$work/far.h5" --gpus 1 --iterations 20000 --compute-mean 100000 --fetch-mean 1000
[ ! -e "$work/inf.h5" ] && [ ! -e "$work/seed.h5" ] && [ ! -e "$work/far.h5" ] && ok || fail "a refused gen wrote its file"
no_leftovers "$work"
good_ini() {
  cat > "$work/$1" <<INI
[trace]
path = good.h5
[scenarios]
fetch_align = none, min
start_align = none
INI
}

# ---------- INI ----------
ini_case() { # name status needles body
  printf '%s\n' "$4" > "$work/$1.ini"
  expect "$2" "$3" "$stallsim" run "$work/$1.ini" --out "$work/out-$1"
  [ -e "$work/out-$1/summary.csv" ] && fail "$1: summary.csv written despite the error" || ok
}
ini_case unknown_key 2 "unknown_key.ini:3|'bogus'" $'[trace]\npath = good.h5\nbogus = 1'
ini_case unknown_section 2 "unknown_section.ini:3|[nowhere]" $'[trace]\npath = good.h5\n[nowhere]\nx = 1'
ini_case duplicate_key 2 "duplicate_key.ini:3|duplicate key 'path'" $'[trace]\npath = good.h5\npath = good.h5'
ini_case empty_list 2 "empty_list.ini:4|fetch_align|empty list" $'[trace]\npath = good.h5\n[scenarios]\nfetch_align = '
ini_case bad_align 2 "bad_align.ini:4|fastest" $'[trace]\npath = good.h5\n[scenarios]\nstart_align = none, fastest'
ini_case not_number 2 "not_number.ini:4|0.03x" $'[trace]\npath = good.h5\n[summary]\neffective_delay_threshold = 0.03x'
ini_case nan_number 2 "nan_number.ini:4|nan" $'[trace]\npath = good.h5\n[independent]\nstall_floor = nan'
ini_case negative 2 "negative.ini:4|stall_sensitivity|negative" $'[trace]\npath = good.h5\n[independent]\nstall_sensitivity = -1'
ini_case zero_prefetch 2 "zero_prefetch.ini:4|prefetch" $'[trace]\npath = good.h5\n[scenarios]\nprefetch = 0'
ini_case bad_workers 2 "bad_workers.ini:4|workers" $'[trace]\npath = good.h5\n[scenarios]\nworkers = auto*x'
# seconds and auto factors within their bounds: a huge value would leave the range of the numbers
ini_case huge_gap 2 "huge_gap.ini:4|step_gap|from 0 to 1e+09" $'[trace]\npath = good.h5\n[pipeline]\nstep_gap = 1e308'
ini_case huge_auto 2 "huge_auto.ini:4|worker_gap|from 0 to 1e+09" $'[trace]\npath = good.h5\n[pipeline]\nworker_gap = 1e12'
ini_case huge_factor 2 "huge_factor.ini:4|delivery|factor|1e-06 to 1e+06" $'[trace]\npath = good.h5\n[pipeline]\ndelivery = auto*1e300'
ini_case no_trace 2 "no_trace.ini|[trace] path is missing" $'[scenarios]\nfetch_align = min'
ini_case no_equals 2 "no_equals.ini:2" $'[trace]\nthis line has no equals sign'
long=$(printf 'x%.0s' $(seq 1 300))
# a long line is read whole (inih alone would cut it at ~200 characters)
ini_case long_line 1 "long_line.ini:2: [trace] path|/$long: cannot open trace" "[trace]
path = $long"
ini_case trace_missing 1 "trace_missing.ini:2: [trace] path (a relative path in a scenario file is taken from the file's folder)|nonexistent.h5|No such file" $'[trace]\npath = nonexistent.h5'
# a key longer than any is refused, not cut to one that reads as known ("dir", then spaces)
ini_case long_key 2 "long_key.ini:4: a key of 117 characters" "[trace]
path = good.h5
[output]
dir$(printf '%100s' '')IGNORED_SUFFIX = o-long"
mkdir -p "$work/afolder.h5"
ini_case trace_folder 1 "afolder.h5: a folder, not a trace file" $'[trace]\npath = afolder.h5'
# a section mistyped in --set is named with the known ones, as in a file
printf '[trace]\npath = good.h5\n' > "$work/setsec.ini"
expect 2 "--set scenario.workers=2: unknown section [scenario] (did you mean [scenarios]? known: trace, scenarios," "$stallsim" run "$work/setsec.ini" --set scenario.workers=2 --out "$work/out-setsec"
# an output file in a folder that does not exist says so
expect 1 "nowhere/x.h5: cannot create file: the folder $work/nowhere does not exist" "$stallsim" gen -o "$work/nowhere/x.h5" --gpus 2 --iterations 10
expect 2 "missing.ini" "$stallsim" run "$work/missing.ini"
expect 2 "the scenario file's name is empty" "$stallsim" run ""
expect 1 "the trace file's name is empty" "$stallsim" info ""
expect 2 "is a folder" "$stallsim" run "$work"
# a trace, a record file or a binary file named where the scenario file belongs: each says what it is
expect 2 "good.h5: an HDF5 file, not a scenario file|[trace] path|stallsim info" "$stallsim" run "$work/good.h5"
printf 'stallsim-record,1\nmeta,rank,0\n' > "$work/run.rank0.csv"
expect 2 "run.rank0.csv: a stallsim record file, not a scenario file|stallsim import pytorch" "$stallsim" run "$work/run.rank0.csv"
# a record file past the scenario file's 16 MiB is named as what it is, not as too large
$py -c "import sys; open(sys.argv[1], 'w').write('stallsim-record,1\n' + 'batch,0,0,1,2\n' * 1300000)" "$work/big.rank0.csv"
expect 2 "big.rank0.csv: a stallsim record file, not a scenario file" "$stallsim" run "$work/big.rank0.csv"
rm -f "$work/big.rank0.csv"
printf '[trace]\0path = x\n' > "$work/nul.ini"
expect 2 "nul.ini: contains a NUL byte" "$stallsim" run "$work/nul.ini"
# another tool's trace given to the recorder's importer: the importer to use is named
: > "$work/run.pt.trace.json"
expect 2 "looks like a PyTorch profiler trace|stallsim import profiler" "$stallsim" import pytorch "$work/run.pt.trace.json" -o "$work/pt.h5"
expect 2 "stallsim import dftracer" "$stallsim" import pytorch "$work/trace-0.pfw.gz" -o "$work/pt.h5"
# an unreadable file: root reads everything, so run as nobody where setpriv allows it
chmod 755 "$work"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$stallsim" --version >/dev/null 2>&1; then
  printf '[trace]\npath = good.h5\n' > "$work/secret.ini"
  chmod 000 "$work/secret.ini"
  expect 2 "secret.ini|Permission denied" setpriv --reuid=nobody --regid=nogroup --clear-groups "$stallsim" run "$work/secret.ini"
  cp "$work/good.h5" "$work/secret.h5"
  chmod 000 "$work/secret.h5"
  expect 1 "secret.h5|Permission denied" setpriv --reuid=nobody --regid=nogroup --clear-groups "$stallsim" info "$work/secret.h5"
  expect 1 "secret.h5|cannot open|Permission denied" setpriv --reuid=nobody --regid=nogroup --clear-groups "$stallsim" compare "$work/secret.h5"
else
  echo "note: unreadable-file cases skipped (not root, no setpriv, or nobody cannot run $stallsim)"
fi
# compare reads no pipe: it would block, or never end
mkfifo "$work/fifo.h5"
expect 1 "fifo.h5: not a regular file" "$stallsim" compare "$work/fifo.h5"
good_ini ok.ini
expect 2 "--set|nosuch" "$stallsim" run "$work/ok.ini" --set trace.nosuch=1
expect 2 "--set|SECTION.KEY=VALUE" "$stallsim" run "$work/ok.ini" --set nodot
expect 2 "unknown option '--frobnicate' (see" "$stallsim" run "$work/ok.ini" --frobnicate
# an option of one value given twice is refused by name (neither value is taken, nothing written)
expect 2 "info: --warmup is given twice: give it once" "$stallsim" info "$work/good.h5" --warmup 1 --warmup 2
expect 2 "compare: --threshold is given twice: give it once" "$stallsim" compare "$work/good.h5" --threshold 0.1 --threshold 0.2
expect 2 "compare: --csv is given twice: give it once" "$stallsim" compare "$work/good.h5" --csv "$work/c1.csv" --csv "$work/c2.csv"
expect 2 "run: --out is given twice: give it once" "$stallsim" run "$work/ok.ini" --out "$work/o1" --out="$work/o2"
expect 2 "gen: -o is given twice: give it once" "$stallsim" gen -o "$work/g1.h5" -o "$work/g2.h5"
expect 2 "gen: --gpus is given twice: give it once" "$stallsim" gen --gpus 2 --gpus 3 -o "$work/g1.h5"
expect 2 "import: -o is given twice: give it once" "$stallsim" import table "$work/nosuch.csv" -o "$work/i1.h5" -o "$work/i2.h5"
for f in c1.csv c2.csv o1 o2 g1.h5 g2.h5 i1.h5 i2.h5; do [ ! -e "$work/$f" ] || fail "a refused command wrote $f"; done
# a mistyped option is named with the nearest one (no guess for one far from every option)
expect 2 "run: unknown option '--porgress' (did you mean '--progress'?)" "$stallsim" run "$work/ok.ini" --porgress
expect 2 "compare: unknown option '--macth' (did you mean '--match'?)" "$stallsim" compare "$work/good.h5" --macth
expect 2 "compare: unknown option '--csv=x.csv' ('--csv' takes its value as the next argument)" "$stallsim" compare "$work/good.h5" --csv=x.csv
expect 2 "run: unknown option '--ouput=x' (did you mean '--out'?)" "$stallsim" run "$work/ok.ini" --ouput=x
# the sweep's size counts the user's scenarios, not the measured row: 50 x 50 x 41 = 102,500
{ printf '[trace]\npath = good.h5\n[scenarios]\nmodel = pipeline\n'
  printf 'workers = %s\n' "$(seq -s ', ' 0 49)"; printf 'prefetch = %s\n' "$(seq -s ', ' 1 50)"
  printf 'fetch_scale = %s\n' "$(seq -s ', ' 1 41)"; } > "$work/huge.ini"
expect 2 "the sweep has 102500 scenarios; at most 100000" "$stallsim" run "$work/huge.ini" --out "$work/out-huge"
expect 2 "unknown command 'fly'" "$stallsim" fly
expect 2 "missing CONFIG.ini" "$stallsim" run
expect 2 "warmup_iterations = 500" "$stallsim" run "$work/ok.ini" --set trace.warmup_iterations=500 --out "$work/out-warm"
[ -e "$work/out-warm/summary.csv" ] && fail "summary written for an empty selection" || ok
# a list or section that no model of the sweep takes is refused, naming the model that does
# (workers = 2, 4 under the default independent model read as "no gain")
printf '[trace]\npath = good.h5\n[scenarios]\nworkers = 2, 4\n' > "$work/noworkers.ini"
expect 2 "noworkers.ini:4: [scenarios] workers is set, but no model of the sweep takes it (it applies to model = pipeline)" \
  "$stallsim" run "$work/noworkers.ini" --out "$work/out-nw"
[ -e "$work/out-nw" ] && fail "output written for a refused sweep" || ok
expect 2 "--set scenarios.fetch_scale: [scenarios] fetch_scale is set" "$stallsim" run "$work/ok.ini" --set scenarios.fetch_scale=0.5
expect 2 "--set output.rank_by is given twice: give it once" "$stallsim" run "$work/ok.ini" --set output.rank_by=steady \
  --set output.rank_by=run
# epochs of 8 batches, shorter than the default warm-up of 11: run summarises every row and
# says so; the same warm-up given in the file is the user's, and an error
"$stallsim" gen -o "$work/short.h5" --gpus 2 --iterations 8 --epochs 3 --seed 3 >/dev/null || fail "gen short"
printf '[trace]\npath = short.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2\n' > "$work/short.ini"
"$stallsim" run "$work/short.ini" --out "$work/short" > "$work/short.txt" 2>&1 &&
  grep -q "^note: every summarised epoch is shorter than the default warm-up (warmup_iterations = 11), so the summary takes every iteration" "$work/short.txt" &&
  grep -q "^\*  pipe W=4 .* 24 " "$work/short.txt" && ok || fail "epochs shorter than the default warm-up: $(cat "$work/short.txt")"
printf '[trace]\npath = short.h5\nwarmup_iterations = 11\n[scenarios]\nmodel = pipeline\n' > "$work/short11.ini"
expect 2 "short11.ini:3: trace.warmup_iterations = 11: no iteration of the trace" "$stallsim" run "$work/short11.ini" --out "$work/short11"
printf '[trace]\npath = good.h5\n[pipeline]\ndelivery = 0.002\n' > "$work/nopipe.ini"
expect 2 "nopipe.ini:4: [pipeline] delivery is set, but the pipeline model that takes it is not in the sweep" \
  "$stallsim" run "$work/nopipe.ini" --out "$work/out-np"
"$stallsim" run "$work/noworkers.ini" --set scenarios.model=independent,pipeline --out "$work/out-nw" --quiet && ok ||
  fail "workers with the pipeline model in the sweep"
# a list written without commas says how lists are written; a relative trace path that is
# missing says from where it was taken (the file's folder), with the file's line
printf '[trace]\npath = good.h5\n[scenarios]\nmodel = pipeline\nworkers = 2 4\n' > "$work/spaced.ini"
expect 2 "spaced.ini:5: scenarios.workers = '2 4' is not a whole number|separated by commas" "$stallsim" run "$work/spaced.ini"
mkdir -p "$work/sub" && printf '[trace]\npath = sub/good.h5\n' > "$work/sub/rel.ini"
(cd "$work" && expect 1 "sub/rel.ini:2: [trace] path (a relative path in a scenario file is taken from the file's folder): sub/sub/good.h5" \
  "$stallsim" run sub/rel.ini --out "$work/out-rel")
# a file that lists the pipeline keys at their defaults (as README's does) runs the independent model
printf '[trace]\npath = good.h5\n[scenarios]\nworkers = auto\nprefetch = 2\nfetch_scale = 1\n[pipeline]\ndelivery = auto\nstep_gap = 0\n' \
  > "$work/defaults.ini"
"$stallsim" run "$work/defaults.ini" --out "$work/out-def" --quiet && ok || fail "pipeline keys at their defaults refused"

# ---------- outputs ----------
"$stallsim" run "$work/ok.ini" --out "$work/prev" --quiet || fail "good run"
cp "$work/prev/summary.csv" "$work/prev.csv"
expect 2 "bogus" "$stallsim" run "$work/unknown_key.ini" --out "$work/prev"
expect 2 "warmup" "$stallsim" run "$work/ok.ini" --set trace.warmup_iterations=999 --out "$work/prev"
same_file "$work/prev.csv" "$work/prev/summary.csv" "a failed run changed the previous results"
no_leftovers "$work/prev"
: > "$work/plainfile"
expect 2 "plainfile|not a folder" "$stallsim" run "$work/ok.ini" --out "$work/plainfile"

# ---------- CSV import ----------
P=$work/csv/fsNprepNloadNtrain_demo_none_net_epoch1_b64_worker4_thread0
mkdir -p "$work/csv"
make_trio() { # writes a clean 2-GPU, 3-iteration trio
  cat > "$P.csv" <<CSV
,Epoch,Step,GPU,Time,Iteration time (sec),Training stall time (sec)
0,1,0,0,2021-09-01 19:48:55.191641,1.5,0.5
1,1,1,0,2021-09-01 19:48:56.691641,1.0,0.000002
2,1,2,0,2021-09-01 19:48:57.691641,1.0,0.000002
3,1,0,1,2021-09-01 19:48:55.191641,1.5,0.4
4,1,1,1,2021-09-01 19:48:56.691641,1.0,0.000006
5,1,2,1,2021-09-01 19:48:57.691641,1.0,0.000002
CSV
  cat > "${P}_simp_fetchdifftime.csv" <<CSV
,Epoch,Index number,Fetch time (sec)_gpu0,Fetch time (sec)_gpu1
0,1,0,1.25,1.5
1,1,1,1.0,1.125
2,1,2,0.75,0.5
CSV
  cat > "${P}_simp_fetchstartdifftime.csv" <<CSV
,Epoch,Index number,Start time_gpu0,Start time_gpu1
0,1,0,2021-09-01 19:48:54.000000,2021-09-01 19:48:54.100000
1,1,1,2021-09-01 19:48:54.000001,2021-09-01 19:48:54.1
2,1,2,2021-09-01 19:48:55.5,2021-09-01 19:48:55.600000123
CSV
}
imp_case() { # name status needles edit-command
  make_trio
  eval "$4"
  rm -f "$work/imp.h5"
  expect "$2" "$3" "$stallsim" import dsanalyzer "$P" -o "$work/imp.h5"
  [ -e "$work/imp.h5" ] && fail "$1: output written despite the error" || ok
  no_leftovers "$work"
}
F=${P}_simp_fetchdifftime.csv
S=${P}_simp_fetchstartdifftime.csv
imp_case missing_file 1 "_simp_fetchdifftime.csv" "rm '$F'"
imp_case missing_column 1 "$P.csv|'Training stall time (sec)'" "sed -i '1s/,Training stall time (sec)//; 2,\$s/,[^,]*\$//' '$P.csv'"
imp_case extra_gpu 1 "GPU counts disagree" "sed -i '1s/\$/,Fetch time (sec)_gpu2/; 2,\$s/\$/,1.0/' '$F'"
imp_case gpu_gap 1 "Fetch time (sec)_gpu1" "sed -i '1s/_gpu1/_gpu2/' '$F'"
imp_case step_gpu 1 "$P.csv:7|GPU 2" "sed -i '7s/^5,1,2,1,/5,1,2,2,/' '$P.csv'"
imp_case empty_file 1 "$F|empty" ": > '$F'"
imp_case header_only 1 "$F|no data rows" "sed -i '2,\$d' '$F'"
imp_case ragged 1 "$F:3|fields" "sed -i '3s/,1.125//' '$F'"
imp_case non_numeric 1 "$F:2|'abc'" "sed -i '2s/1.25/abc/' '$F'"
imp_case nan_value 1 "$F:2|'nan'" "sed -i '2s/1.25/nan/' '$F'"
imp_case inf_value 1 "$P.csv:3|'inf'" "sed -i '3s/,1\\.0,/,inf,/' '$P.csv'"
imp_case negative_fetch 1 "$F:3|negative" "sed -i '3s/1.125/-1.125/' '$F'"
imp_case negative_stall 1 "$P.csv:2|negative" "sed -i '2s/,0.5\$/,-0.5/' '$P.csv'"
imp_case bad_timestamp 1 "$S:2|not a timestamp" "sed -i '2s/19:48:54.000000/19:48:xx/' '$S'"
imp_case bad_date 1 "$S:2|not a timestamp" "sed -i '2s/2021-09-01 19:48:54.000000/2021-02-30 19:48:54.000000/' '$S'"
imp_case duplicate_index 1 "$F:4|duplicate (Epoch 1, Index number 1)" "sed -i '4s/^2,1,2,/2,1,1,/' '$F'"
imp_case unpaired_start 1 "do not list the same iterations" "sed -i '4d' '$S'"
imp_case step_rows_short 1 "$P.csv|3 iterations" "sed -i '4d' '$P.csv'"
imp_case extra_epoch 1 "$P.csv:8|epoch 2" "echo '6,2,0,0,2021-09-01 19:48:59.0,1.0,0.1' >> '$P.csv'"
imp_case duplicate_step 1 "duplicate Step" "sed -i '3s/^1,1,1,0,/1,1,0,0,/' '$P.csv'"
imp_case unquoted 1 "unterminated quote" "sed -i '3s/1.125/\"1.125/' '$F'"
expect 2 "unknown format" "$stallsim" import nvprof "$P" -o "$work/x.h5"
expect 2 "usage" "$stallsim" import dsanalyzer "$P"
# the trio gzipped: read as plain CSV only, and said so (it looked for FILE.csv.gz.csv)
expect 1 "the trio is read as plain CSV files: gunzip them first" "$stallsim" import dsanalyzer "$P.csv.gz" -o "$work/x.h5"

# CRLF and a byte order mark import to the very same data as plain LF files
make_trio
"$stallsim" import dsanalyzer "$P" -o "$work/lf.h5" >/dev/null 2> "$work/warn" || fail "clean import"
# a fetch finishing after its step started is suspicious, not an error: a warning
grep -q "warning: .*fetch finished after the training step started" "$work/warn" && ok ||
  fail "no warning for late fetches: $(cat "$work/warn")"
sed -i 's/$/\r/' "$P.csv" "$F" "$S"
"$stallsim" import dsanalyzer "$P" -o "$work/crlf.h5" >/dev/null && ok || fail "CRLF import: $(cat "$work/stderr")"
make_trio
for f in "$P.csv" "$F" "$S"; do tr '\n' '\r' < "$f" > "$f.cr" && mv "$f.cr" "$f"; done
"$stallsim" import dsanalyzer "$P" -o "$work/cr.h5" >/dev/null && ok || fail "CR-only import: $(cat "$work/stderr")"
make_trio
printf '\xef\xbb\xbf' | cat - "$F" > "$F.bom" && mv "$F.bom" "$F"
"$stallsim" import dsanalyzer "$P" -o "$work/bom.h5" >/dev/null && ok || fail "BOM import"
if command -v h5diff >/dev/null; then
  h5diff -q "$work/lf.h5" "$work/crlf.h5" /timeline /timeline && ok || fail "CRLF import differs"
  h5diff -q "$work/lf.h5" "$work/bom.h5" /timeline /timeline && ok || fail "BOM import differs"
  h5diff -q "$work/lf.h5" "$work/cr.h5" /timeline /timeline && ok || fail "CR-only import differs"
fi
# the trace attributes come from the file name
"$stallsim" info "$work/lf.h5" > "$work/info.txt" || fail "info"
grep -q "batch_size    64" "$work/info.txt" && grep -q "model         net" "$work/info.txt" && ok || fail "name attributes: $(cat "$work/info.txt")"

# ---------- HDF5 traces ----------
echo "not hdf5" > "$work/text.h5"
expect 1 "text.h5|not an HDF5 file" "$stallsim" info "$work/text.h5"
head -c 3000 "$work/good.h5" > "$work/trunc.h5"
expect 1 "trunc.h5" "$stallsim" info "$work/trunc.h5"
expect 1 "nosuch.h5" "$stallsim" info "$work/nosuch.h5"
# info's options: a misspelt one is named, --warmup is checked as run's key, one trace
expect 2 "info: unknown option '--warmpu' (did you mean '--warmup'?)" "$stallsim" info "$work/good.h5" --warmpu 3
expect 2 "info: --warmup '-1'" "$stallsim" info "$work/good.h5" --warmup -1
expect 2 "info: --warmup needs a value" "$stallsim" info "$work/good.h5" --warmup
expect 2 "info: one trace at a time" "$stallsim" info "$work/good.h5" "$work/good.h5"
expect 2 "info: --warmup 900 leaves no iteration of" "$stallsim" info "$work/good.h5" --warmup=900
# --warmup 0: each GPU's mean over every row, as the trace's own column gives it
"$stallsim" info "$work/good.h5" --warmup=0 > "$work/info0.txt" 2>&1 || fail "info --warmup=0"
if $py -c "import h5py" 2>/dev/null; then
  $py - "$work/good.h5" "$work/info0.txt" <<'PY' && ok || fail "info --warmup 0: $(tail -4 "$work/info0.txt")"
import re, sys
import h5py
it = h5py.File(sys.argv[1], "r")["timeline/iteration_time"][:]
text = open(sys.argv[2]).read()
assert "means over all 60 iterations" in text, text
rows = re.findall(r"^\s+(\d+)\s+([\d.]+)\s+[\d.]+\s+\d+", text, re.M)
assert len(rows) == 2 and all(abs(float(m) - it[:, int(g)].mean()) < 1e-6 for g, m in rows), (rows, it.mean(axis=0))
# and the measured row of run and compare: the mean of the largest over the GPUs per row
mx = re.search(r"^\s+max\s+([\d.]+)\s", text, re.M)
assert mx and abs(float(mx.group(1)) - it.max(axis=1).mean()) < 1e-6, (mx, it.max(axis=1).mean())
PY
fi
if $py -c "import h5py" 2>/dev/null; then
  h5case() { # name status needles python-edit (f = the open file, np = numpy)
    cp "$work/good.h5" "$work/$1.h5"
    $py - "$work/$1.h5" <<PY || { fail "$1: could not craft the file"; return; }
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    $4
PY
    expect "$2" "$3" "$stallsim" info "$work/$1.h5"
    sed "s#good.h5#$1.h5#" "$work/ok.ini" > "$work/h5-$1.ini"
    expect "$2" "$3" "$stallsim" run "$work/h5-$1.ini" --out "$work/out-h5-$1"
    [ -e "$work/out-h5-$1/summary.csv" ] && fail "$1: results written for a bad trace" || ok
  }
  h5case wrong_schema 1 "schema = 'nottrace'" "f.attrs['schema'] = 'nottrace'"
  h5case no_schema 1 "attribute 'schema' is missing" "del f.attrs['schema']"
  h5case wrong_version 1 "schema_version = 2" "f.attrs['schema_version'] = 2"
  h5case missing_dataset 1 "/timeline/stall_time is missing" "del f['timeline/stall_time']"
  h5case wrong_rank 1 "/timeline/fetch_time has rank 1" "d = f['timeline/fetch_time'][:, 0]; del f['timeline/fetch_time']; f['timeline/fetch_time'] = d"
  h5case wrong_shape 1 "/timeline/train_start has 3 columns" "d = np.zeros((60, 3)); del f['timeline/train_start']; f['timeline/train_start'] = d"
  h5case wrong_type 1 "/timeline/iteration_time has type float of 4 bytes" "d = f['timeline/iteration_time'][()].astype('f4'); del f['timeline/iteration_time']; f['timeline/iteration_time'] = d"
  h5case string_type 1 "/timeline/epoch has type string" "del f['timeline/epoch']; f['timeline/epoch'] = np.array([b'x'] * 60)"
  h5case gpus_attr 1 "attribute gpus = 3" "f.attrs['gpus'] = 3"
  h5case iterations_attr 1 "attribute iterations = 61" "f.attrs['iterations'] = 61"
  h5case zero_iterations 1 "zero iterations" "f.attrs['iterations'] = 0"
  h5case nan_duration 1 "/timeline/fetch_time: row 20, GPU 1|not a finite number" "d = f['timeline/fetch_time']; d[20, 1] = np.nan"
  h5case negative_duration 1 "/timeline/stall_time: row 30, GPU 0|negative" "d = f['timeline/stall_time']; d[30, 0] = -0.5"
  h5case huge_duration 1 "/timeline/iteration_time: row 7, GPU 1|a duration of more than 1e9 s" "d = f['timeline/iteration_time']; d[7, 1] = 1e300"
  h5case huge_time 1 "/timeline/train_start: row 3, GPU 0|more than 1e9 s, 31 years, from the time origin" "d = f['timeline/train_start']; d[3, 0] = -2e9"
  h5case unsorted 1 "not sorted by (epoch, index)" "d = f['timeline/index']; d[10] = 3"
  h5case negative_index 1 "/timeline/index: row 0 holds a negative index" "d = f['timeline/index']; d[:] = np.arange(60) - 5"
  # every index negative: no row reaches the warm-up, yet the fault is the index, not the warm-up
  h5case all_negative_index 1 "/timeline/index: row 0 holds a negative index" "d = f['timeline/index']; d[:] = -1 - np.arange(60)"
  h5case unwritten 1 "/timeline/stall_time was never written" "del f['timeline/stall_time']; f.create_dataset('timeline/stall_time', (60, 2), 'f8')"
  # the same, where row 10 opens a slab: the order is checked across slab boundaries
  for slab in 1 10; do
    expect 1 "rows 9 and 10 are not sorted" "$stallsim" run "$work/h5-unsorted.ini" --set run.slab_iterations=$slab \
      --out "$work/out-unsorted-$slab"
  done

  # an error that only one rank meets ends the whole job, promptly, with one message
  if [ "$have_mpi" = 1 ]; then
    "$stallsim" gen -o "$work/big.h5" --gpus 2 --iterations 5000 --seed 4 >/dev/null
    $py - "$work/big.h5" <<PY
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    f['timeline/fetch_time'][4500, 1] = np.inf
PY
    sed "s#good.h5#big.h5#" "$work/ok.ini" > "$work/big.ini"
    for np in 2 3; do
      start=$(date +%s)
      mpi_cmd $np
      expect 1 "row 4500, GPU 1" "${mpi_cmd_words[@]}" "$stallsim" run "$work/big.ini" --out "$work/out-big"
      n=$(grep -c "stallsim:" "$work/stderr")
      [ "$n" -eq 1 ] && ok || fail "np=$np: expected one error message, got $n: $(cat "$work/stderr")"
      [ $(($(date +%s) - start)) -lt 60 ] && ok || fail "np=$np: the failing job took too long"
      [ -e "$work/out-big/summary.csv" ] && fail "np=$np: results written" || ok
    done
    mpi_cmd 2
    expect 1 "nonexistent.h5" "${mpi_cmd_words[@]}" "$stallsim" run "$work/trace_missing.ini" --out "$work/out-mm"
  fi
else
  echo "note: h5py not found; crafted-HDF5 cases skipped"
fi
# a results.h5 given where a trace belongs: said so, with what to give instead
printf '[trace]\npath = %s\n[scenarios]\nmodel = independent\n' "$work/good.h5" > "$work/res.ini"
"$stallsim" run "$work/res.ini" --out "$work/res" --quiet || fail "run for a results.h5"
"$stallsim" info "$work/res/results.h5" > /dev/null 2> "$work/res.err"; rc=$?
[ $rc -eq 1 ] && grep -q "results.h5: a stallsim results file (the /summary of a sweep), not a trace" "$work/res.err" && ok ||
  fail "info of a results.h5: rc=$rc $(cat "$work/res.err")"
finish
