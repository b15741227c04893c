#!/bin/bash
# hostile_files.sh GRAPHPROF GOOD_REPORT DOT: inputs that are not regular files (/dev/zero, a FIFO
# with no writer) are refused at once by every command that reads a DOT dump or a report (exit 3
# naming the file; they ran out of memory or blocked forever), '-' reads standard input, and a
# failed write to stdout (/dev/full) is exit 4, not a success with nothing written.
set -u
gp=$1; good=$2; dot=$3
good2=$(dirname "$good")/r1_same.json  # compare needs two different reports of one kind
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
status=0
mkfifo "$dir/fifo.json"
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; status=1; }
for f in /dev/zero "$dir/fifo.json"; do
  for cmd in analyze render compare merge report report_compare analyze_report; do
    case $cmd in
      analyze) args=(analyze "$f") ;;
      render) args=(render "$f" -o "$dir/out.svg") ;;
      compare) args=(compare "$good" "$f") ;;
      merge) args=(merge "$f" "$good" -o "$dir/merged.json") ;;
      report) args=(report "$f" -o "$dir/out.html") ;;
      report_compare) args=(report "$good" --compare "$f" -o "$dir/out.html") ;;
      analyze_report) args=(analyze "$dot" --report "$f") ;;
    esac
    err=$(timeout 60 "$gp" "${args[@]}" 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 3 ] && grep -q -- "$f: is a .*not a regular file" <<<"$err"; then ok "$f $cmd: ${err:0:140}"
    else bad "$f $cmd: exit $rc, expected 3 naming the file; stderr: ${err:0:300}"; fi
  done
done
# '-' is standard input, read as a file.
out=$("$gp" analyze - < "$dot" 2>&1); rc=$?
if [ $rc = 0 ] && grep -q "nodes" <<<"$out"; then ok "analyze - < dump"; else bad "analyze -: exit $rc: ${out:0:300}"; fi
# stdout on a full device: exit 4 naming standard output.
for args in "analyze $dot" "analyze $dot --json -" "compare $good $good2" "compare $good $good2 --json -"; do
  # shellcheck disable=SC2086
  err=$("$gp" $args 2>&1 >/dev/full); rc=$?
  if [ $rc = 4 ] && grep -Eq "standard output: write failed|^graphprof: -: write failed" <<<"$err"; then ok "$args > /dev/full: ${err:0:120}"
  else bad "$args > /dev/full: exit $rc, expected 4; stderr: ${err:0:300}"; fi
done
# A copy of a report under another name is the same run: refused by content (it was pooled twice).
mkdir -p "$dir/side"; cp "$good" "$dir/side/a.json"; cp "$good" "$dir/side/b.json"
for args in "compare $good $dir/side" "merge $good $dir/side/b.json -o $dir/m.json"; do
  # shellcheck disable=SC2086
  err=$("$gp" $args 2>&1 >/dev/null); rc=$?
  if [ $rc = 3 ] && grep -Eq "the same (report|bytes) as " <<<"$err"; then ok "$args: ${err:0:160}"
  else bad "$args: exit $rc, expected 3 (a copy); stderr: ${err:0:300}"; fi
done
exit $status
