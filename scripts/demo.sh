#!/usr/bin/env bash
# demo.sh - sets stallsim up on a fresh Debian machine and runs the demo sweep on the
# bundled trace under MPI with 2 ranks, printing the summary table.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
. "$here/scripts/env.sh"
"$here/build/stallsim" info "$here/datasets/demo-4gpu.h5"
echo
mpirun -np 2 "$here/build/stallsim" run "$here/config/examples/demo.ini"
