#!/bin/bash
# Why does compute-sanitizer memcheck fail on the `while` workload's conditional WHILE node?
# On the GPU machine, after the build with tests:
#
#   tools/sanitize-conditional.sh [BUILD_DIR]          (BUILD_DIR defaults to ./build-gpu)
#
# 1. tests/gpu/conditional_probe_ladder_test without a tool (every step must pass plainly).
# 2. memcheck on each of its steps in its own process: Ladder.S00 (the clean probe) .. S10 (the
#    workload as graphprof runs it), one difference per step, and Single.* (one difference from
#    the probe). The first ladder step that is not clean names the difference.
# 3. That first failing step twice more (and the clean step before it), then with memcheck options
#    changed one at a time: --check-device-heap no, --padding 32, --force-blocking-launches,
#    CUDA_LAUNCH_BLOCKING=1, the deciding kernel (the one that calls cudaGraphSetConditional)
#    excluded from instrumentation; and under synccheck and initcheck.
# 4. graphprof's `while` (graph, capture) under memcheck: default parameters, one pass per launch
#    (max_steps=1), two passes, and the option variants of 3.
# Each sanitized process is stopped after SANITIZE_TIMEOUT (60) s; nothing new starts after
# SANITIZE_DEADLINE (100) s. Output: summary on stdout and in $OUT/sanitize-conditional-summary.txt,
# logs in $OUT/sanitize-conditional-logs.tgz. Exit 0 whatever the verdicts (it is a diagnosis).
set -uo pipefail
build=${1:-./build-gpu}
gp=$build/graphprof
ladder=$build/tests/conditional_probe_ladder_test
for f in "$gp" "$ladder"; do [ -x "$f" ] || { echo "$0: $f missing (build with tests first)" >&2; exit 2; }; done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "$0: compute-sanitizer not found" >&2; exit 2; }
out=${OUT:-$PWD/sanitize-conditional-out}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
logs=$work/sanitize-conditional-logs
mkdir -p "$logs"
per_run=${SANITIZE_TIMEOUT:-60}
deadline=$(( $(date +%s) + ${SANITIZE_DEADLINE:-100} ))
jobs=${SANITIZE_JOBS:-4}
"$cs" --help >"$logs/compute-sanitizer-help.txt" 2>&1
has_option() { grep -q -- "$1" "$logs/compute-sanitizer-help.txt"; }
exclude_opt=--kernel-name-exclude
has_option "$exclude_opt" || exclude_opt=--kernel-regex-exclude
export cs logs per_run deadline

# verdict LOG RC: clean, or the first report line, and the last phase the program reached.
verdict() {
  local log=$1 rc=$2 first phase
  phase=$(grep -E '^phase: ' "$log" | tail -1 | sed 's/^phase: //')
  [ -n "$phase" ] && phase=" [last phase: $phase]"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "timeout after ${per_run} s$phase"; return; fi
  if [ "$rc" = 0 ] && ! grep -qE '^========= (Invalid|Program hit|Error|Race|Uninitialized|Barrier)' "$log"; then
    echo "clean$(grep -m1 -oE 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards' "$log" | sed 's/^/ (/; s/$/)/')"
    return
  fi
  first=$(grep -m1 -E '^========= (Invalid|Program hit|Error|Race|Uninitialized|Barrier)|Failure|unrecognized|[Uu]nknown option' "$log" |
    sed 's/^========= //' | cut -c1-150)
  echo "NOT CLEAN (exit $rc): ${first:-see log}$phase"
}
export -f verdict

# one NAME ENV_OR_- TOOL_ARGS... -- PROGRAM ARGS...: one sanitized process, one summary line.
one() {
  local name=$1 env=$2
  shift 2
  local args=()
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  if [ "$(date +%s)" -ge "$deadline" ]; then printf '%-58s not run (time budget spent)\n' "$name"; return; fi
  local t0=$SECONDS log="$logs/$name.log"
  echo "+ ${env#-} $cs ${args[*]} $*" >"$log"
  if [ "$env" = - ]; then
    timeout -k 5 "$per_run" "$cs" "${args[@]}" --error-exitcode 99 --print-limit 5 "$@" >>"$log" 2>&1
  else
    env "$env" timeout -k 5 "$per_run" "$cs" "${args[@]}" --error-exitcode 99 --print-limit 5 "$@" >>"$log" 2>&1
  fi
  local rc=$?
  printf '%-58s %s (%d s)\n' "$name" "$(verdict "$log" "$rc")" $((SECONDS - t0))
}
export -f one

