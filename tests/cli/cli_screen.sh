#!/usr/bin/env bash
# cli_screen.sh - on a terminal, lines of prose wrap at its width (sim/cli/ss_screen.c); a
# file or a pipe gets every line whole. The terminal is a pseudo-terminal from script(1),
# its width $COLUMNS. The same words come out either way; on the terminal no line is wider
# than it but a table's row (two runs of three spaces or more), a ranked line ("  2. ...")
# or a single word.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1 ||
  { echo "skipped: script(1) cannot make a terminal here"; exit 77; }
"$stallsim" gen -o "$work/g.h5" --gpus 2 --iterations 120 --workers 1 --seed 3 >/dev/null || fail "gen"
printf '[trace]\npath = g.h5\n[scenarios]\nmodel = pipeline\nworkers = 1, 2, 4\nfetch_scale = 1, 0.5\n' > "$work/g.ini"
for form in "" "--explain"; do
  "$stallsim" run "$work/g.ini" --out "$work/p" $form > "$work/pipe.txt" || fail "run $form into a pipe"
  COLUMNS=70 script -qec "'$stallsim' run '$work/g.ini' --out '$work/t' $form" /dev/null > "$work/tty.txt" ||
    fail "run $form on a terminal"
  $py - "$work/pipe.txt" "$work/tty.txt" "$work" <<'PY' && ok || fail "run $form: wrapped at 70 columns: $(cat "$work/tty.txt")"
import re, sys
pipe = open(sys.argv[1], encoding="utf-8").read().replace(sys.argv[3] + "/p", "OUT")
tty = open(sys.argv[2], encoding="utf-8").read().replace("\r\n", "\n").replace(sys.argv[3] + "/t", "OUT")
table = lambda l: len(re.findall(r"\S   +", l)) >= 2 or re.match(r"^ *[0-9]+\. ", l)
assert any(len(l) > 70 and not table(l) for l in pipe.splitlines()), "no long line of prose to wrap"
assert pipe.split() == tty.split(), "the words differ"
for l in tty.splitlines():
    assert len(l) <= 70 or table(l) or len(l.split()) == 1, l
# the lines a line was wrapped into: each after the first indented two more
assert any(re.match(r"^  \S", l) for l in tty.splitlines()), tty
PY
done
# the machine's own reader of the output gets it whole: --json on a terminal parses
COLUMNS=40 script -qec "'$stallsim' run '$work/g.ini' --out '$work/t' --json" /dev/null > "$work/tty.json" ||
  fail "run --json on a terminal"
$py -c "import json, sys; json.loads(open(sys.argv[1]).read())" "$work/tty.json" && ok ||
  fail "--json on a narrow terminal does not parse"
finish
