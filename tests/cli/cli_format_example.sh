#!/usr/bin/env bash
# cli_format_example.sh - the h5py example of io/trace/FORMAT.md, run as written: it makes a valid trace that info reads with the numbers the page states; the same trace without its schema attribute is refused.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
cd "$work" || exit 1
# the page's one python block, between its fence lines
awk '/^```python$/ {on = 1; n++; next} /^```$/ {on = 0} on && n == 1' "$src/io/trace/FORMAT.md" > example.py
[ -s example.py ] && ok || fail "no python block in io/trace/FORMAT.md"
[ "$(grep -c '^```python$' "$src/io/trace/FORMAT.md")" = 1 ] && ok || fail "FORMAT.md should hold one python block"
$py example.py || fail "the example does not run"
[ -f tiny.h5 ] && ok || fail "the example wrote no tiny.h5"
"$stallsim" info tiny.h5 --warmup 0 > info.txt 2> info.err || fail "info refuses the example's trace: $(cat info.err)"
[ -s info.err ] && fail "info warns about the example's trace: $(cat info.err)" || ok
grep -Eq '^gpus: +2$' info.txt && ok || fail "info: not 2 GPUs"
grep -Eq '^iterations: +4 rows$' info.txt && ok || fail "info: not 4 rows"
# the largest over GPUs per iteration: 0.1 s iterations, 0.02 s stalls, as the page says
grep -Eq '^ +max +0\.100000 +0\.020000' info.txt && ok || fail "info: mean iteration 0.1 s and stall 0.02 s expected"
# the check can fail: the same file without its schema attribute is refused, naming it
$py -c 'import h5py; f = h5py.File("tiny.h5", "r+"); del f.attrs["schema"]; f.close()' || fail "python edit"
"$stallsim" info tiny.h5 --warmup 0 >/dev/null 2> bad.err && fail "a trace without schema was read" || ok
grep -q "schema" bad.err && ok || fail "the refusal does not name the schema attribute: $(cat bad.err)"
finish
