#!/bin/bash
# --time-limit without a GPU: `profile` stops the application at the limit (SIGTERM; SIGKILL after
# a grace when it ignores SIGTERM), still writes the report of what was recorded and exits 4 with
# the reason; run/sweep refuse the combinations they cannot honour. Usage: time_limit.sh GRAPHPROF OUTDIR
set -u
gp=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAIL: $*"; cat "$out"/*.log 2>/dev/null; exit 1; }

GRAPHPROF_PROFILE_NO_GPU_CHECK=1 "$gp" profile --time-limit 1 --out "$out/term" -- sleep 60 > "$out/term.log" 2>&1
rc=$?
[ "$rc" -eq 4 ] || fail "profile --time-limit: exit $rc, expected 4"
grep -q -- "--time-limit 1 s reached: the application was stopped (SIGTERM); the report holds what it recorded" "$out/term.log" ||
  fail "profile --time-limit: no reason line"
[ -f "$out/term/report.json" ] || fail "profile --time-limit: no report written"
grep -q '"exit_status": 143' "$out/term/report.json" || fail "report.json lacks exit_status 143 (SIGTERM)"
grep -q 'time-limit 1 s reached' "$out/term/report.json" || fail "report.json does not note the limit"

# An application that ignores SIGTERM is killed after the grace.
GRAPHPROF_PROFILE_NO_GPU_CHECK=1 "$gp" profile --time-limit 0.5 --out "$out/kill" -- sh -c 'trap "" TERM; exec sleep 60' \
  > "$out/kill.log" 2>&1
rc=$?
[ "$rc" -eq 4 ] || fail "profile --time-limit (SIGTERM ignored): exit $rc, expected 4"
grep -q "SIGTERM, then SIGKILL after 5 s" "$out/kill.log" || fail "no SIGKILL after the grace"
grep -q '"exit_status": 137' "$out/kill/report.json" || fail "report.json lacks exit_status 137 (SIGKILL)"

# A run within its limit is not marked: exit 0.
GRAPHPROF_PROFILE_NO_GPU_CHECK=1 "$gp" profile --time-limit 60 --out "$out/ok" -- true > "$out/ok.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "profile --time-limit 60 -- true: exit $rc, expected 0"

for combo in "--ranks 2" "--processes 2"; do
  # shellcheck disable=SC2086
  "$gp" run --time-limit 5 $combo -w chain > "$out/combo.log" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "run --time-limit $combo: exit $rc, expected 2"
  grep -q -- "--time-limit and --${combo#--}" "$out/combo.log" 2>/dev/null ||
    grep -q -- "--time-limit and" "$out/combo.log" || fail "run --time-limit $combo: no usage message"
done
"$gp" run --time-limit 0 -w chain > "$out/zero.log" 2>&1
[ $? -eq 2 ] || fail "run --time-limit 0 is not a usage error"
echo "ok"
