#!/usr/bin/env bash
# bench_import.sh - memory and speed of the importers on generated multi-GB inputs: peak RSS
# (/usr/bin/time -v) and throughput (input bytes / wall time) per format. Not part of ctest.
#
# Usage: scripts/bench_import.sh [STALLSIM] [SCALE]
#   STALLSIM  the binary (default build/stallsim); SCALE: input size in percent
#   (default 100: about 2 GB of DFTracer lines, 2 GB of Kineto JSON, 1 GB of CSV).
# Environment: BENCH_DIR (default /tmp) holds the inputs and outputs while it runs; BENCH_GZ=1
# also times a gzip -1 compressed copy of the DFTracer input.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/stallsim}
scale=${2:-100}
py=/usr/bin/python3
gen=$here/validation/gen_import_inputs.py
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/stallsim-bench-import-XXXXXX")
trap 'rm -rf "$dir"' EXIT

measure() { # NAME INPUT-BYTES ARGS...
  local name=$1 bytes=$2
  shift 2
  /usr/bin/time -v "$bin" import "$@" > "$dir/out.txt" 2> "$dir/time.txt" || { cat "$dir/out.txt" "$dir/time.txt"; exit 1; }
  local rss wall
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  printf '%-22s %9.0f MB in  %8.1f s  %7.1f MB/s  peak RSS %6.1f MB  (%s)\n' "$name" "$(echo "$bytes / 1048576" | bc -l)" \
    "$wall" "$(echo "$bytes / 1048576 / $wall" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$(tail -n 1 "$dir/out.txt")"
}

steps=$((4600 * scale / 100))
$py "$gen" dftracer "$dir/pfw" 8 10 "$steps" 4
measure "dftracer (8 ranks)" "$(du -cb "$dir"/pfw/*.pfw | tail -n 1 | cut -f1)" dftracer "$dir/pfw" -o "$dir/d.h5"
if [ "${BENCH_GZ:-0}" = 1 ]; then
  mkdir -p "$dir/gz"
  for f in "$dir"/pfw/*.pfw; do gzip -1 -c "$f" > "$dir/gz/$(basename "$f").gz"; done
  measure "dftracer .pfw.gz" "$(du -cb "$dir"/pfw/*.pfw | tail -n 1 | cut -f1)" dftracer "$dir/gz" -o "$dir/dgz.h5"
fi
rm -rf "$dir/pfw" "$dir/gz" "$dir"/d*.h5

$py "$gen" profiler "$dir/p.json" $((220000 * scale / 100)) 40
measure "profiler (1 file)" "$(stat -c %s "$dir/p.json")" profiler "$dir/p.json" -o "$dir/p.h5"
rm -f "$dir/p.json" "$dir/p.h5"

$py "$gen" table "$dir/t.csv" 8 5 $((350000 * scale / 100))
measure "table (8 ranks)" "$(stat -c %s "$dir/t.csv")" table "$dir/t.csv" -o "$dir/t.h5"
