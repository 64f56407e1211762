#!/usr/bin/env bash
# test.sh - sets stallsim up (packages, build with warnings as errors) and runs the whole
# test suite under ctest.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh" -DSTALLSIM_WERROR=ON
. "$here/scripts/env.sh"
cd "$here/build"
ctest --output-on-failure -j2 "$@"
