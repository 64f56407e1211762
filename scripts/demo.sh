#!/usr/bin/env bash
# demo.sh - sets stallsim up on a fresh Debian machine and runs the demo sweep on the
# bundled trace under MPI with 2 ranks, printing the summary table. The results go into
# the folder named on the command line (default: ./stallsim-demo, where you stand), never
# into the source tree.
# usage: scripts/demo.sh [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-stallsim-demo}
case "$out" in -h | --help)
  echo "usage: scripts/demo.sh [OUT_DIR]   (default: ./stallsim-demo)"
  exit 0
  ;;
esac
"$here/scripts/setup.sh"
. "$here/scripts/env.sh"
"$here/build/stallsim" info "$here/datasets/demo-4gpu.h5"
echo
mpirun -np 2 "$here/build/stallsim" run "$here/config/examples/demo.ini" --out "$out"
