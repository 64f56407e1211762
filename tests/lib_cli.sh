# lib_cli.sh - shared by the tests/cli_*.sh scripts: arguments, a scratch folder, checks.
# Usage in a script: . "$(dirname "$0")/lib_cli.sh" "$@"
stallsim=$1
shared=$2
src=$3
work=$(mktemp -d /tmp/stallsim-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$src/scripts/env.sh"
# Open MPI's own allocations outlive MPI_Finalize; LeakSanitizer (sanitizer builds) would
# report them as ours. Leak checking stays on for everything not run under mpirun.
mpi_env=(env "ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}")
failures=0
checks=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

ok() { checks=$((checks + 1)); }

# mpirun with a time limit, so that a hung rank fails the test instead of hanging it
mpirun_t() {
  local np=$1
  shift
  timeout -k 5 120 "${mpi_env[@]}" mpirun --oversubscribe -np "$np" "$@"
}

need_mpirun() {
  command -v mpirun >/dev/null || { echo "skipped: mpirun not found"; exit 77; }
}

# same_file A B WHAT
same_file() {
  if cmp -s "$1" "$2"; then ok; else fail "$3: $1 and $2 differ"; diff "$1" "$2" | head -5 >&2; fi
}

finish() {
  echo "$checks passed, $failures failed"
  [ "$failures" -eq 0 ]
}
