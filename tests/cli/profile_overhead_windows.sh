#!/bin/bash
# `profile --overhead-windows N`: N runs with GRAPHPROF_PAUSE_WINDOWS=WINDOW_MS,START_MS set (and a
# developer's GRAPHPROF_DEV_PAUSE_LOG passed on to them alone), then one run recorded throughout
# for the profile, without either. The "application" writes records as the interposer would: pw
# lines of alternating windows whose time per graph launch is 10 % longer in recording windows,
# with a slow spell of the host (x3) over a few windows, so the change is known (+10.0 %). Then the
# usage errors. Usage: profile_overhead_windows.sh GRAPHPROF OUTDIR (no GPU needed).
set -u
gp=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
export GRAPHPROF_PROFILE_NO_GPU_CHECK=1
fail=0
cat > "$out/app.sh" <<'APP'
#!/bin/bash
echo "windows=${GRAPHPROF_PAUSE_WINDOWS:-} log=${GRAPHPROF_DEV_PAUSE_LOG:-} level=$GRAPHPROF_PROFILE_LEVEL" >> "$APP_LOG"
f="$GRAPHPROF_PROFILE_DIR/proc-$$.jsonl"
echo '{"t":"process","pid":1,"ppid":0,"ts":500,"cupti":130000,"level":-1,"cmdline":"app","observed":"interpose"}' > "$f"
trap 'echo "{\"t\":\"end\",\"reason\":\"exit\",\"ts\":13000,\"dropped\":0,\"lost_buffers\":0,\"cupti\":\"graphprof\"}" >> "$f"' EXIT
[ -n "${GRAPHPROF_PAUSE_WINDOWS:-}" ] || exit 0
at=1000000000
for k in $(seq 0 23); do
  per=100000; [ $((k % 2)) = 0 ] && per=110000     # recording windows (even k) 10 % longer
  [ $k -ge 8 ] && [ $k -le 12 ] && per=$((per * 3)) # a slow spell of the host
  echo "{\"t\":\"pw\",\"rec\":$(( (k + 1) % 2 )),\"from\":$at,\"to\":$((at + 50000000)),\"n\":200,\"span\":$((per * 200))}" >> "$f"
  at=$((at + 50000000))
done
exit 0
APP
chmod +x "$out/app.sh"

APP_LOG="$out/runs.log" GRAPHPROF_DEV_PAUSE_LOG=/tmp/sw.%p "$gp" profile --overhead-windows 2 --window-ms 40 --out "$out/w" \
  --json "$out/w.json" -- "$out/app.sh" > "$out/w.txt" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL: exit $rc"; fail=1; }
[ "$(grep -c '^windows=40,300 log=/tmp/sw.%p level=none$' "$out/runs.log")" = 2 ] ||
  { echo "FAIL: the windowed runs did not get the windows and the developer's log:"; cat "$out/runs.log"; fail=1; }
[ "$(sed -n 3p "$out/runs.log")" = "windows= log= level=none" ] ||
  { echo "FAIL: the last run (the profile) is not recorded throughout:"; cat "$out/runs.log"; fail=1; }
[ "$(wc -l < "$out/runs.log")" = 3 ] || { echo "FAIL: not 3 runs"; fail=1; }
for want in "^  overhead on the application's own steps: \+10\.0 % time per graph launch \[\+10\.0, \+10\.0 %\] \(outside the noise\)" \
            "22 recording windows of 2 runs against the paused windows beside each; median, 9[0-9] % sign-test interval;" \
            "^   recording paused and resumed every 40 ms from 300 ms after the first graph launch\)" \
            "run 3 of 3 \(--overhead-windows\): recorded throughout, the profile"; do
  grep -Eq -- "$want" "$out/w.txt" || { echo "FAIL: no /$want/ in the output"; fail=1; }
done
python3 - "$out/w.json" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))["results"][0]["sections"]["profile"]["overhead_windows"]
assert p["period_ms"] == 40 and p["start_ms"] == 300 and p["windows"] == 22, p
assert abs(p["change"] - 0.10) < 1e-9 and p["inside_noise"] is False, p
assert [r["compared"] for r in p["runs"]] == [11, 11], p["runs"]
PY
[ -d "$out/w/profile-data/windows-run" ] && { echo "FAIL: the windowed runs' scratch folder was left behind"; fail=1; }

# The report read again: its summary; a hand-edited field of another type is a malformed file for
# the summary (3, named), where the page, whose readers fall back on what they cannot read, is
# still written.
"$gp" report "$out/w.json" > "$out/again.txt" 2>&1 && grep -q "overhead on the application's own steps: +10.0 %" "$out/again.txt" ||
  { echo "FAIL: graphprof report of the profile does not say the change"; cat "$out/again.txt"; fail=1; }
python3 - "$out/w.json" "$out/hostile.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["results"][0]["sections"]["profile"]["overhead_windows"]["windows"] = "many"
r["results"][0]["sections"]["profile"]["overhead_changes"] = [{"metric": "wall_time", "pairs": 2, "change": 0.1, "low": 0, "high": 0.2,
                                                               "wider_than_effect": "yes", "plain_median_ns": 1, "profiled_median_ns": 1}]
json.dump(r, open(sys.argv[2], "w"))
PY
"$gp" report "$out/hostile.json" > "$out/hostile.txt" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "hostile.json: a section of the report is malformed" "$out/hostile.txt" ||
  { echo "FAIL: graphprof report of a malformed profile: exit $rc"; cat "$out/hostile.txt"; fail=1; }
"$gp" report "$out/hostile.json" -o "$out/hostile.html" > "$out/hostile_page.txt" 2>&1 && [ -s "$out/hostile.html" ] ||
  { echo "FAIL: the page of a malformed profile"; cat "$out/hostile_page.txt"; fail=1; }

for args in "--overhead-windows 2 --trace node" "--overhead-windows 2 --overhead 2" "--window-ms 20" \
            "--overhead-windows 2 --repeat 2" "--overhead-windows 0" "--overhead-windows 2 --window-ms 1"; do
  # shellcheck disable=SC2086
  "$gp" profile $args --out "$out/bad" -- true > "$out/bad.txt" 2>&1
  rc=$?
  [ $rc = 2 ] || { echo "FAIL: '$args' exited $rc, not 2 (usage)"; cat "$out/bad.txt"; fail=1; }
  grep -q -- "--overhead-windows\|--window-ms" "$out/bad.txt" || { echo "FAIL: '$args': the error does not name the option"; cat "$out/bad.txt"; fail=1; }
done
[ $fail = 0 ] || { echo "--- output"; cat "$out/w.txt"; }
exit $fail
