#!/usr/bin/env bash
# cli_import_mpi.sh - `mpirun -np N stallsim import dftracer` (the files split over the ranks)
# writes the same trace, prints the same messages and exits the same as one process, at 1,
# 2 and 3 ranks: a plain job, more ranks than files, .pfw.gz files, --iter, warnings of a
# file's end (broken lines, a cut last line, evaluation passes, a job cut off) and errors
# on a rank other than 0 (a broken loop event, ranks with different steps), none of which
# leaves a rank waiting.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
need_mpirun
py=/usr/bin/python3
gen=$src/scripts/validation/gen_import_inputs.py

# same_import NAME ARGS...: the import by one process, then under mpirun at 1, 2 and 3 ranks:
# the same exit status, output, messages and trace
same_import() {
  local name=$1 rc np nrc
  shift
  "$stallsim" import dftracer "$@" -o "$work/$name.h5" > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  for np in 1 2 3; do
    rm -f "$work/$name-$np.h5"
    mpirun_t $np "$stallsim" import dftracer "$@" -o "$work/$name-$np.h5" > "$work/$name-$np.out" 2> "$work/$name-$np.err"
    nrc=$?
    # the trace's name, and the launcher's own note about a rank's exit status, set aside
    sed -i "s#$name-$np\.h5#$name.h5#g" "$work/$name-$np.out" "$work/$name-$np.err"
    sed -i '/^-----*$/,/^-----*$/d' "$work/$name-$np.err"
    [ $nrc -ge 124 ] && [ $nrc -le 137 ] && { fail "$name np=$np: timed out or killed (exit $nrc)"; continue; }
    if [ $rc -eq 0 ]; then [ $nrc -eq 0 ]; else [ $nrc -ne 0 ]; fi && ok ||
      fail "$name np=$np: exit $nrc, one process $rc: $(head -c 600 "$work/$name-$np.err")"
    same_file "$work/$name.out" "$work/$name-$np.out" "$name np=$np: output"
    same_file "$work/$name.err" "$work/$name-$np.err" "$name np=$np: messages"
    if [ $rc -eq 0 ]; then
      if command -v h5diff > /dev/null; then
        h5diff -q "$work/$name.h5" "$work/$name-$np.h5" && ok || fail "$name np=$np: the trace differs"
      fi
      "$stallsim" info "$work/$name.h5" | tail -n +2 | sed "s/(took [0-9.]* s)//" > "$work/$name.info"
      "$stallsim" info "$work/$name-$np.h5" | tail -n +2 | sed "s/(took [0-9.]* s)//; s#$name-$np\.h5#$name.h5#g" \
        > "$work/$name-$np.info"
      same_file "$work/$name.info" "$work/$name-$np.info" "$name np=$np: info"
    else
      [ ! -e "$work/$name-$np.h5" ] && ok || fail "$name np=$np: a trace was written after an error"
    fi
  done
}

# a job of 5 ranks whose files differ in size (uneven shares: rank 3's holds more noise)
$py "$gen" dftracer "$work/a" 5 3 40 2
sed -i '/"pread"/{p;p;p}' "$work/a/trace-3-of-5.pfw"
same_import plain "$work/a"

mkdir -p "$work/gz"
for f in "$work"/a/*.pfw; do gzip -c "$f" > "$work/gz/$(basename "$f").gz"; done
cp "$work/a/trace-4-of-5.pfw" "$work/gz/" && rm "$work/gz/trace-4-of-5.pfw.gz" # one plain among them
same_import gz "$work/gz"

# more ranks than files
$py "$gen" dftracer "$work/two" 2 2 30 1
same_import two "$work/two"

# a named loop (--iter): the generator's loop renamed
mkdir -p "$work/named"
for f in "$work"/a/*.pfw; do sed 's/"loop\.iter"/"real_IO.iter"/; s/"loop\.yield"/"real_IO.yield"/' "$f" > "$work/named/$(basename "$f")"; done
same_import named "$work/named" --iter real_IO

# warnings at a file's end on ranks other than 0: broken lines (not loop events), a cut last
# line, an evaluation pass (steps starting again inside an epoch)
mkdir -p "$work/w"
cp "$work"/a/*.pfw "$work/w/"
f=$work/w/trace-4-of-5.pfw
sed -i '5s/^{/{"broken/; 9s/^{/{"broken/' "$f"
sed -i '$d' "$f" # the closing ]
tail -n 1 "$f" | head -c 40 > "$work/cutline" && sed -i '$d' "$f" && cat "$work/cutline" >> "$f"
f=$work/w/trace-3-of-5.pfw
sed -i '7s/^{/{"broken/' "$f"
same_import warn "$work/w"
grep -q "not valid JSON" "$work/warn.err" && ok || fail "the broken lines are not warned about: $(cat "$work/warn.err")"

# a job cut off: rank 4's file ends a few steps before the others'
mkdir -p "$work/cut"
cp "$work"/a/*.pfw "$work/cut/"
f=$work/cut/trace-4-of-5.pfw
n=$(grep -n '"loop.iter"' "$f" | tail -n 3 | head -n 1 | cut -d: -f1)
head -n $((n - 1)) "$f" > "$f.tmp" && mv "$f.tmp" "$f"
same_import cut "$work/cut"
grep -q "cut off" "$work/cut.err" && ok || fail "a job cut off is not warned about: $(cat "$work/cut.err")"

# errors on other ranks: a broken loop event in the middle of rank 4's file; rank 3 with
# one step fewer in the middle (the ranks ran different steps)
mkdir -p "$work/e1" "$work/e2"
cp "$work"/a/*.pfw "$work/e1/"
cp "$work"/a/*.pfw "$work/e2/"
f=$work/e1/trace-4-of-5.pfw
n=$(grep -n '"loop.iter"' "$f" | sed -n 20p | cut -d: -f1)
sed -i "${n}s/^{/{,/" "$f"
same_import brokenloop "$work/e1"
grep -q "holds a loop.iter event" "$work/brokenloop.err" && ok || fail "broken loop event: $(cat "$work/brokenloop.err")"
f=$work/e2/trace-3-of-5.pfw
n=$(grep -n '"loop.iter"' "$f" | sed -n 30p | cut -d: -f1)
sed -i "${n}d" "$f"
same_import steps "$work/e2"
grep -q "different steps" "$work/steps.err" && ok || fail "different steps: $(cat "$work/steps.err")"

# the output is one of the inputs: refused before any rank reads (and none waits)
mpirun_t 2 "$stallsim" import dftracer "$work/two" -o "$work/two/trace-0-of-2.pfw" > /dev/null 2> "$work/self.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q "trace-0-of-2.pfw" "$work/self.err" && ok ||
  fail "output = input under mpirun: exit $rc: $(cat "$work/self.err")"

finish
