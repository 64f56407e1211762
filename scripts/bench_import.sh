#!/usr/bin/env bash
# bench_import.sh - memory and speed of the importers on generated multi-GB inputs, with the
# Python alternatives timed in the same run: peak RSS and times (/usr/bin/time -v), throughput
# (input bytes / wall time, and per core: / CPU time) and the ratios. Not part of ctest.
#
# Usage: scripts/bench_import.sh [STALLSIM] [SCALE]
#   STALLSIM  the binary (default build/stallsim); SCALE: input size in percent
#   (default 100: about 2 GB of DFTracer lines, 2 GB of Kineto JSON, 1 GB of CSV).
# Environment: BENCH_DIR (default /tmp) holds the inputs and outputs while it runs; BENCH_GZ=1
# also times a gzip -1 compressed copy of the DFTracer input; BENCH_REPEAT=N (default 1)
# keeps the fastest of N runs of each command; BENCH_MPI="2 3" also times the DFTracer import
# under mpirun at 1 rank and at those rank counts (efficiency: the 1-rank wall time / (N x its
# own); on a machine others use too, compare the CPU times instead).
# The alternatives (/usr/bin/python3): a json.loads loop over the DFTracer lines, json.load
# of the Kineto file, pandas.read_csv with a groupby per (epoch, step) of the table (the csv
# module when pandas is not installed). Each ratio is the alternative's wall time over the
# import's: above 1, the import is faster.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/stallsim}
scale=${2:-100}
repeat=${BENCH_REPEAT:-1}
py=/usr/bin/python3
gen=$here/validation/gen_import_inputs.py
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/stallsim-bench-import-XXXXXX")
trap 'rm -rf "$dir"' EXIT
. "$here/env.sh"

# the alternatives, one per format: each prints nothing, its time is measured from outside
cat > "$dir/alt.py" <<'PY'
import json, os, sys
kind, paths = sys.argv[1], sys.argv[2:]
if kind == "json-lines":  # what a plain Python loop over DFTracer lines does
    n = 0
    for p in paths:
        with open(p, "rb") as f:
            for line in f:
                line = line.strip().rstrip(b",")
                if line in (b"", b"[", b"]"):
                    continue
                e = json.loads(line)
                if e.get("name") == "loop.iter":
                    n += 1
elif kind == "json-load":
    with open(paths[0], "rb") as f:
        json.load(f)
elif kind == "pandas":
    import pandas
    t = pandas.read_csv(paths[0])
    t.groupby(["epoch", "step"]).agg({"stall_time": "max", "fetch_start": "min"})
elif kind == "csv":
    import csv
    with open(paths[0], newline="") as f:
        r = csv.reader(f)
        h = next(r)
        e, s, st = h.index("epoch"), h.index("step"), h.index("stall_time")
        worst = {}
        for row in r:
            k = (int(row[e]), int(row[s]))
            v = float(row[st])
            if v > worst.get(k, -1.0):
                worst[k] = v
PY
have_pandas=0
$py -c "import pandas" 2>/dev/null && have_pandas=1

# timed CMD...: the fastest of $repeat runs; sets wall, cpu (user + system) and rss (MB)
timed() {
  local best_wall="" i w c r
  for ((i = 0; i < repeat; i++)); do
    /usr/bin/time -v "$@" > "$dir/out.txt" 2> "$dir/time.txt" || { cat "$dir/out.txt" "$dir/time.txt"; exit 1; }
    w=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    c=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$dir/time.txt")
    r=$(awk -F': ' '/Maximum resident set size/ {print $2 / 1024}' "$dir/time.txt")
    if [ -z "$best_wall" ] || [ "$(echo "$w < $best_wall" | bc -l)" = 1 ]; then
      best_wall=$w wall=$w cpu=$c rss=$r
    fi
  done
  [ "$(echo "$wall < 0.01" | bc -l)" = 1 ] && wall=0.01
  [ "$(echo "$cpu < 0.01" | bc -l)" = 1 ] && cpu=0.01
  return 0
}

