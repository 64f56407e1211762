#!/usr/bin/env bash
# cli_layout.sh - the source layout keeps its rules: every #include of a project header
# goes down the layers named in the README (never up or sideways), no model is named
# outside sim/models, functions stay short, and the registries list what they should.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
cd "$src"
# layer -> the layers its files may include (besides its own)
declare -A may=(
  [sim/base]=""
  [config]="sim/base"
  [io/h5]=""
  [io/trace]="sim/base io/h5"
  [io/import]="sim/base io/trace"
  [sim/models]="sim/base config io/trace"
  [sim/engine]="sim/base config io/trace sim/models"
  [sim/gen]="sim/base config io/trace sim/models"
  [io/output]="sim/base config io/h5 io/trace sim/models sim/engine"
  [sim/cli]="sim/base config io/h5 io/trace io/import sim/models sim/engine sim/gen io/output"
)
layer_of() { # the layer folder of a header name, or "" for system headers
  local f
  for l in "${!may[@]}"; do
    f=$(find "$l" -name "$1" -print -quit 2>/dev/null)
    [ -n "$f" ] && { echo "$l"; return; }
  done
}
bad=0
for l in "${!may[@]}"; do
  for f in $(find "$l" -name '*.[ch]'); do
    for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
      hl=$(layer_of "$h")
      [ -z "$hl" ] || [ "$hl" = "$l" ] && continue
      case " ${may[$l]} " in *" $hl "*) ;; *) echo "FAIL: $f includes $h of $hl, which $l may not use" >&2; bad=1;; esac
    done
  done
done
[ $bad -eq 0 ] && ok || fail "layer rule"

# no model is named outside sim/models (its list, sim/base/ss_model_ids.h, aside): its id,
# its name as a string, its module prefix or header, or a model's settings in a scenario;
# the measured run's name is also the trace's fetch_times value, which io/ may write
ids=$(sed -n 's/^ *X(\([A-Z_]*\), "\([a-z_]*\)", ss_model_\([a-z_]*\)).*/\1 \2/p' sim/base/ss_model_ids.h)
[ "$(wc -l <<<"$ids")" -ge 3 ] && ok || fail "the model list in sim/base/ss_model_ids.h was not read"
pat='ssp_|ssi_|[.>]pipe\b|ss_model_(pipeline|independent|measured)\.h'
while read -r id name; do
  pat="$pat|SS_MODEL_$id\b"
  [ "$name" = measured ] || pat="$pat|\"$name\""
done <<<"$ids"
named=$(grep -rnE "$pat" --include='*.c' --include='*.h' sim io config | grep -v '^sim/models/' \
        | grep -v '^sim/base/ss_model_ids.h:' || true)
named="$named
$(grep -rn '"measured"' --include='*.c' --include='*.h' sim config io/output | grep -v '^sim/models/' \
               | grep -v '^sim/base/ss_model_ids.h:' || true)"
named=$(grep -v '^$' <<<"$named" || true)
[ -z "$named" ] && ok || fail "models named outside sim/models:
$named"

# every key of the option table is in config/SCENARIO-KEYS.md: cli_docs_generated.sh checks
# that stallsim doc keys shows each key of run --help, and that the file is its output

# no function of the C sources is over 150 lines: a definition starts at a line that opens
# with a name, ends with "{" (on it or the next line) and ends at the next "}" in column 0
long=$(awk '
  FNR == 1 { start = 0 }
  !start && /^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !/^(typedef|#)/ { cand = FNR; name = $0 }
  !start && cand && /\{[ \t]*$/ && FNR - cand <= 3 { start = cand; cand = 0; next }
  start && /^\}/ { if (FNR - start + 1 > 150) printf "%s:%d: %d lines: %s\n", FILENAME, start, FNR - start + 1, name; start = 0 }
' $(find sim io config -name '*.c'))
[ -z "$long" ] && ok || fail "functions over 150 lines:
$long"
# scripts/ keeps what a user runs at its top: at most 12 entries of code (its *.md
# references aside)
n=$(ls -A scripts | grep -vc '\.md$')
[ "$n" -le 12 ] && ok || fail "scripts/ has $n entries of code at its top (at most 12)"

# the registries
"$stallsim" import --list | grep -q "^dsanalyzer " && ok || fail "import --list"
"$stallsim" import dsanalyzer --help | grep -q "PREFIX" && ok || fail "import dsanalyzer --help"
# cmake --install puts the binary, the scripts and the examples under a prefix
if cmake --install "$(dirname "$stallsim")" --prefix "$work/inst" >/dev/null 2>&1; then
  "$work/inst/bin/stallsim" --version | grep -q "^stallsim " && ok || fail "installed binary does not run"
  [ -e "$work/inst/share/stallsim/scripts/plot_results.py" ] && [ -e "$work/inst/share/stallsim/examples/demo.ini" ] \
    && ok || fail "installed scripts and examples"
else
  fail "cmake --install"
fi
finish
