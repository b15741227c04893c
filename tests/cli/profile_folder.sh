#!/bin/bash
# profile_folder.sh GRAPHPROF OUTDIR: a profile owns its --out folder and its files.
# - A second profile into a folder another profile is writing: exit 2 "another profile is writing
#   here", before its application starts; the first one's report lists its own process.
# - An output that is the program, another output or a file in the records folder: exit 2 naming
#   both, the application never started.
# No GPU needed (GRAPHPROF_PROFILE_NO_GPU_CHECK=1: the applications never use CUDA).
set -u
gp=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
export GRAPHPROF_PROFILE_NO_GPU_CHECK=1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# The first profile holds the folder while its application waits for a file.
"$gp" profile --out "$out/shared" -- sh -c "touch '$out/first_started'; while [ ! -e '$out/release' ]; do sleep 0.1; done" \
  > "$out/first.log" 2>&1 &
first=$!
for _ in $(seq 600); do [ -e "$out/first_started" ] && break; sleep 0.1; done
[ -e "$out/first_started" ] || { kill -KILL $first; echo "FAIL: the first profile did not start its application within 60 s"; exit 1; }
"$gp" profile --out "$out/shared" -- touch "$out/second_ran" > "$out/second.log" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "^graphprof: --out $out/shared: another profile is writing here" "$out/second.log" && [ ! -e "$out/second_ran" ]; then
  ok "second profile into a busy folder: $(cat "$out/second.log")"
else bad "second profile into a busy folder: exit $rc, application ran: $([ -e "$out/second_ran" ] && echo yes || echo no): $(head -3 "$out/second.log")"; fi
touch "$out/release"
wait $first
rc=$?
[ $rc = 0 ] && ok "first profile exit 0" || bad "first profile exit $rc: $(tail -5 "$out/first.log")"
# Once the first has finished, the folder is free again (the lock file stays, unlocked).
if "$gp" profile --out "$out/shared" -- true > "$out/third.log" 2>&1; then ok "the folder is free after the profile"
else bad "a profile after the first one finished: $(tail -3 "$out/third.log")"; fi

# Outputs against the profile's own files.
printf '#!/bin/sh\ntouch "%s/app_ran"\n' "$out" > "$out/app.sh"; chmod +x "$out/app.sh"
expect_refused() {
  local pattern=$1; shift
  rm -f "$out/app_ran"
  "$gp" profile "$@" > "$out/refused.log" 2>&1
  local rc=$?
  if [ $rc = 2 ] && grep -Eq -- "$pattern" "$out/refused.log" && [ ! -e "$out/app_ran" ]; then ok "$*: $(cat "$out/refused.log")"
  else bad "$*: exit $rc, expected 2 matching /$pattern/ with no run: $(head -3 "$out/refused.log")"; fi
}
expect_refused "^graphprof: --json $out/app.sh: the same file as the program $out/app.sh" \
  --out "$out/p1" --json "$out/app.sh" -- "$out/app.sh"
mkdir -p "$out/p2"
expect_refused "^graphprof: --html $out/p2/report.json: the same file as --out $out/p2/report.json" \
  --out "$out/p2" --html "$out/p2/report.json" -- "$out/app.sh"
expect_refused "^graphprof: --html $out/x.html: the same file as --json $out/x.html" \
  --out "$out/p3" --json "$out/x.html" --html "$out/x.html" -- "$out/app.sh"
mkdir -p "$out/p4/profile-data"
expect_refused "^graphprof: --trace-out $out/p4/profile-data/t.json: inside the records folder" \
  --out "$out/p4" --trace-out "$out/p4/profile-data/t.json" -- "$out/app.sh"
exit $fail
