#!/bin/sh
# run.sh - builds the libFuzzer harnesses in build-fuzz and runs them one after another.
#
# Usage (from anywhere):  tests/fuzz/run.sh [SECONDS] [TARGET...]
#   SECONDS  libFuzzer -max_total_time per target (default 60)
#   TARGET   fuzz_ini, fuzz_csv, fuzz_trace, fuzz_dftracer, fuzz_jsonev, fuzz_profiler, fuzz_table and/or
#            fuzz_pytorch (default: all, one at a time)
# Environment: CC (default clang), FUZZ_BUILD (default <project>/build-fuzz),
#   FUZZ_ARGS (extra libFuzzer options, e.g. "-max_len=65536").
# The seeds of tests/fuzz/corpus/<kind> are copied into FUZZ_BUILD/corpus/<target> (the
# working corpus, which grows; the seeds stay as they are). Logs go to
# FUZZ_BUILD/logs/<target>.log, crash/leak/timeout/oom inputs to FUZZ_BUILD/artifacts/<target>/.
# Reproduce one:  FUZZ_BUILD/tests/fuzz/<target> FUZZ_BUILD/artifacts/<target>/crash-...
# Minimise one:   FUZZ_BUILD/tests/fuzz/<target> -minimize_crash=1 -runs=20000 FILE
# Exit status: 0 when no target found anything, 1 when one did, 2 on a build failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-fuzz_ini fuzz_csv fuzz_trace fuzz_dftracer fuzz_jsonev fuzz_profiler fuzz_table fuzz_pytorch}
bld=${FUZZ_BUILD:-$root/build-fuzz}

CC=${CC:-clang} cmake -S "$root" -B "$bld" -DSTALLSIM_FUZZ=ON -DBUILD_TESTING=OFF >"$bld.configure.log" 2>&1 ||
  { cat "$bld.configure.log"; exit 2; }
# shellcheck disable=SC2086
cmake --build "$bld" -j2 --target $targets >/dev/null || { echo "build failed"; exit 2; }

found=0
mkdir -p "$bld/logs"
for t in $targets; do
  kind=${t#fuzz_}
  corpus=$bld/corpus/$t
  art=$bld/artifacts/$t
  mkdir -p "$corpus" "$art"
  cp "$here/corpus/$kind/"* "$corpus/" 2>/dev/null
  dict=
  [ -f "$here/$kind.dict" ] && dict=-dict=$here/$kind.dict
  stamp=$bld/logs/$t.start
  : > "$stamp"
  echo "== $t: ${secs}s, corpus $corpus"
  # A damaged size field can make libhdf5 ask for terabytes; the production allocator
  # returns NULL and HDF5 fails cleanly ("cannot open as HDF5"), so let ASan's do the same
  # (-malloc_limit_mb still reports real runaway allocations).
  # shellcheck disable=SC2086
  ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
  "$bld/tests/fuzz/$t" "$corpus" $dict -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art/" ${FUZZ_ARGS:-} >"$bld/logs/$t.log" 2>&1
  rc=$?
  grep -E '^#[0-9]+' "$bld/logs/$t.log" | tail -n 1
  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$bld/logs/$t.log"
  echo "   corpus: $(ls "$corpus" | wc -l) inputs"
  new=$(find "$art" -type f -newer "$stamp")
  if [ $rc -ne 0 ] || [ -n "$new" ]; then
    found=1
    echo "   libFuzzer exit $rc; findings:"
    grep -E '^==[0-9]+==ERROR|runtime error|SUMMARY|^(Test unit|artifact_prefix)' "$bld/logs/$t.log" | head -n 8 | sed 's/^/     /'
    for f in $new; do echo "     $f ($(wc -c < "$f") bytes)"; done
  fi
done
exit $found
