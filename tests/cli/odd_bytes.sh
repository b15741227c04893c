#!/bin/bash
# odd_bytes.sh GRAPHPROF REPORT DOT [profile]: bytes that are not UTF-8 in paths and arguments
# (a Latin-1 folder, an argument with byte 0xff) never end in exit 6: every command gives its usual
# answer, and every JSON it writes is valid UTF-8 (the odd bytes replaced). With "profile" (a CUDA
# build; no GPU needed), also `profile --out` in such a folder with such an argument of the program.
set -u
gp=$1; report=$2; dot=$3; with_profile=${4:-}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
latin="$dir/r"$'\xe9'"sultats"  # "résultats" in Latin-1
mkdir "$latin"
cp "$report" "$latin/base.json"; cp "$(dirname "$report")/r1_slow.json" "$latin/slow.json"
sed 's/"created_utc": "[^"]*"/"created_utc": "2026-01-02T03:04:05Z"/' "$report" > "$latin/again.json"  # another run of that build
cp "$dot" "$latin/g.dot"
status=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; status=1; }
utf8() { iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1; }
# expect RC FILE ARGS...: exit RC, FILE (when not "-") written and valid UTF-8.
expect() {
  local want=$1 file=$2; shift 2
  local err rc
  err=$(timeout 120 "$gp" "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc != "$want" ]; then bad "$1: exit $rc, expected $want: ${err:0:300}"; return; fi
  if [ "$file" != - ] && ! { [ -s "$file" ] && utf8 "$file"; }; then bad "$1: $file missing or not UTF-8"; return; fi
  ok "$1: exit $rc"
}
expect 1 "$latin/c.json" compare "$latin/base.json" "$latin/slow.json" --json "$latin/c.json" --markdown "$latin/c.md" --junit "$latin/c.xml"
utf8 "$latin/c.md" && utf8 "$latin/c.xml" || bad "compare: the Markdown or JUnit output is not UTF-8"
grep -q '"verdict"\|"outcome"' "$latin/c.json" || bad "compare --json: no verdict in $(head -c 200 "$latin/c.json")"
expect 0 "$latin/a.json" analyze "$latin/g.dot" --json "$latin/a.json"
expect 0 "$latin/m.json" merge "$latin/base.json" "$latin/again.json" -o "$latin/m.json"
expect 0 "$latin/p.html" report "$latin/base.json" -o "$latin/p.html" --csv "$latin/p.csv"
utf8 "$latin/p.csv" || bad "report: the CSV is not UTF-8"
expect 0 "$latin/g.svg" render "$latin/g.dot" -o "$latin/g.svg"
if [ "$with_profile" = profile ]; then
  export GRAPHPROF_PROFILE_NO_GPU_CHECK=1
  expect 0 "$latin/prof/report.json" profile --out "$latin/prof" -- sh -c 'exit 0' x$'\xff'y
  grep -q 'x\\ufffdy\|x'$'\xef\xbf\xbd''y' "$latin/prof/report.json" || bad "profile: the argument is not in the report with its odd byte replaced"
  expect 0 "$latin/prof2.json" profile --out "$latin/prof2" --json "$latin/prof2.json" --html "$latin/prof2.html" -- true
fi
exit $status
