#!/bin/bash
# Option values a user can get wrong without noticing (a fresh-eyes review, 2026-11-30): an
# explicitly empty value (`--json ''`, `--json=`, `compare '' B`) was read as "not given" and
# silently ignored; nan passed every range check (`--threshold nan` blamed --noise-floor); a
# --dot-dir that is not there went unnoticed. Usage: empty_and_nonfinite_options.sh GRAPHPROF DATA DIR
set -u
bin=$1 data=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
expect() {  # expect RC REGEX -- ARGS...: exit status RC and REGEX in stdout+stderr
  local want=$1 re=$2; shift 3
  # Every message starts with graphprof's prefix ("graphprof: ", "graphprof SUBCOMMAND: ").
  if [ "${re:0:1}" = "^" ] && [ "${re:0:10}" != "^graphprof" ]; then
    local body=${re#^}
    re="^graphprof( [a-z]+)?: (${body//|^/|})"
  fi
  local out rc
  out=$("$bin" "$@" 2>&1); rc=$?
  [ "$rc" = "$want" ] && grep -Eq -- "$re" <<<"$out" || bad "graphprof $* -> exit $rc, '$out' (want $want and /$re/)"
}
base=$data/reports/base.json run1=$data/gate/A/run1.json run2=$data/gate/A/run2.json
dot=$dir/one.dot
{ echo 'digraph dot {'; echo '"graph_1_node_0"[shape="octagon" label="0\n_Z1kv\n"];'; echo '}'; } > "$dot"

# An empty value: exit 2 naming the option (every value-taking option of every subcommand).
expect 2 "^--json: empty value" -- analyze "$dot" --json ''
expect 2 "^--json: (empty value|1 required)" -- analyze "$dot" --json=
expect 2 "^--report: empty value" -- analyze "$dot" --report ''
expect 2 "^--mode: empty value" -- analyze "$dot" --report "$base" --mode ''
expect 2 "^-o,--output: empty value|^--output: empty value" -- render "$dot" -o ''
expect 2 "^--format: empty value" -- render "$dot" -o "$dir/x.svg" --format ''
expect 2 "^baseline: empty value" -- compare '' "$base"
expect 2 "^candidate: empty value" -- compare "$base" ''
for opt in --gate --json --markdown --junit --ignore-param --metric-threshold --abs-floor --threshold --noise-floor; do
  expect 2 "^$opt: empty value" -- compare "$base" "$base" "$opt" ''
done
expect 2 "^reports: empty value" -- merge '' "$run2" -o "$dir/m.json"
expect 2 "^(--output|-o),?.*: empty value" -- merge "$run1" "$run2" -o ''
for opt in --output --csv --compare --dot-dir --title; do
  expect 2 "^$opt.*: empty value" -- report "$base" -o "$dir/r.html" "$opt" ''
done
[ -e "$dir/r.html" ] && bad "report wrote r.html although an option was empty"

# Non-finite numbers: exit 2 naming the option itself (nan passed CLI::Range).
expect 2 "^--threshold: nan is not a finite number" -- compare "$base" "$base" --threshold nan
expect 2 "^--threshold: inf is not a finite number" -- compare "$base" "$base" --threshold inf
expect 2 "^--noise-floor: nan is not a finite number" -- compare "$base" "$base" --noise-floor nan
expect 2 "^--noise-floor: -inf is not a finite number" -- compare "$base" "$base" --noise-floor -inf
expect 2 "^graphprof: --metric-threshold .*'nan' is not a number" -- compare "$base" "$base" --metric-threshold gpu*=nan
expect 2 "^graphprof: --abs-floor .*'inf' is not a number" -- compare "$base" "$base" --abs-floor gpu*=inf

# --dot-dir that is not a folder: exit 3 naming it, before anything is written.
expect 3 "^graphprof: --dot-dir /nonexistent/dots: no such folder" -- report "$base" -o "$dir/r.html" --dot-dir /nonexistent/dots
expect 3 "^graphprof: --dot-dir $base: not a folder" -- report "$base" -o "$dir/r.html" --dot-dir "$base"
[ -e "$dir/r.html" ] && bad "report wrote r.html although --dot-dir is not a folder"
expect 0 "HTML report written" -- report "$base" -o "$dir/r.html" --dot-dir "$dir"

# The measuring subcommands exist in a CUDA build only; their options are checked while the
# command line is read, before any GPU is looked for, so this needs none.
if "$bin" run --help 2>/dev/null | grep -q -- --trace-out; then
  for opt in --json --markdown --html --csv --out --trace-out --trace-records --workload --param --load --mode \
             --ranks --trace-events --budget; do
    expect 2 "^$opt.*: empty value" -- run "$opt" ''
  done
  expect 2 "^--json: empty value" -- sweep --workload chain --param kernels=1,2 --json ''
  for opt in --budget --min-time --target-ci; do
    expect 2 "^$opt: nan is not a finite number" -- run "$opt" nan
    expect 2 "^$opt: inf is not a finite number" -- sweep "$opt" inf
  done
  for opt in --out --json --trace-out --step-range; do
    expect 2 "^$opt: empty value" -- profile "$opt" '' -- true
  done
  # The application's own arguments may be empty strings.
  out=$("$bin" profile --out "$dir/p" -- true '' 2>&1)
  grep -q "empty value" <<<"$out" && bad "profile -- true '' rejected the application's empty argument: '$out'"
fi
exit $fail
