#!/usr/bin/env bash
# cli_small.sh - small promises: stallsim without a command exits 2 with its usage on
# stderr; numbers are decimal everywhere (hexadecimal, inf and nan are refused in scenario
# files, --set, gen and compare options and CSV cells alike); counts read "1 GPU".
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
cd "$work" || exit 1
"$stallsim" >out 2>err
rc=$?
[ $rc -eq 2 ] && [ ! -s out ] && grep -q "^usage: stallsim COMMAND" err && ok || fail "no arguments: status $rc"

# refused STATUS NAME CMD...: the command fails with STATUS and names the bad number
refused() {
  local want=$1 name=$2
  shift 2
  "$@" >out 2>err
  local rc=$?
  [ $rc -eq "$want" ] && grep -q "0x\|inf\|nan" err && ok || fail "$name: status $rc, expected $want: $(cat err out | head -3)"
}
"$stallsim" gen -o t.h5 --gpus 1 --iterations 30 >out || fail "gen"
grep -q "1 GPU, 30 iterations x 1 epoch, 4 workers" out && ok || fail "gen counts: $(cat out)"
for v in 0x10 0x1p-3 inf nan; do
  printf '[trace]\npath = t.h5\n[independent]\nstall_floor = %s\n' "$v" > h.ini
  refused 2 "ini stall_floor = $v" "$stallsim" run h.ini --out r
  printf '[trace]\npath = t.h5\n' > ok.ini
  refused 2 "--set threshold $v" "$stallsim" run ok.ini --set summary.effective_delay_threshold="$v" --out r
  refused 2 "--set fetch_scale $v" "$stallsim" run ok.ini --set scenarios.fetch_scale="$v" --out r
  refused 2 "gen --fetch-mean $v" "$stallsim" gen -o g.h5 --fetch-mean "$v"
  refused 2 "gen --gpus $v" "$stallsim" gen -o g.h5 --gpus "$v"
  refused 2 "compare --threshold $v" "$stallsim" compare t.h5 --threshold "$v"
done
refused 2 "ini warmup 0x10" "$stallsim" run ok.ini --set trace.warmup_iterations=0x10 --out r
refused 2 "compare --warmup 0x3" "$stallsim" compare t.h5 --warmup 0x3
[ -e g.h5 ] && fail "gen wrote g.h5 with a bad option" || ok
# decimal forms stay accepted
"$stallsim" run ok.ini --set independent.stall_floor=2e-6 --set scenarios.model=independent,pipeline --set scenarios.fetch_scale=+.5 --out r --quiet && ok || fail "decimal forms refused"

# a CSV cell in hexadecimal
P=$work/fsNprepNloadNtrain_demo_none_net_epoch1_b64_worker4_thread0
cat > "$P.csv" <<CSV
,Epoch,Step,GPU,Time,Iteration time (sec),Training stall time (sec)
0,1,0,0,2021-09-01 19:48:55.191641,1.5,0.5
1,1,1,0,2021-09-01 19:48:56.691641,0x1,0.000002
CSV
cat > "${P}_simp_fetchdifftime.csv" <<CSV
,Epoch,Index number,Fetch time (sec)_gpu0
0,1,0,1.25
1,1,1,1.0
CSV
cat > "${P}_simp_fetchstartdifftime.csv" <<CSV
,Epoch,Index number,Start time_gpu0
0,1,0,2021-09-01 19:48:54.000000
1,1,1,2021-09-01 19:48:54.000001
CSV
"$stallsim" import dsanalyzer "$P" -o imp.h5 >out 2>err
rc=$?
[ $rc -eq 1 ] && grep -q "'0x1', not a finite number" err && ok || fail "CSV cell 0x1: status $rc: $(cat err)"
sed -i 's/,0x1,/,1.0,/' "$P.csv"
"$stallsim" import dsanalyzer "$P" -o imp.h5 >out 2>err && grep -q "wrote imp.h5: 1 GPU, 2 iterations" out && ok || fail "import counts: $(cat out err)"
finish
