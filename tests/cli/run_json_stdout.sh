#!/bin/bash
# `run --json -` and `sweep --json -`: stdout holds the JSON report alone (the tables and the
# "report written to -" line go to stderr), so `graphprof run --json - | jq` works; the same for
# `run --trace-out -` (the Chrome trace alone on stdout).
# Usage: run_json_stdout.sh GRAPHPROF DIR. Skips (77) without a GPU.
set -u
bin=$1 dir=$2
mkdir -p "$dir"
"$bin" info >/dev/null 2>&1 || { echo "no GPU here"; exit 77; }
fail=0
quick=(-w chain --mode graph -p kernels=10 -r 1 --budget 0.05 --min-time 0.01)
for cmd in run sweep; do
  trace=(); [ $cmd = run ] && trace=(--trace none)
  "$bin" $cmd "${quick[@]}" "${trace[@]}" --json - >"$dir/$cmd.json" 2>"$dir/$cmd.err"
  rc=$?
  first=$(head -c 1 "$dir/$cmd.json") last=$(tail -n 1 "$dir/$cmd.json")
  if [ $rc != 0 ] || [ "$first" != "{" ] || [ "$last" != "}" ] || ! grep -q '"schema_version"' "$dir/$cmd.json"; then
    echo "FAIL: $cmd --json - -> exit $rc, stdout starts '$first', ends '$last' (want the JSON alone)"
    head -5 "$dir/$cmd.json"; tail -3 "$dir/$cmd.err"; fail=1
  fi
  grep -q "report written to -" "$dir/$cmd.err" || { echo "FAIL: $cmd: 'report written to -' is not on stderr"; fail=1; }
done
# --trace-out -: the trace is the only thing on stdout (the tables went there too before).
"$bin" run "${quick[@]}" --trace node --trace-out - >"$dir/trace.json" 2>"$dir/trace.err"
rc=$?
first=$(head -c 1 "$dir/trace.json")
if [ $rc != 0 ] || [ "$first" != "{" ] || ! grep -q '"traceEvents"' "$dir/trace.json" ||
   grep -q "trace written to" "$dir/trace.json"; then
  echo "FAIL: run --trace-out - -> exit $rc, stdout starts '$first' (want the trace alone)"
  head -c 300 "$dir/trace.json"; echo; tail -3 "$dir/trace.err"; fail=1
fi
grep -q "trace written to -" "$dir/trace.err" || { echo "FAIL: run --trace-out -: 'trace written to -' is not on stderr"; fail=1; }
exit $fail
