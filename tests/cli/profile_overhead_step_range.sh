#!/bin/bash
# `profile --overhead N --step-range NAME`: the plain runs (GRAPHPROF_PROFILE_LEVEL=clock) get the
# NVTX injection and the name as the profiled runs do, and the window compared is the ranges'.
# The "application" writes records as the injection library would: a clock line of its graph and
# the NAME ranges, longer in the profiled runs (+50 %), so the change is known. Without ranges in
# the plain runs the window falls back to the most-launched graph's and a note says why.
# Usage: profile_overhead_step_range.sh GRAPHPROF OUTDIR (no GPU needed).
set -u
gp=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
export GRAPHPROF_PROFILE_NO_GPU_CHECK=1
fail=0
cat > "$out/app.sh" <<'APP'
#!/bin/bash
# No records in the warm-up run (no injection there).
[ -n "${GRAPHPROF_PROFILE_DIR:-}" ] || exit 0
echo "level=$GRAPHPROF_PROFILE_LEVEL nvtx=${NVTX_INJECTION64_PATH:+set} range=${GRAPHPROF_PROFILE_STEP_RANGE:-}" >> "$APP_LOG"
f="$GRAPHPROF_PROFILE_DIR/proc-$$.jsonl"
echo '{"t":"process","pid":1,"ppid":0,"ts":500,"cupti":130000,"level":-1,"cmdline":"app"}' > "$f"
echo '{"t":"clock","exec":2,"n":11,"first":1000,"last":11000,"settled":12000}' >> "$f"
trap 'echo "{\"t\":\"end\",\"reason\":\"exit\",\"ts\":13000,\"dropped\":0,\"lost_buffers\":0,\"cupti\":\"graphprof\"}" >> "$f"' EXIT
[ -z "${NVTX_INJECTION64_PATH:-}" ] && exit 0
if [ "$GRAPHPROF_PROFILE_LEVEL" = clock ]; then
  [ "${NO_PLAIN_RANGES:-0}" = 1 ] && exit 0
  echo '{"t":"nvtx","r":[[1000,2000],[2000,3000]]}' >> "$f"
else
  echo '{"t":"nvtx","r":[[1000,2500],[2500,4000]]}' >> "$f"
fi
echo '{"t":"nvtx_end","inits":1,"others":0,"open":0}' >> "$f"
APP
chmod +x "$out/app.sh"

APP_LOG="$out/ranges.log" "$gp" profile --overhead 2 --step-range step --trace none --out "$out/ranges" --json "$out/ranges.json" \
  -- "$out/app.sh" > "$out/ranges.txt" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL: exit $rc"; cat "$out/ranges.txt"; fail=1; }
[ "$(grep -c 'level=clock nvtx=set range=step' "$out/ranges.log")" = 2 ] ||
  { echo "FAIL: the plain runs did not get the NVTX injection and the name:"; cat "$out/ranges.log"; fail=1; }
[ "$(grep -c 'level=none nvtx=set range=step' "$out/ranges.log")" = 2 ] ||
  { echo "FAIL: the profiled runs did not get the NVTX injection and the name:"; cat "$out/ranges.log"; fail=1; }
for want in "steady-state window \(NVTX range 'step', 2 steps\) .*\+50\.0 %" "time per step .*\+50\.0 %" \
            "from the start of the first NVTX range 'step' to the end of the last"; do
  grep -Eq -- "$want" "$out/ranges.txt" || { echo "FAIL: no /$want/ in the summary"; fail=1; }
done
grep -Eq '"window": ?"nvtx range"' "$out/ranges.json" && grep -Eq '"range": ?"step"' "$out/ranges.json" ||
  { echo "FAIL: the report does not name the ranges' window"; fail=1; }

APP_LOG="$out/fallback.log" NO_PLAIN_RANGES=1 "$gp" profile --overhead 2 --step-range step --trace none --out "$out/fallback" \
  -- "$out/app.sh" > "$out/fallback.txt" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL: fallback: exit $rc"; cat "$out/fallback.txt"; fail=1; }
for want in "2 of the 4 runs of --overhead closed no NVTX range 'step'" "steady-state window \(exec 2, 11 steps\)"; do
  grep -Eq -- "$want" "$out/fallback.txt" || { echo "FAIL: fallback: no /$want/ in the output"; fail=1; }
done
[ $fail = 0 ] || { echo "--- ranges"; cat "$out/ranges.txt"; echo "--- fallback"; cat "$out/fallback.txt"; }
exit $fail
