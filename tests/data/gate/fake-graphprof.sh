#!/bin/bash
# A stand-in for graphprof in the CPU test of scripts/interleave.sh: `run` copies the next real
# H200 report of tests/data/gate (A for spin_cycles=0, S10 for spin_cycles=194) to --json and
# logs the call; every other command goes to the real binary in $GRAPHPROF.
here=$(cd "$(dirname "$0")" && pwd)
if [ "$1" != run ]; then exec "$GRAPHPROF" "$@"; fi
set=A json="" prev=""
for a in "$@"; do
  case $a in
    spin_cycles=194|--param=spin_cycles=194) set=S10 ;;
    --json=*) json=${a#--json=} ;;
  esac
  [ "$prev" = --json ] && json=$a
  prev=$a
done
n=$(( $(ls "$(dirname "$json")" | grep -c '\.json$') + 1 ))
echo "$set $*" >>"$(dirname "$json")/../calls.log"
cp "$here/$set/run$(( (n - 1) % 7 + 1 )).json" "$json"
