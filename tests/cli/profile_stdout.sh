#!/bin/bash
# `profile --json -` (and --trace-out -): stdout holds that output alone, the summary and the
# "written to" lines go to stderr (README: '-' is stdout for every output option, the command's own
# messages then on stderr); an unwritable --json is exit 2 before the application runs.
# Usage: profile_stdout.sh GRAPHPROF OUTDIR (no GPU needed: GRAPHPROF_PROFILE_NO_GPU_CHECK=1).
set -u
gp=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
export GRAPHPROF_PROFILE_NO_GPU_CHECK=1
fail=0
for opt in --json --trace-out; do
  "$gp" profile --out "$out/run" $opt - -- true > "$out/stdout.txt" 2> "$out/stderr.txt"
  rc=$?
  if [ $rc != 0 ] || [ "$(head -c 1 "$out/stdout.txt")" != "{" ] || grep -q "written to" "$out/stdout.txt" ||
     grep -q "^profile: " "$out/stdout.txt"; then
    echo "FAIL: profile $opt - -> exit $rc; stdout is not that output alone:"; head -c 300 "$out/stdout.txt"; echo
    tail -3 "$out/stdout.txt"; fail=1
  fi
  grep -q "written to -" "$out/stderr.txt" || { echo "FAIL: profile $opt -: no 'written to -' on stderr"; fail=1; }
done
# A --json that cannot be written: exit 2 naming it, and the application never started.
"$gp" profile --out "$out/run2" --json /nonexistent/x.json -- touch "$out/app_ran" > "$out/bad.txt" 2>&1
rc=$?
[ $rc = 2 ] && grep -q -- "--json /nonexistent/x.json" "$out/bad.txt" ||
  { echo "FAIL: profile --json /nonexistent/x.json -> exit $rc: $(head -3 "$out/bad.txt")"; fail=1; }
[ -e "$out/app_ran" ] && { echo "FAIL: the application ran before the bad --json was refused"; fail=1; }
exit $fail
