#!/bin/bash
# interleave.sh: run a baseline and a candidate alternately, one process per run, then compare.
#
#   scripts/interleave.sh [options] BASE_BIN CAND_BIN ROUNDS [-- RUN_ARGS...]
#
# Each round runs `BASE_BIN run RUN_ARGS --json OUT/base/runN.json` and the same with CAND_BIN
# (order b c in odd rounds, c b in even ones, so a slow drift of the machine hits both sides
# alike), then `CAND_BIN compare OUT/base OUT/cand` pools each folder (docs/compare.md). BASE_BIN
# and CAND_BIN may be the same binary: give the sides different parameters with --base-args /
# --cand-args, and every parameter named there is ignored when results are matched.
#
# Options:
#   --out DIR            where the reports and compare outputs go (default: interleave-out; must
#                        not hold reports from an earlier experiment)
#   --base-args "ARGS"   extra `run` arguments for the baseline only, e.g. "-p spin_cycles=0"
#   --cand-args "ARGS"   extra `run` arguments for the candidate only, e.g. "-p spin_cycles=97"
#   --compare-args "ARGS"  extra `compare` arguments, e.g. "--gate launch_cpu_per_call"
# RUN_ARGS default to: -q --trace none --repetitions 1
#
# Exit: compare's own code (0 pass, 1 regression, 5 not trustworthy, ...); 2 for bad usage; a
# run that exits non-zero stops the experiment with its code (4: no GPU).
# Example (the gate experiment of docs/compare.md, on one binary):
#   scripts/interleave.sh --base-args "-p spin_cycles=0" --cand-args "-p spin_cycles=97" \
#     build/graphprof build/graphprof 7
set -u
usage() { sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d' >&2; exit 2; }

out=interleave-out base_args="" cand_args="" compare_args=""
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --base-args) [ $# -ge 2 ] || usage; base_args=$2; shift 2 ;;
    --cand-args) [ $# -ge 2 ] || usage; cand_args=$2; shift 2 ;;
    --compare-args) [ $# -ge 2 ] || usage; compare_args=$2; shift 2 ;;
    -h|--help) usage ;;
    --) break ;;
    -*) echo "interleave.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || usage
base_bin=$1 cand_bin=$2 rounds=$3
shift 3
if [ $# -gt 0 ]; then [ "$1" = "--" ] || usage; shift; fi
run_args=("$@")
[ ${#run_args[@]} -gt 0 ] || run_args=(-q --trace none --repetitions 1)
for b in "$base_bin" "$cand_bin"; do
  [ -x "$b" ] || { echo "interleave.sh: $b is not an executable graphprof" >&2; exit 2; }
done
case $rounds in ''|*[!0-9]*) echo "interleave.sh: ROUNDS '$rounds' is not a number" >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] || { echo "interleave.sh: ROUNDS must be at least 1" >&2; exit 2; }

read -r -a base_extra <<<"$base_args"
read -r -a cand_extra <<<"$cand_args"
read -r -a compare_extra <<<"$compare_args"
mkdir -p "$out/base" "$out/cand" || exit 2
if compgen -G "$out/base/*.json" >/dev/null || compgen -G "$out/cand/*.json" >/dev/null; then
  echo "interleave.sh: $out already holds reports; use another --out" >&2
  exit 2
fi

# Parameters set differently on the two sides must not keep the results from matching.
ignore=()
for a in "${base_extra[@]}" "${cand_extra[@]}"; do
  case $a in
    --param=*) a=${a#--param=} ;;
    -p*=*) a=${a#-p} ;;
    -*) continue ;;
    *=*) ;;
    *) continue ;;
  esac
  ignore+=(--ignore-param "${a%%=*}")
done

one() {  # side, binary, round, extra args...
  local side=$1 bin=$2 n=$3
  shift 3
  local file
  file=$out/$side/run$(printf %03d "$n").json
  echo "interleave: round $n/$rounds $side" >&2
  "$bin" run "${run_args[@]}" "$@" --json "$file"
  local rc=$?
  [ $rc = 0 ] || { echo "interleave.sh: $side run $n exited with $rc" >&2; exit $rc; }
}

for ((n = 1; n <= rounds; n++)); do
  if ((n % 2)); then
    one base "$base_bin" "$n" "${base_extra[@]}"
    one cand "$cand_bin" "$n" "${cand_extra[@]}"
  else
    one cand "$cand_bin" "$n" "${cand_extra[@]}"
    one base "$base_bin" "$n" "${base_extra[@]}"
  fi
done

"$cand_bin" compare "$out/base" "$out/cand" "${ignore[@]}" --markdown "$out/compare.md" --json "$out/compare.json" \
  "${compare_extra[@]}"
