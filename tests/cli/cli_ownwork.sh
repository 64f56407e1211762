#!/usr/bin/env bash
# cli_ownwork.sh - one GPU's loop pausing between its steps (rank 0 saving a checkpoint
# every 25 steps): its row k long, the other GPUs' row k + 1 long (they wait for it at the
# next all-reduce). info and run name the GPU, its pauses, how often and how long (0.5 s
# added by hand to a generated trace), in the text and the JSON; a trace without the pauses,
# and one whose long rows are long on every GPU at once (a slow step of all), get none.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
cd "$work" || exit 1
"$stallsim" gen -o plain.h5 --gpus 3 --iterations 100 --epochs 2 --seed 5 >/dev/null || fail "gen"
cp plain.h5 pause.h5 && cp plain.h5 allslow.h5
$py - <<'PY' || fail "python edits"
import h5py, numpy as np
def edit(name, own):
    with h5py.File(name, "r+") as f:
        it = f["timeline/iteration_time"][()]
        ep = f["timeline/epoch"][()]
        for e in np.unique(ep):
            rows = np.flatnonzero(ep == e)
            for k in (24, 49, 74):
                r = rows[k]
                if own:   # GPU 0 late after its step; the others wait in the next all-reduce
                    it[r, 0] += 0.5
                    it[r + 1, 1:] += 0.5
                else:     # every GPU slow in the same step
                    it[r, :] += 0.5
        f["timeline/iteration_time"][...] = it
edit("pause.h5", True)
edit("allslow.h5", False)
PY
"$stallsim" info pause.h5 > i.txt 2>&1 &&
  grep -Eq "^own work \(measured\): GPU 0's loop paused between steps 6 times \(about every 25 steps, 0\.[45][0-9] s each, [0-9]+% of its time\), and the others waited for it at the next all-reduce" i.txt &&
  ok || fail "info on a trace with pauses: $(cat i.txt)"
for t in plain allslow; do
  "$stallsim" info $t.h5 > i.txt 2>&1 && ! grep -q "^own work" i.txt && ok || fail "info on $t.h5: $(grep "^own work" i.txt)"
done
printf '[trace]\npath = pause.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2\n' > p.ini
"$stallsim" run p.ini --out r > r.txt 2>&1 &&
  grep -Eq "^own work: GPU 0's loop paused 6 times, every ~25 steps, 0\.[45][0-9] s each: no loader change helps$" r.txt &&
  "$stallsim" run p.ini --out r --json 2>/dev/null | $py -c "
import json, sys
w = json.load(sys.stdin)['findings']['own_work']
assert w['gpu'] == 0 and w['pauses'] == 6 and w['every_steps'] == 25 and 0.4 < w['mean_s'] < 0.6 and 0 < w['share'] < 1, w" &&
  "$stallsim" run --explain p.ini --out r > e.txt 2>&1 && grep -q "^own work (measured): GPU 0's loop paused between steps 6 times" e.txt &&
  ok || fail "run on a trace with pauses: $(cat r.txt)"
"$stallsim" run p.ini --set trace.path=plain.h5 --out r --json 2>/dev/null | $py -c "
import json, sys; assert 'own_work' not in json.load(sys.stdin)['findings']" && ok || fail "run --json without pauses"
finish
