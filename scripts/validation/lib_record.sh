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

# point_args POINT: the workload's arguments of a point named wN (N workers) or wN-pers (N persistent workers);
# status 1 for another name.
point_args() {
  case $1 in
    w[0-9] | w[0-9][0-9]) echo "--workers ${1#w}" ;;
    w[0-9]-pers | w[0-9][0-9]-pers) local n=${1#w}; echo "--workers ${n%-pers} --persistent" ;;
    *) return 1 ;;
  esac
}
