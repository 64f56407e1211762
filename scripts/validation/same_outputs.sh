#!/usr/bin/env bash
# same_outputs.sh - checks that two stallsim binaries give the same outputs on the demo
# trace, the FusionFlow reference trace, a generated 8-GPU trace and three committed real
# runs (a grid point swept over workers and prefetch, a slow rank healed in turn, storage
# sharing): summary.csv byte for byte, results.h5 by content (h5dump; the file holds object
# timestamps, and its run_id differs between runs), the JSON as data.
# Use it around a change that must not change behaviour:
#   git stash; scripts/setup.sh; cp build/stallsim /tmp/old; git stash pop; scripts/setup.sh
#   scripts/validation/same_outputs.sh /tmp/old build/stallsim
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/validation/same_outputs.sh OLD_STALLSIM NEW_STALLSIM" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/scripts/env.sh"
old=$(realpath "$1"); new=$(realpath "$2")
ref=$here/../shared/reference/fusionflow-4gpu/fsNprepNloadNtrain_openimage_randaugment_resnet50_epoch2_b2048_worker12_thread0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run_all() { # BIN -> outputs in $work/out (the same paths for both binaries)
  local B=$1 O=$work/out
  rm -rf "$O"; mkdir -p "$O"
  "$B" run "$here/config/examples/demo.ini" --out "$O/demo" --set output.per_iteration=true \
    --set scenarios.model=independent,pipeline --quiet
  if [ -e "$ref.csv" ]; then
    "$B" import dsanalyzer "$ref" -o "$O/ff.h5" >/dev/null
    "$B" run "$here/config/examples/reference.ini" --set trace.path="$O/ff.h5" --out "$O/ff" \
      --set output.per_iteration=true --quiet
  fi
  "$B" gen -o "$O/g8.h5" --gpus 8 --iterations 700 --epochs 2 --seed 5 >/dev/null
  "$B" run "$here/config/examples/whatif-workers.ini" --set trace.path="$O/g8.h5" \
    --set scenarios.model=independent,pipeline --set output.per_iteration=true --out "$O/g8" --quiet
  "$B" run "$here/config/examples/whatif-workers.ini" --set trace.path="$O/g8.h5" \
    --set scenarios.model=independent,pipeline --out "$O/g8j" --json --quiet > "$O/g8.json"
  local ex=$here/config/examples/which-fix.ini d=$here/datasets
  "$B" run "$ex" --set trace.path="$d/pytorch-grid-t/w2-x1-p2.h5" --set scenarios.model=independent,pipeline \
    --set scenarios.workers=auto,1,4 --set scenarios.prefetch=auto,2,4 --set scenarios.heal=none \
    --set output.per_iteration=true --out "$O/gridt" --quiet
  "$B" run "$ex" --set trace.path="$d/pytorch-fft/base1.h5" --out "$O/fft" --quiet
  "$B" run "$ex" --set trace.path="$d/pytorch-fft/base1.h5" --out "$O/fftj" --json --quiet > "$O/fft.json"
  "$B" run "$ex" --set trace.path="$d/pytorch-storage/w2-x1.h5" --set pipeline.storage_parallel=2 \
    --set scenarios.workers=auto,1,4 --out "$O/storage" --quiet
  # (the run_id attribute, host-pid-time, differs between any two runs)
  (cd "$O" && for f in $(find . -name results.h5 | sort); do
    h5dump "$f" | tail -n +2 | grep -Ev '^ +\(0\): "[^"]*-[0-9]+-[0-9]+\.[0-9]+"$' > "$f.dump"
  done)
}
run_all "$old"; mv "$work/out" "$work/a"
run_all "$new"; mv "$work/out" "$work/b"
status=0
for f in $(cd "$work/a" && find . -name summary.csv -o -name '*.dump' | sort); do
  if cmp -s "$work/a/$f" "$work/b/$f"; then echo "same: $f"; else echo "DIFFERENT: $f"; status=1; fi
done
/usr/bin/python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))" \
  "$work/a/g8.json" "$work/b/g8.json" && echo "same: g8.json (as data)" || { echo "DIFFERENT: g8.json"; status=1; }
/usr/bin/python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))" \
  "$work/a/fft.json" "$work/b/fft.json" && echo "same: fft.json (as data)" || { echo "DIFFERENT: fft.json"; status=1; }
exit $status
