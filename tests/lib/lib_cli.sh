# lib_cli.sh - shared by the shell tests (tests/cli/, tests/validation/, toy/, fault/): arguments, a scratch folder, checks.
# Usage in a script: . "$(dirname "$0")/../lib/lib_cli.sh" "$@"
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

# The MPI launcher: ctest passes CMake's (FindMPI: MPIEXEC_EXECUTABLE, MPIEXEC_NUMPROC_FLAG,
# MPIEXEC_PREFLAGS) in STALLSIM_MPIEXEC*; run by hand, mpirun -np. Open MPI's refuses more
# ranks than cores without --oversubscribe, which it gets here. mpi_cmd NP: the command
# line's words before the program, in the array mpi_cmd_words.
mpiexec=${STALLSIM_MPIEXEC:-mpirun}
mpiexec_np=${STALLSIM_MPIEXEC_NUMPROC_FLAG:--np}
read -r -a mpiexec_pre <<<"${STALLSIM_MPIEXEC_PREFLAGS:-}"
if command -v "$mpiexec" >/dev/null; then
  have_mpi=1
  "$mpiexec" --version 2>&1 | grep -Eq "Open MPI|OpenRTE" && mpiexec_pre+=(--oversubscribe) # (mpiexec says OpenRTE)
else
  have_mpi=0
fi
mpi_cmd() { mpi_cmd_words=("${mpi_env[@]}" "$mpiexec" "${mpiexec_pre[@]}" "$mpiexec_np" "$1"); }

# the launcher with a time limit, so that a hung rank fails the test instead of hanging it
mpirun_t() {
  mpi_cmd "$1"
  shift
  timeout -k 5 120 "${mpi_cmd_words[@]}" "$@"
}

need_mpirun() {
  [ "$have_mpi" = 1 ] || { echo "skipped: the MPI launcher $mpiexec not found"; exit 77; }
}

# same_file A B WHAT
same_file() {
  if cmp -s "$1" "$2"; then ok; else fail "$3: $1 and $2 differ"; diff "$1" "$2" | head -5 >&2; fi
}

finish() {
  echo "$checks passed, $failures failed"
  [ "$failures" -eq 0 ]
}

# need_torch: skips the test (77) unless Debian's python (py) imports torch with
# torch.distributed and h5py, as the recorder's real jobs need.
need_torch() {
  py=/usr/bin/python3
  if ! $py -c "import torch, torch.distributed; assert torch.distributed.is_available()" 2>/dev/null; then
    echo "skipped: $py cannot import torch with torch.distributed (scripts/setup.sh installs python3-torch)"
    exit 77
  fi
  $py -c "import h5py" 2>/dev/null || { echo "skipped: $py cannot import h5py (python3-h5py)"; exit 77; }
}

