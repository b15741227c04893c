#!/bin/bash
# compute-sanitizer over every bundled workload and mode, on the GPU machine (issue 11).
#
#   scripts/sanitize-gpu.sh [GRAPHPROF]        (GRAPHPROF defaults to ./build-gpu/graphprof)
#
# memcheck: one process per (workload, mode); racecheck: one per workload in eager mode (the
# kernels are the same in every mode; racecheck looks at shared memory inside kernels). Tiny
# measurement passes (--budget 0.02, 3 samples, no trace pass). Runs SANITIZE_JOBS (6) processes
# at a time; each is stopped after SANITIZE_TIMEOUT (90) s and counted "timeout"; nothing new starts
# after SANITIZE_DEADLINE (150) s, so the whole script stays within about 3 minutes of device time.
#
# Conditional WHILE nodes: first the probe tests/gpu/conditional_probe_test (a WHILE graph whose
# body kernel accesses no memory) runs under memcheck. If memcheck reports an error even there,
# the tool cannot follow conditional nodes, and the `while` capture/graph cases (the WHILE node)
# are skipped with that reason (docs/development.md, "Sanitizers"). If the probe is clean, they run
# like every other case and any report is real.
#
# Output: a summary table on stdout and in $OUT/sanitize-gpu-summary.txt, every log in
# $OUT/sanitize-gpu-logs.tgz. Exit 0 when every case that ran is clean, 1 otherwise.
set -uo pipefail
gp=${1:-./build-gpu/graphprof}
[ -x "$gp" ] || { echo "$0: $gp is not an executable graphprof (build it first, or pass its path)" >&2; exit 2; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "$0: compute-sanitizer not found" >&2; exit 2; }
probe=${PROBE:-$(dirname "$gp")/tests/conditional_probe_test}
out=${OUT:-$PWD/sanitize-gpu-out}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
logs=$work/sanitize-gpu-logs
mkdir -p "$logs"
jobs=${SANITIZE_JOBS:-6}
per_run=${SANITIZE_TIMEOUT:-90}
quick="--budget 0.02 --min-time 0 --min-samples 3 --repetitions 1 --trace none --quiet"
export gp cs logs per_run quick deadline_epoch=$(( $(date +%s) + ${SANITIZE_DEADLINE:-150} ))

# classify LOG RC: one word and a reason.
classify() {
  local log=$1 rc=$2
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "timeout (no result within ${per_run} s)"; return; fi
  # memcheck ends with "ERROR SUMMARY: 0 errors", racecheck with "RACECHECK SUMMARY: 0 hazards".
  if grep -qE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" "$log" && [ "$rc" = 0 ]; then echo "clean"; return; fi
  local first
  first=$(grep -m1 -E "^========= (Invalid|Program hit|Race|Error|Uninitialized|Leaked|Warning)" "$log" | sed 's/^========= //')
  [ -z "$first" ] && first=$(grep -m1 -E "ERROR SUMMARY|graphprof: " "$log" | cut -c1-140)
  echo "NOT CLEAN (exit $rc): ${first:-see log}"
}
export -f classify

# run_case TOOL WORKLOAD MODE: one sanitized graphprof process; prints "TOOL WORKLOAD MODE<TAB>verdict".
run_case() {
  local tool=$1 w=$2 m=$3 log="$logs/$1-$2-$3.log"
  if [ "$(date +%s)" -ge "$deadline_epoch" ]; then printf '%s %s %s\tnot run (time budget spent)\n' "$tool" "$w" "$m"; return; fi
  local t0=$SECONDS
  # NCCL probes every kernel variant with cudaFuncGetAttributes at ncclCommInitRank and gets
  # cudaErrorNoKernelImageForDevice for those not built for this GPU (seen on the H200, NCCL 2.28:
  # 4 such API errors, all inside libnccl): not graphprof's calls, which are all checked anyway.
  local api=()
  [ "$w" = allreduce ] && api=(--report-api-errors no)
  # shellcheck disable=SC2086
  timeout -k 5 "$per_run" "$cs" --tool "$tool" "${api[@]}" --print-limit 10 --error-exitcode 99 \
    "$gp" run --workload "$w" --mode "$m" $quick --json "$logs/$tool-$w-$m.json" >"$log" 2>&1
  local rc=$?
  printf '%s %s %s\t%s (%d s)\n' "$tool" "$w" "$m" "$(classify "$log" "$rc")" $((SECONDS - t0))
}
export -f run_case

# SANITIZE_WORKLOADS="a b" limits the run to those workloads (default: every bundled one).
workloads=${SANITIZE_WORKLOADS:-$("$gp" list | grep -E '^[a-z]' | awk '{print $1}')}
# allreduce needs NCCL and, for more than one rank, --ranks: alone it still runs on one GPU.

# 1. The probe: can memcheck follow a conditional WHILE node at all?
skip_conditional=""
if [ -x "$probe" ]; then
  timeout -k 5 "$per_run" "$cs" --tool memcheck --error-exitcode 99 "$probe" >"$logs/memcheck-conditional-probe.log" 2>&1
  probe_rc=$?
  probe_verdict=$(classify "$logs/memcheck-conditional-probe.log" "$probe_rc")
  echo "memcheck conditional-probe	$probe_verdict" >"$work/probe.txt"
  case $probe_verdict in clean*) ;; *) skip_conditional="compute-sanitizer memcheck cannot follow conditional nodes: the probe (a WHILE body that accesses no memory) fails too ($probe_verdict)";; esac
else
  echo "memcheck conditional-probe	not run ($probe missing: build the tests)" >"$work/probe.txt"
fi

cases=$work/cases.txt
: >"$cases"
skipped=$work/skipped.txt
: >"$skipped"
for w in $workloads; do
  for m in eager capture graph; do
    if [ "$w" = while ] && [ "$m" != eager ] && [ -n "$skip_conditional" ]; then
      printf 'memcheck %s %s\tskipped: %s\n' "$w" "$m" "$skip_conditional" >>"$skipped"
      continue
    fi
    echo "memcheck $w $m" >>"$cases"
  done
done
for w in $workloads; do echo "racecheck $w eager" >>"$cases"; done

# shellcheck disable=SC2016
xargs -P "$jobs" -L 1 bash -c 'run_case "$0" "$1" "$2"' <"$cases" >"$work/results.txt"

{
  echo "compute-sanitizer $("$cs" --version | grep -m1 -oE 'Version [0-9.]+' || true) over $(echo $workloads | wc -w) workloads, $(date -u +%FT%TZ)"
  cat "$work/probe.txt"
  # `column` is not on every machine (the H200 image lacks it): align with awk instead.
  sort "$work/results.txt" "$skipped" | awk -F'\t' '{ printf "%-34s %s\n", $1, $2 }'
  echo
  printf 'clean: %d   not clean: %d   timeout: %d   skipped: %d   not run: %d\n' \
    "$(grep -c $'\tclean' "$work/results.txt")" "$(grep -c $'\tNOT CLEAN' "$work/results.txt")" \
    "$(grep -c $'\ttimeout' "$work/results.txt")" "$(wc -l <"$skipped")" "$(grep -c $'\tnot run' "$work/results.txt")"
} | tee "$out/sanitize-gpu-summary.txt"
tar -C "$work" -czf "$out/sanitize-gpu-logs.tgz" sanitize-gpu-logs
! grep -q $'\tNOT CLEAN' "$work/results.txt"
