#!/usr/bin/env bash
# demo.sh - sets stallsim up on a fresh Debian machine and asks which fix pays on the
# bundled trace (config/examples/which-fix.ini: the pipeline model, every GPU healed in
# turn, more workers, faster storage) under MPI with 2 ranks, printing the table and the
# ranked answer with its intervals. The results go into the folder named on the command
# line (default: ./stallsim-demo, where you stand), never into the source tree.
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
mpirun -np 2 "$here/build/stallsim" run "$here/config/examples/which-fix.ini" --out "$out"
