#!/bin/bash
# expect.sh RC REGEX [--stdout] -- CMD...: runs CMD, checks its exit status is RC and that
# its stderr (or stdout with --stdout) matches the extended REGEX. Used by the CLI tests.
set -u
want_rc=$1; pattern=$2; shift 2
stream=stderr
if [ "$1" = "--stdout" ]; then stream=stdout; shift; fi
[ "$1" = "--" ] && shift
out=$(mktemp); err=$(mktemp)
"$@" >"$out" 2>"$err"
rc=$?
text=$( [ $stream = stdout ] && cat "$out" || cat "$err")
status=0
if [ "$rc" != "$want_rc" ]; then echo "exit status $rc, expected $want_rc"; status=1; fi
if ! grep -Eq -- "$pattern" <<<"$text"; then echo "$stream does not match /$pattern/"; status=1; fi
if [ $status != 0 ]; then echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; fi
rm -f "$out" "$err"
exit $status
