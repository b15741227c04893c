#!/bin/bash
# profile_record_files.sh GRAPHPROF OUTDIR GOOD_RECORDS: an application leaves one good record file,
# a dangling link, one it cannot read (mode 000), a FIFO with no writer and a device in place of its
# records. graphprof neither blocks nor loses the good process: it writes the report (exit 0) with
# each bad file's process and its error, and says so on stderr.
set -u
gp=$1 out=$2 good=$3
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAIL: $*"; cat "$out/log"; exit 1; }
app="cp '$good' \"\$GRAPHPROF_PROFILE_DIR/proc-101.jsonl\"
ln -s /nonexistent/records \"\$GRAPHPROF_PROFILE_DIR/proc-102.jsonl\"
cp '$good' \"\$GRAPHPROF_PROFILE_DIR/proc-103.jsonl\"; chmod 000 \"\$GRAPHPROF_PROFILE_DIR/proc-103.jsonl\"
mkfifo \"\$GRAPHPROF_PROFILE_DIR/proc-104.jsonl\"
ln -s /dev/zero \"\$GRAPHPROF_PROFILE_DIR/proc-105.jsonl\""
GRAPHPROF_PROFILE_NO_GPU_CHECK=1 timeout 120 "$gp" profile --out "$out/p" -- sh -c "$app" > "$out/log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "exit $rc, expected 0 (report written)"
r="$out/p/report.json"
[ -f "$r" ] || fail "no report"
grep -q '"pid": 2096' "$r" || fail "the good process's records are not in the report"
for pid in 102 104 105; do
  grep -q "proc-$pid.jsonl.*could not be read\|could not be read.*proc-$pid.jsonl" "$r" || fail "process $pid's error is not recorded"
done
grep -q "proc-104.jsonl: the profile records are not a regular file" "$r" || fail "the FIFO is not named as not a regular file"
# As root mode 000 does not stop reading; otherwise the file is an error like the others.
[ "$(id -u)" = 0 ] || grep -q "proc-103.jsonl.*could not be read" "$r" || fail "process 103's error is not recorded"
grep -q "graphprof profile: .*proc-102.jsonl" "$out/log" || fail "stderr does not name the dangling link"
echo "ok"
