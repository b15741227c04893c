#!/bin/bash
# SIGTERM sent to `graphprof profile` reaches the application; graphprof still writes the report
# (exit 0) and records how the application ended. Usage: profile_signal.sh GRAPHPROF OUTDIR
set -u
gp=$1 out=$2
rm -rf "$out"
GRAPHPROF_PROFILE_NO_GPU_CHECK=1 "$gp" profile --out "$out" -- sleep 30 > "$out.log" 2>&1 &
pid=$!
# Wait for the application to exist (up to 60 s: a loaded CI machine can take seconds to start it);
# a signal sent before graphprof has started it would test nothing.
started=0
for _ in $(seq 600); do pgrep -P "$pid" sleep > /dev/null && { started=1; break; }; sleep 0.1; done
[ "$started" = 1 ] || { kill -KILL "$pid"; echo "FAIL: graphprof did not start the application within 60 s"; exit 1; }
kill -TERM "$pid"
wait "$pid"
rc=$?
cat "$out.log"
[ "$rc" -eq 0 ] || { echo "FAIL: graphprof exited $rc, expected 0"; exit 1; }
grep -q "was killed by SIGTERM" "$out.log" || { echo "FAIL: the console does not say the application was killed by SIGTERM"; exit 1; }
grep -q '"exit_status": 143' "$out/report.json" || { echo "FAIL: report.json lacks exit_status 143"; exit 1; }
echo "ok"