# measure NAME INPUT-BYTES ARGS...: one import; keeps its wall time in imp_wall
measure() {
  local name=$1 bytes=$2
  shift 2
  timed "$bin" import "$@"
  imp_wall=$wall
  printf '%-22s %7.0f MB  %7.2f s  %7.1f MB/s  %7.1f MB/s per core  peak RSS %6.1f MB  (%s)\n' "$name" \
    "$(echo "$bytes / 1048576" | bc -l)" "$wall" "$(echo "$bytes / 1048576 / $wall" | bc -l)" \
    "$(echo "$bytes / 1048576 / $cpu" | bc -l)" "$rss" "$(tail -n 1 "$dir/out.txt")"
}

# alternative NAME KIND PATHS...: the Python alternative, and its time over the last import's
alternative() {
  local name=$1
  shift
  timed "$py" "$dir/alt.py" "$@"
  printf '  %-20s %7.2f s  peak RSS %6.1f MB  the import is %.1fx faster\n' "$name" "$wall" "$rss" \
    "$(echo "$wall / $imp_wall" | bc -l)"
}

echo "stallsim import, $(nproc) cores, scale $scale %, fastest of $repeat"
steps=$((4600 * scale / 100))
$py "$gen" dftracer "$dir/pfw" 8 10 "$steps" 4
pfw_bytes=$(du -cb "$dir"/pfw/*.pfw | tail -n 1 | cut -f1)
measure "dftracer (8 ranks)" "$pfw_bytes" dftracer "$dir/pfw" -o "$dir/d.h5"
alternative "python json loop" json-lines "$dir"/pfw/*.pfw
if [ -n "${BENCH_MPI:-}" ]; then
  timed mpirun --oversubscribe -np 1 "$bin" import dftracer "$dir/pfw" -o "$dir/d1.h5"
  mpi1_wall=$wall
  printf '  %-20s %7.2f s  %7.1f MB/s\n' "mpirun -np 1" "$wall" "$(echo "$pfw_bytes / 1048576 / $wall" | bc -l)"
  for np in $BENCH_MPI; do
    timed mpirun --oversubscribe -np "$np" "$bin" import dftracer "$dir/pfw" -o "$dir/d$np.h5"
    printf '  %-20s %7.2f s  %7.1f MB/s  efficiency %3.0f %% (of mpirun -np 1)  peak RSS %6.1f MB (one rank)\n' \
      "mpirun -np $np" "$wall" "$(echo "$pfw_bytes / 1048576 / $wall" | bc -l)" \
      "$(echo "100 * $mpi1_wall / ($np * $wall)" | bc -l)" "$rss"
    h5diff -q "$dir/d.h5" "$dir/d$np.h5" >/dev/null || echo "  mpirun -np $np: the trace differs from one process's"
  done
fi
if [ "${BENCH_GZ:-0}" = 1 ]; then
  mkdir -p "$dir/gz"
  for f in "$dir"/pfw/*.pfw; do gzip -1 -c "$f" > "$dir/gz/$(basename "$f").gz"; done
  measure "dftracer .pfw.gz" "$pfw_bytes" dftracer "$dir/gz" -o "$dir/dgz.h5"
fi
rm -rf "$dir/pfw" "$dir/gz" "$dir"/d*.h5

$py "$gen" profiler "$dir/p.json" $((220000 * scale / 100)) 40
measure "profiler (1 file)" "$(stat -c %s "$dir/p.json")" profiler "$dir/p.json" -o "$dir/p.h5"
alternative "python json.load" json-load "$dir/p.json"
rm -f "$dir/p.json" "$dir/p.h5"

$py "$gen" table "$dir/t.csv" 8 5 $((350000 * scale / 100))
measure "table (8 ranks)" "$(stat -c %s "$dir/t.csv")" table "$dir/t.csv" -o "$dir/t.h5"
if [ "$have_pandas" = 1 ]; then
  alternative "pandas + groupby" pandas "$dir/t.csv"
else
  echo "  (pandas is not installed: the csv module instead; apt-get install python3-pandas)"
  alternative "python csv + dict" csv "$dir/t.csv"
fi
