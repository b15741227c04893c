#!/bin/bash
# ci-perf-gate.sh: the compare step of a CI performance gate (see docs/ci.md).
#
#   scripts/ci-perf-gate.sh BASELINE.json CANDIDATE.json [OUTDIR] [-- graphprof compare options...]
#
# Runs `graphprof compare`, writes OUTDIR/compare.{md,xml,json,txt} (default OUTDIR: perf-gate),
# appends the Markdown to $GITHUB_STEP_SUMMARY when that is set, prints a GitHub annotation when
# run by GitHub Actions, and exits with graphprof's own exit code, unchanged:
#   0 pass · 1 regression or newly failing mode · 2 usage · 3 unreadable report · 5 not trustworthy
# Needs no GPU. Environment:
#   GRAPHPROF              the graphprof binary (default: graphprof on PATH, else build/graphprof)
#   GP_ALLOW_NO_BASELINE=1 a missing baseline file passes with a notice (the first run of a new gate)
set -u
usage() { echo "usage: $0 BASELINE.json CANDIDATE.json [OUTDIR] [-- graphprof compare options...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
baseline=$1; candidate=$2; shift 2
outdir=perf-gate
if [ $# -gt 0 ] && [ "$1" != "--" ]; then outdir=$1; shift; fi
if [ $# -gt 0 ]; then [ "$1" = "--" ] || usage; shift; fi

root=$(cd "$(dirname "$0")/.." && pwd)
graphprof=${GRAPHPROF:-$(command -v graphprof || echo "$root/build/graphprof")}
[ -x "$graphprof" ] || { echo "ci-perf-gate: graphprof binary not found at '$graphprof' (set GRAPHPROF)" >&2; exit 2; }
mkdir -p "$outdir" || exit 2

summary() {  # append to the GitHub job summary when there is one
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat >>"$GITHUB_STEP_SUMMARY"; else cat >/dev/null; fi
}

if [ ! -e "$baseline" ] && [ "${GP_ALLOW_NO_BASELINE:-0}" = 1 ]; then
  msg="graphprof compare: no baseline at $baseline yet; nothing to compare (GP_ALLOW_NO_BASELINE=1)"
  echo "$msg"
  printf '### graphprof compare: no baseline yet\n\n%s\n' "$msg" | summary
  [ "${GITHUB_ACTIONS:-}" = true ] && echo "::notice title=graphprof compare::$msg"
  exit 0
fi

"$graphprof" compare "$baseline" "$candidate" \
  --markdown "$outdir/compare.md" --junit "$outdir/compare.xml" --json "$outdir/compare.json" "$@" \
  >"$outdir/compare.txt"
rc=$?
cat "$outdir/compare.txt"
[ -s "$outdir/compare.md" ] && summary <"$outdir/compare.md"

if [ "${GITHUB_ACTIONS:-}" = true ]; then
  # The console output ends with the result line ("FAIL (exit 1): 2 regressions").
  line=$(tail -n 1 "$outdir/compare.txt" 2>/dev/null)
  case $rc in
    0) echo "::notice title=graphprof compare::${line:-pass}" ;;
    1) echo "::error title=graphprof compare::${line:-regression}" ;;
    5) echo "::error title=graphprof compare::${line:-comparison not trustworthy}" ;;
    *) echo "::error title=graphprof compare::graphprof compare exited with $rc (see the log)" ;;
  esac
fi
exit $rc
