#!/bin/bash
# profile_framework_logs.sh GRAPHPROF OUTDIR RECORDS: PyTorch's own reasons for running without CUDA
# graphs (docs/profile.md, "Steps by kind").
# - graphprof sets TORCH_LOGS and TORCH_LOGS_OUT (into the records folder) in the application's
#   environment, reads the reasons logged there, says so, and joins them to the process that logged
#   them; `profile --from` reads that file again.
# - A program whose environment sets TORCH_LOGS or TORCH_LOGS_OUT keeps its own; --no-framework-logs
#   sets neither. Either way the report says why nothing was asked for.
# - The steps of the serving loop's records (RECORDS, serving_gate.py's: 90 of 400 steps eager).
# No GPU needed (GRAPHPROF_PROFILE_NO_GPU_CHECK=1: the application only copies a record file and
# writes a log line as PyTorch 2.11 does).
set -u
gp=$1 out=$2 records=$3
rm -rf "$out" && mkdir -p "$out"
export GRAPHPROF_PROFILE_NO_GPU_CHECK=1
unset TORCH_LOGS TORCH_LOGS_OUT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
# The application: what it was given, its records (pid 3676), and one skip reason in PyTorch's format.
app="echo \"\${TORCH_LOGS-unset}|\${TORCH_LOGS_OUT-unset}\" > '$out/env.txt'; cp '$records' \"\$GRAPHPROF_PROFILE_DIR/proc-3676.jsonl\";
if [ -n \"\${TORCH_LOGS_OUT-}\" ]; then
  printf '%s\n' 'W1205 08:45:29.658000 3676 torch/_inductor/cudagraph_utils.py:207] [__cudagraphs] skipping cudagraphs due to mutated inputs (1 instances). Found from : ' \
    'W1205 08:45:29.658000 3676 torch/_inductor/cudagraph_utils.py:207] [__cudagraphs]    File \"/x/serving_gate.py\", line 91, in serve' >> \"\$TORCH_LOGS_OUT\"
fi"
field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r["results"][0]["sections"]["profile"]; exec(sys.argv[2])' "$@"; }

"$gp" profile --out "$out/p" -- sh -c "$app" > "$out/p.out" 2>&1 || bad "the profile: $(tail -3 "$out/p.out")"
if [ "$(cat "$out/env.txt")" = "perf_hints,cudagraphs|$(cd "$out/p/profile-data" && pwd)/torch-logs.txt" ]; then ok "TORCH_LOGS and TORCH_LOGS_OUT set"
else bad "the application saw $(cat "$out/env.txt")"; fi
if grep -q "90 of 400 steps ran without a graph at serving_gate.py:91 in serve" "$out/p.out" &&
   grep -q "CUDA graphs skipped: mutated inputs (1 instances) (serving_gate.py:91 in serve); explains the eager work" "$out/p.out" &&
   grep -q "at serving_gate.py:41 in Model.forward" "$out/p.out" &&
   grep -q "TORCH_LOGS=perf_hints,cudagraphs and TORCH_LOGS_OUT were set" "$out/p.out"; then ok "the eager steps, the reason joined to them, the note"
else bad "the summary: $(grep -A3 'steps by kind\|reasons' "$out/p.out" | head -20)"; fi
got=$(field "$out/p/report.json" 'f=p["framework_logs"]; print(f["asked"], f["reasons"], p["processes"][0]["step_kinds"]["reasons"][0]["steps"] > 0)')
[ "$got" = "True 1 True" ] && ok "framework_logs in the report" || bad "framework_logs: $got"

# A second profile into the same folder starts a new log (PyTorch appends to the file).
"$gp" profile --out "$out/p" -- sh -c "$app" > "$out/p2.out" 2>&1 || bad "the second profile: $(tail -3 "$out/p2.out")"
got=$(field "$out/p/report.json" 'print(p["framework_logs"]["reasons"], p["processes"][0]["step_kinds"]["reasons"][0]["count"])')
[ "$got" = "1 1" ] && ok "a second profile into the folder: its own log only" || bad "second profile: $got"

# --from reads the log the profile left.
"$gp" profile --from "$out/p" --json "$out/from.json" > "$out/from.out" 2>&1 || bad "--from: $(tail -3 "$out/from.out")"
got=$(field "$out/from.json" 'f=p["framework_logs"]; print(f["asked"], f["reasons"], len(p["processes"][0]["step_kinds"]["reasons"]))')
[ "$got" = "False 1 1" ] && ok "--from reads the log again" || bad "--from: $got"

# The program's own TORCH_LOGS, and --no-framework-logs: nothing set, and the report says why.
TORCH_LOGS=dynamo "$gp" profile --out "$out/own" -- sh -c "$app" > "$out/own.out" 2>&1 || bad "own: $(tail -3 "$out/own.out")"
got=$(field "$out/own/report.json" 'print(p["framework_logs"]["asked"], p["framework_logs"]["not_asked"])')
if [ "$(cat "$out/env.txt")" = "dynamo|unset" ] && [ "$got" = "False the program's environment sets TORCH_LOGS" ]; then ok "the program's TORCH_LOGS kept"
else bad "own TORCH_LOGS: $(cat "$out/env.txt") / $got"; fi
"$gp" profile --no-framework-logs --out "$out/off" -- sh -c "$app" > "$out/off.out" 2>&1 || bad "off: $(tail -3 "$out/off.out")"
got=$(field "$out/off/report.json" 'print(p["framework_logs"]["not_asked"])')
if [ "$(cat "$out/env.txt")" = "unset|unset" ] && [ "$got" = "--no-framework-logs" ]; then ok "--no-framework-logs"
else bad "--no-framework-logs: $(cat "$out/env.txt") / $got"; fi
exit $fail
