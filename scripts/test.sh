#!/usr/bin/env bash
# test.sh - sets stallsim up (packages, build with warnings as errors) and runs the whole
# test suite under ctest; then the same suite built with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/), and short runs under valgrind's memcheck.
# usage: scripts/test.sh [--quick]   (--quick: the plain suite only)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
quick=0
[ "${1:-}" = "--quick" ] && quick=1
"$here/scripts/setup.sh" -DSTALLSIM_WERROR=ON
. "$here/scripts/env.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0
skipped=0
# run_ctest DIR [ENV...]: runs the suite in DIR and counts what passed, failed and was
# skipped (ctest counts a skipped test among the passed ones: they are told apart here)
run_ctest() {
  local dir=$1
  shift
  set +e
  (cd "$dir" && env "$@" ctest --output-on-failure -j2) | tee "$log"
  set -e
  local total nfail nskip
  total=$(sed -n 's/.*tests* failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  nfail=$(sed -n 's/.*, \([0-9]*\) tests* failed out of.*/\1/p' "$log" | tail -1)
  nskip=$(grep -c '(Skipped)$' "$log" || true)
  total=${total:-0}
  nfail=${nfail:-0}
  [ "$total" -gt 0 ] || nfail=$((nfail + 1)) # no summary line: ctest itself failed
  passed=$((passed + total - nfail - nskip))
  failed=$((failed + nfail))
  skipped=$((skipped + nskip))
  # each skipped test's name and the reason it gave (its first "skipped: " line)
  local name why
  for name in $(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (Skipped)$/\1/p' "$log"); do
    why=$(awk -v t="$name" '$0 ~ "^[0-9]+/[0-9]+ Testing: " t "$" { on = 1; next }
                            on && /^[0-9]+\/[0-9]+ Testing: / { exit }
                            on && /skipped: / { sub(/.*skipped: /, ""); print; exit }' \
          "$dir/Testing/Temporary/LastTest.log")
    skips="$skips; $name: ${why:-no reason given}"
  done
}
skips=""
summary() {
  echo "stallsim: $passed passed, $failed failed, $skipped skipped${skips:+ (${skips#; })}"
  [ "$failed" -eq 0 ]
}

echo "== test suite"
run_ctest "$here/build"
if [ $quick -eq 1 ]; then summary; exit; fi
if [ "$failed" -ne 0 ]; then summary; exit 1; fi

echo "== test suite under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S "$here" -B "$here/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON \
  -DSTALLSIM_SANITIZE=ON -DSTALLSIM_WERROR=ON >/dev/null
cmake --build "$here/build-asan" -j"$(nproc)" >/dev/null
run_ctest "$here/build-asan" ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1

echo "== valgrind memcheck on short runs"
command -v valgrind >/dev/null || {
  [ "$(id -u)" -eq 0 ] && s="" || s=sudo
  DEBIAN_FRONTEND=noninteractive $s apt-get install -y -qq valgrind >/dev/null
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$log"' EXIT
vg=(valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect)
stallsim=$here/build/stallsim
"${vg[@]}" "$stallsim" gen -o "$tmp/t.h5" --gpus 3 --iterations 300 --epochs 2 --seed 9 >/dev/null
"${vg[@]}" "$stallsim" run "$here/config/examples/whatif-workers.ini" --set trace.path="$tmp/t.h5" \
  --set scenarios.model=independent,pipeline --set output.per_iteration=true --out "$tmp/r" --quiet
"${vg[@]}" "$stallsim" info "$tmp/t.h5" >/dev/null
"${vg[@]}" "$stallsim" compare "$tmp/t.h5" "$tmp/r" >/dev/null
set +e
"${vg[@]}" "$stallsim" run "$here/config/examples/demo.ini" --set trace.path="$tmp/missing.h5" 2>/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || { echo "valgrind: a failing run ended with status $rc (memcheck errors give 3)"; exit 1; }
echo "valgrind: 5 runs, no memcheck errors"
passed=$((passed + 5))
summary
