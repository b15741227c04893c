#!/bin/bash
# profile_process_group.sh GRAPHPROF OUTDIR: the application runs in a process group of its own, and
# none of its processes outlives the profile. A shell wrapper starts a grandchild (sleep) and:
# - --time-limit stops the wrapper and the grandchild (the whole group), not the wrapper alone;
# - SIGTERM sent to graphprof reaches the grandchild too;
# - a grandchild left running after the wrapper exited is stopped (SIGTERM), and one that ignores
#   SIGTERM gets SIGKILL after the grace period; the report and stderr name it.
# No GPU needed (GRAPHPROF_PROFILE_NO_GPU_CHECK=1).
set -u
gp=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
export GRAPHPROF_PROFILE_NO_GPU_CHECK=1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
# A process is alive when /proc shows it and it is not a zombie (an orphan's zombie may wait for
# its reaper).
alive() {
  local state
  state=$(sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [ -n "$state" ] && [ "$state" != Z ]
}
grandchild_of() {
  for _ in $(seq 100); do [ -s "$1" ] && break; sleep 0.1; done
  cat "$1" 2>/dev/null
}

# 1. --time-limit: the wrapper waits for its grandchild; both are stopped.
"$gp" profile --time-limit 1 --out "$out/limit" -- sh -c "sleep 300 & echo \$! > '$out/limit.pid'; wait" > "$out/limit.log" 2>&1
rc=$?
g=$(grandchild_of "$out/limit.pid")
if [ -z "$g" ]; then bad "--time-limit: the wrapper did not start its grandchild: $(tail -3 "$out/limit.log")"
elif alive "$g"; then bad "--time-limit: the grandchild $g outlived the profile"; kill -KILL "$g"
else ok "--time-limit (exit $rc): the grandchild $g was stopped with the wrapper"; fi

# 2. SIGTERM sent to graphprof.
"$gp" profile --out "$out/term" -- sh -c "sleep 300 & echo \$! > '$out/term.pid'; wait" > "$out/term.log" 2>&1 &
pid=$!
g=$(grandchild_of "$out/term.pid")
kill -TERM $pid
wait $pid
rc=$?
if [ -z "$g" ]; then bad "SIGTERM: the wrapper did not start its grandchild"
elif alive "$g"; then bad "SIGTERM: the grandchild $g outlived the profile (exit $rc)"; kill -KILL "$g"
else ok "SIGTERM (exit $rc): the grandchild $g was stopped"; fi

# 3. The wrapper exits at once and leaves its grandchild running: stopped, and said.
"$gp" profile --out "$out/left" -- sh -c "sleep 300 & echo \$! > '$out/left.pid'" > "$out/left.log" 2>&1
rc=$?
g=$(grandchild_of "$out/left.pid")
if [ $rc != 0 ]; then bad "left running: exit $rc: $(tail -3 "$out/left.log")"
elif [ -z "$g" ] || alive "$g"; then bad "left running: the grandchild '$g' outlived the profile"; [ -n "$g" ] && kill -KILL "$g"
elif ! grep -q "1 process of the application was still running after it ended and was stopped (SIGTERM): $g (sleep)" "$out/left/report.json" "$out/left.log"; then
  bad "left running: the report does not name the stopped process: $(grep -h note "$out/left.log")"
else ok "left running: $(grep -h 'still running' "$out/left.log" | head -1)"; fi

# 4. A grandchild that ignores SIGTERM: SIGKILL after the grace period.
"$gp" profile --out "$out/stubborn" -- sh -c "trap '' TERM; sleep 300 & echo \$! > '$out/stubborn.pid'" > "$out/stubborn.log" 2>&1
rc=$?
g=$(grandchild_of "$out/stubborn.pid")
if [ $rc != 0 ] || [ -z "$g" ] || alive "$g"; then bad "ignores SIGTERM: exit $rc, grandchild '$g' alive or missing"; [ -n "$g" ] && kill -KILL "$g" 2>/dev/null
elif ! grep -q "stopped (SIGTERM, then SIGKILL after 5 s): $g (sleep)" "$out/stubborn.log"; then bad "ignores SIGTERM: not said: $(tail -3 "$out/stubborn.log")"
else ok "ignores SIGTERM: SIGKILL"; fi
exit $fail
