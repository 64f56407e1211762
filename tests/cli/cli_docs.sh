#!/usr/bin/env bash
# cli_docs.sh - the documentation keeps its shape: README.md in at most 400 lines, its prose sentences
# short (median at most 22 words, none over 50), every relative link and #anchor resolving, and every
# reference page reachable from README.md by following links.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
cd "$src"
lib=tests/lib

n=$(wc -l <README.md)
[ "$n" -le 400 ] && ok || fail "README.md has $n lines (at most 400)"

if out=$(python3 "$lib/doc_sentences.py" README.md --median 22 --max 50); then ok; else fail "README.md's sentences:
$out"; fi

# the pages whose links are checked: README.md, every page beside the code, datasets/ top-level pages
mapfile -t pages < <(find config io sim scripts tests -name '*.md' | sort)
mapfile -t top < <(find datasets -maxdepth 1 -name '*.md' | sort)
# the reference pages README.md must reach, whether or not they exist yet (a missing one is named)
expected=(config/README.md config/SCENARIO-KEYS.md io/output/README.md io/output/COLUMNS.md
  io/trace/FORMAT.md io/import/IMPORTERS.md sim/models/MODELS-independent.md sim/models/MODELS-pipeline.md
  sim/models/DECISIONS.md sim/cli/ANSWER.md sim/cli/COMMANDS.md scripts/RECORDER.md scripts/BENCHMARKS.md
  tests/README.md datasets/VALIDATION.md datasets/VALIDATION-tables.md datasets/figures/validation.png
  datasets/figures/which-fix.png)
reach=$(printf '%s\n' "${pages[@]}" "${expected[@]}" | sort -u)
# shellcheck disable=SC2086
if out=$(python3 "$lib/doc_links.py" . --check README.md "${pages[@]}" "${top[@]}" --reach $reach); then
  ok
else
  fail "links:
$out"
fi
finish