echo "compute-sanitizer $("$cs" --version | grep -m1 -oE 'Version [0-9.]+'), $(date -u +%FT%TZ)" >"$work/head.txt"

# 1. Plain run.
t0=$SECONDS
"$ladder" >"$logs/ladder-plain.log" 2>&1
echo "ladder without a tool: exit $? ($(grep -cE '^\[       OK \]' "$logs/ladder-plain.log") steps passed, $((SECONDS - t0)) s)" >>"$work/head.txt"

# 2. memcheck per step.
steps=$("$ladder" --gtest_list_tests | awk '/^[A-Za-z]/{suite=$1} /^  /{print suite $1}')
for s in $steps; do
  echo "one memcheck-$s - --tool memcheck -- $ladder --gtest_filter=$s"
done >"$work/steps.cmds"
xargs -P "$jobs" -I{} bash -c '{}' <"$work/steps.cmds" | sort >"$work/steps.txt"

# 3. The first failing ladder step, option by option.
first=$(grep -m1 -E '^memcheck-Ladder\.S[0-9]+_\S+ +NOT CLEAN' "$work/steps.txt" | awk '{print $1}' | sed 's/^memcheck-//')
{
  if [ -n "$first" ]; then
    n=${first#Ladder.S}; n=${n%%_*}
    # The kernel that calls cudaGraphSetConditional at that step.
    if [ "$((10#$n))" -ge 9 ]; then decider=wh_check; elif [ "$((10#$n))" -ge 2 ]; then decider=decide_wide; else decider=count_passes; fi
    prog="$ladder --gtest_filter=$first"
    # Reproducible? The failing step twice more, and the clean step before it twice more.
    before=$(grep -B1 -E "^memcheck-$first " "$work/steps.txt" | head -1 | awk '{print $1}' | sed 's/^memcheck-//')
    for r in 2 3; do
      echo "one again$r-$first - --tool memcheck -- $prog"
      [ -n "$before" ] && [ "$before" != "$first" ] && echo "one again$r-$before - --tool memcheck -- $ladder --gtest_filter=$before"
    done
    echo "one opt-$first-check-device-heap-no - --tool memcheck --check-device-heap no -- $prog"
    echo "one opt-$first-padding-32 - --tool memcheck --padding 32 -- $prog"
    has_option --force-blocking-launches && echo "one opt-$first-force-blocking - --tool memcheck --force-blocking-launches -- $prog"
    echo "one opt-$first-launch-blocking CUDA_LAUNCH_BLOCKING=1 --tool memcheck -- $prog"
    echo "one opt-$first-exclude-$decider - --tool memcheck $exclude_opt kns=$decider -- $prog"
    echo "one opt-$first-synccheck - --tool synccheck -- $prog"
    echo "one opt-$first-initcheck - --tool initcheck -- $prog"
  fi
  # 4. graphprof's while.
  quick="run --workload while --budget 0.02 --min-time 0 --min-samples 3 --repetitions 1 --trace none --quiet"
  for m in graph capture; do
    echo "one graphprof-$m-default - --tool memcheck -- $gp $quick --mode $m"
    echo "one graphprof-$m-max_steps-1 - --tool memcheck -- $gp $quick --mode $m -p max_steps=1"
    echo "one graphprof-$m-max_steps-2 - --tool memcheck -- $gp $quick --mode $m -p max_steps=2"
    echo "one graphprof-$m-check-device-heap-no - --tool memcheck --check-device-heap no -- $gp $quick --mode $m"
    echo "one graphprof-$m-padding-32 - --tool memcheck --padding 32 -- $gp $quick --mode $m"
    echo "one graphprof-$m-exclude-wh_check - --tool memcheck $exclude_opt kns=wh_check -- $gp $quick --mode $m"
  done
  has_option --force-blocking-launches &&
    echo "one graphprof-graph-force-blocking - --tool memcheck --force-blocking-launches -- $gp $quick --mode graph"
  echo "one graphprof-graph-launch-blocking CUDA_LAUNCH_BLOCKING=1 --tool memcheck -- $gp $quick --mode graph"
} >"$work/more.cmds"
xargs -P "$jobs" -I{} bash -c '{}' <"$work/more.cmds" | sort >"$work/more.txt"

{
  cat "$work/head.txt"
  echo
  echo "memcheck, one process per step (Ladder: cumulative, one difference per step; Single: one difference from S00):"
  cat "$work/steps.txt"
  echo
  echo "first ladder step not clean: ${first:-none}"
  cat "$work/more.txt"
} | tee "$out/sanitize-conditional-summary.txt"
tar -C "$work" -czf "$out/sanitize-conditional-logs.tgz" sanitize-conditional-logs
exit 0
