#!/usr/bin/env bash
# real_runs_quiet_host.sh - [pipeline] quiet_host against real runs: bases recorded beside
# other processes (datasets/pytorch-quiet-host, -b) predict quiet runs of other worker counts;
# with quiet_host the mean |error| is less than without, in both measures, and at least as
# many quiet runs fall inside the intervals (scripts/validation/quiet_host_check.py).
. "$(dirname "$0")/../lib/lib_real_runs.sh" "$@"
for set in pytorch-quiet-host pytorch-quiet-host-b; do
  [ -d "$ds/$set" ] || { echo "skipped: $set is missing"; continue; }
  /usr/bin/python3 "$src/scripts/validation/quiet_host_check.py" --stallsim "$stallsim" --data "$ds/$set" \
    > "$work/$set.txt" 2>&1 || { fail "$set: quiet_host_check.py: $(tail -3 "$work/$set.txt")"; continue; }
  /usr/bin/python3 - "$work/$set.txt" <<'PY' && ok || fail "$set: quiet_host does not beat the recorded load: $(tail -2 "$work/$set.txt")"
import re, sys
got = {}
for line in open(sys.argv[1]):
    m = re.match(r"quiet_host = (\w+): mean \|error\| steady ([\d.]+) %, whole run ([\d.]+) % over (\d+) predictions; "
                 r"quiet runs inside: (\d+) and (\d+) of (\d+)", line)
    if m:
        got[m.group(1)] = [float(x) for x in m.groups()[1:]]
keep, alone = got["false"], got["true"]
assert alone[2] == keep[2] > 0, (keep, alone)
assert alone[0] < keep[0] and alone[1] < keep[1], (keep, alone)
assert alone[3] + alone[4] >= keep[3] + keep[4], (keep, alone)
PY
done
finish
