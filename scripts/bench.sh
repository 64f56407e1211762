#!/usr/bin/env bash
# bench.sh - the scale benchmark: generates a trace once (kept in bench/), then runs an
# independent 9-scenario sweep and a 16-scenario pipeline sweep at 1 and 2 ranks and prints wall time,
# GPU-iteration-scenario evaluations per second per rank, peak RSS per rank and the
# parallel efficiency from 1 to 2 ranks.
#
# usage: scripts/bench.sh [--gpus G] [--iterations N] [--ranks "1 2"] [--hostfile FILE]
#   defaults: 1024 GPUs x 100000 iterations (a 4 GB trace; needs ~4.5 GB of disk)
#   on a cluster: scripts/bench.sh --ranks "1 2 4 8 16" --hostfile hosts.txt
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/env.sh"
gpus=1024 iters=100000 ranks="1 2" hostfile="" dir="$here/bench"
while [ $# -gt 0 ]; do
  case $1 in
    --gpus) gpus=$2; shift 2 ;;
    --iterations) iters=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --hostfile) hostfile=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
stallsim=$here/build/stallsim
[ -x "$stallsim" ] || "$here/scripts/setup.sh"
mkdir -p "$dir"
trace=$dir/trace-${gpus}x${iters}.h5
if [ ! -e "$trace" ]; then
  echo "bench: generating $trace"
  /usr/bin/time -f "bench: gen took %e s, peak RSS %M KB" "$stallsim" gen -o "$trace" --gpus "$gpus" \
    --iterations "$iters" --workers 4 --fetch-mean 1.0 --compute-mean 0.3 --straggler-prob 0.01 --seed 11
fi
cat /dev/null "$trace" > /dev/null # into the page cache
cat > "$dir/independent.ini" <<INI
[trace]
path = $(basename "$trace")
[scenarios]
model = independent
fetch_align = none, avg, min
start_align = none, avg, min
INI
cat > "$dir/pipeline.ini" <<INI
[trace]
path = $(basename "$trace")
[scenarios]
model = pipeline
workers = auto, auto*2
prefetch = 1, 2
fetch_scale = 1, 0.5
compute_scale = 1, 0.5
INI
mpi_opts=()
[ -n "$hostfile" ] && mpi_opts+=(--hostfile "$hostfile")

for model in independent pipeline; do
  declare -A wall=()
  for np in $ranks; do
    log=$dir/$model-np$np.log
    mpirun "${mpi_opts[@]}" -np "$np" "$stallsim" run "$dir/$model.ini" --out "$dir/out-$model-np$np" --quiet --timing 2> "$log"
    w=$(sed -n 's/^timing: .* wall \([0-9.]*\) s.*/\1/p' "$log")
    wall[$np]=$w
    rate=$(sed -n 's/.* \([0-9.e+]*\) per second per rank overall/\1/p' "$log")
    rss=$(sed -n 's/^timing: rank \([0-9]*\):.*peak RSS \([0-9.]*\) MB/\2/p' "$log" | sort -n | tail -1)
    kern=$(sed -n 's/.*evaluations = \([0-9.e+]*\) per second of replay.*/\1/p' "$log" | head -1)
    printf 'bench: %-11s np=%-3s wall %8.3f s  %10.4g evals/s/rank  kernel %10.4g evals/s (rank 0)  peak RSS %7.1f MB/rank\n' \
      "$model" "$np" "$w" "$rate" "$kern" "$rss"
    cmp -s "$dir/out-$model-np$(echo $ranks | cut -d' ' -f1)/summary.csv" "$dir/out-$model-np$np/summary.csv" ||
      echo "bench: WARNING: summary.csv differs between rank counts" >&2
  done
  first=$(echo $ranks | cut -d' ' -f1)
  for np in $ranks; do
    [ "$np" = "$first" ] && continue
    awk -v a="${wall[$first]}" -v b="${wall[$np]}" -v n="$np" -v f="$first" -v m="$model" \
      'BEGIN { printf "bench: %-11s parallel efficiency %s -> %s ranks: %.1f %%\n", m, f, n, 100 * a * f / (b * n) }'
  done
  unset wall
done
