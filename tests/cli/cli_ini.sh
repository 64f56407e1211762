#!/usr/bin/env bash
# cli_ini.sh - scenario files as people write and pass them: from a pipe (/dev/stdin) and
# a process substitution <(...), with indented sections and keys, '#' and ';' comments
# after values, and a path longer than inih's line buffer; each gives the same
# summary.csv as the plain file. Refusals name a --set that gave the value.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
cd "$work" || exit 1
deep=$work/$(printf 'd%.0s' $(seq 1 230))/$(printf 'e%.0s' $(seq 1 100))
mkdir -p "$deep"
"$stallsim" gen -o "$deep/t.h5" --gpus 2 --iterations 60 --seed 2 >/dev/null || fail "gen"
printf '[trace]\npath = %s/t.h5\n[scenarios]\nfetch_align = none, min\nstart_align = avg\n' "$deep" > plain.ini
"$stallsim" run plain.ini --out r-plain --quiet || fail "plain run"
cat > written.ini <<INI
; a scenario file as people write it
  [trace]
    path = $deep/t.h5   # the trace, in a deep folder
    warmup_iterations = 11 ; the default
  [scenarios]
    fetch_align = none, min    # two
	start_align = avg
INI
"$stallsim" run written.ini --out r-written --quiet && same_file r-plain/summary.csv r-written/summary.csv "indented and commented" || fail "written.ini: run failed"
"$stallsim" run /dev/stdin --out r-stdin --quiet < written.ini && same_file r-plain/summary.csv r-stdin/summary.csv "stdin" || fail "run /dev/stdin failed"
cat written.ini | "$stallsim" run /dev/stdin --out r-pipe --quiet && same_file r-plain/summary.csv r-pipe/summary.csv "pipe" || fail "run from a pipe failed"
"$stallsim" run <(cat written.ini) --out r-subst --quiet && same_file r-plain/summary.csv r-subst/summary.csv "process substitution" || fail "run <(...) failed"
# from a pipe, relative paths are taken from the current folder
cp "$deep/t.h5" here.h5
printf '[trace]\npath = here.h5\n[scenarios]\nfetch_align = none, min\nstart_align = avg\n' | "$stallsim" run /dev/stdin --out r-rel --quiet &&
  same_file r-plain/summary.csv r-rel/summary.csv "relative path from a pipe" || fail "relative path from a pipe"
# ... and with the file redirected (/dev/stdin is then the regular file, in another folder)
printf '[trace]\npath = here.h5\n[scenarios]\nfetch_align = none, min\nstart_align = avg\n' > rel.ini
"$stallsim" run /dev/stdin --out r-rel2 --quiet < rel.ini &&
  same_file r-plain/summary.csv r-rel2/summary.csv "relative path from a redirected file" || fail "relative path, < rel.ini"
# a section header with spaces inside its brackets is that section, as a key's spaces are
printf '[ trace ]\npath = here.h5\n[scenarios ]\nfetch_align = none, min\n\n; a comment\nstart_align = avg\n' > spaced.ini
"$stallsim" run spaced.ini --out r-spaced --quiet && same_file r-plain/summary.csv r-spaced/summary.csv "[ trace ]" || fail "[ trace ] refused"
# a switch in Python's spelling (True) is a switch
"$stallsim" run spaced.ini --set output.per_iteration=True --out r-true --quiet && [ -n "$(ls r-true)" ] && ok || fail "per_iteration = True"
# --set replaces a value the file has wrong (the file's is not checked then); without it, refused
printf '[trace]\npath = here.h5\n[scenarios]\nfetch_align = bogus\nstart_align = avg\n' > badval.ini
"$stallsim" run badval.ini --set scenarios.fetch_align=none,min --out r-fixed --quiet &&
  same_file r-plain/summary.csv r-fixed/summary.csv "--set over a bad value" || fail "--set over a bad value"
"$stallsim" run badval.ini --out r-bad --quiet 2>/dev/null && fail "a bad value without --set was accepted" || ok
# a value a --set gave is named as the --set in a later refusal, not as the file's; a long
# --set value is not echoed whole (its reason stays in the message); lists of up to 64 items
"$stallsim" run rel.ini --set scenarios.fetch_align=min,min --out r-bad --quiet 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "^stallsim: --set scenarios.fetch_align: scenarios.fetch_align lists the same value twice" err && ok ||
  fail "a --set's repeated value: rc=$rc $(cat err)"
printf '[trace]\npath = here.h5\n[scenarios]\nfetch_align = min, min\n' > twice.ini
"$stallsim" run twice.ini --out r-bad --quiet 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "^stallsim: twice.ini:4: scenarios.fetch_align lists the same value twice" err && ok ||
  fail "the file's repeated value: rc=$rc $(cat err)"
"$stallsim" run rel.ini --set "scenarios.model=pipeline" --set "scenarios.workers=$(seq -s, 1 65)" --out r-bad --quiet 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "has more than 64 items$" err && [ "$(wc -c < err)" -lt 700 ] && ok || fail "a long --set list: rc=$rc $(cat err)"
"$stallsim" run rel.ini --set "scenarios.model=pipeline" --set "scenarios.workers=$(seq -s, 1 64)" --set scenarios.prefetch=1 --set scenarios.fetch_align=none --set scenarios.start_align=none \
  --out r-64 --quiet && [ "$(($(wc -l < r-64/summary.csv) - 1))" -eq 65 ] && ok || fail "a list of 64 items"
# an empty pipe is a scenario file without a trace
"$stallsim" run /dev/stdin --out r-empty < /dev/null 2>err && fail "an empty scenario file was accepted" || { grep -q "path is missing" err && ok || fail "empty: $(cat err)"; }
finish
