# lib_record.sh - sourced by the record scripts of datasets: waits for a quiet machine before a run.
# wait_quiet: waits until the 1-minute load average is at most $LOAD_MAX (default 1.0), checking every $WAIT_STEP s
# (default 20), up to 600 s; sets load (the last reading) and waited (seconds waited).
wait_quiet() {
  waited=0
  load=$(cut -d' ' -f1 /proc/loadavg)
  while awk "BEGIN{exit !($load > ${LOAD_MAX:-1.0})}" && [ $waited -lt 600 ]; do
    sleep "${WAIT_STEP:-20}"; waited=$((waited + ${WAIT_STEP:-20})); load=$(cut -d' ' -f1 /proc/loadavg)
  done
}

# point_args POINT: the workload's arguments of a point named wN (N workers), wN-pers (N persistent workers) or
# either with -slowR (rank R's storage slower: --slow-rank R); status 1 for another name.
point_args() {
  local p=$1 slow=""
  case $p in
    *-slow[0-9]) slow=" --slow-rank ${p##*-slow}"; p=${p%-slow*} ;;
  esac
  case $p in
    w[0-9] | w[0-9][0-9]) echo "--workers ${p#w}$slow" ;;
    w[0-9]-pers | w[0-9][0-9]-pers) local n=${p#w}; echo "--workers ${n%-pers} --persistent$slow" ;;
    *) return 1 ;;
  esac
}

# record_begin SCRIPT DIR "COMMON ARGS" [POINT...]: a record script's start. Prints SCRIPT's usage (its lines 2-10)
# and exits 2 without DIR and COMMON ARGS; else goes to the repository root and sets out (DIR), common (COMMON
# ARGS) and raw ($RAW, default /tmp/<folder name>-raw), and makes DIR. The caller then drops its first two
# arguments.
record_begin() {
  local script=$1
  shift
  [ $# -ge 2 ] || { sed -n '2,10p' "$script" >&2; exit 2; }
  cd "$(dirname "$script")/../.." || exit 1
  out=$1
  common=$2
  raw=${RAW:-/tmp/$(basename "$out")-raw}
  mkdir -p "$out"
}
