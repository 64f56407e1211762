#!/usr/bin/env bash
# fault_one_rank.sh - a failure on one rank alone ends every rank with one message, no hang and
# no output: the trace's metadata unreadable on rank 1 only (ss_fault_one_rank.c here,
# preloaded), with the trace opened through POSIX and through MPI-IO (STALLSIM_TRACE_MPIO=1,
# where the open and the close are collective: the rank that failed closed alone, and the
# others waited for it in the next agreement; it hung).
# usage: fault_one_rank.sh STALLSIM SHARED_DIR SOURCE_DIR FAULT_MODULE
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
module=$4
need_mpirun
"$mpiexec" --version 2>&1 | grep -Eq "Open MPI|OpenRTE" || { echo "skipped: the launcher is not Open MPI's (-x passes the environment)"; exit 77; }
[ -f "$module" ] || { echo "skipped: no fault module ($module)"; exit 77; }
cd "$work" || exit 1
"$stallsim" gen -o f.h5 --gpus 3 --iterations 60 --seed 4 >/dev/null || fail "gen"
printf '[trace]\npath = f.h5\n[scenarios]\nmodel = independent, pipeline\n' > f.ini
for io in posix mpio; do
  mpio=()
  [ $io = mpio ] && mpio=(-x STALLSIM_TRACE_MPIO=1)
  # the module works: rank 1 alone cannot read the trace
  mpirun_t 2 "${mpio[@]}" -x LD_PRELOAD="$module" -x STALLSIM_FAULT_RANK=1 "$stallsim" run f.ini --out "o-$io" \
    >out 2>err
  rc=$?
  n=$(grep -c "^stallsim: f.ini:2: \[trace\] path: f.h5: root attribute 'schema' is missing" err)
  [ $rc -eq 1 ] && [ "$n" -eq 1 ] && [ ! -e "o-$io" ] && ok ||
    fail "$io, rank 1 failing alone: status $rc (124: hung), $n messages, output $(ls "o-$io" 2>&1): $(head -5 err)"
  # and without the fault the same run works
  mpirun_t 2 "${mpio[@]}" "$stallsim" run f.ini --out "ok-$io" --quiet && [ -s "ok-$io/summary.csv" ] && ok ||
    fail "$io without the fault"
done
finish
