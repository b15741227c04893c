#!/bin/bash
# report_profile_brief.sh GRAPHPROF PROFILE.json: `graphprof report PROFILE.json` prints the brief
# console summary, opening with "what to fix first" (the broken capture first); --verbose prints
# the long form (slowest nodes, eager work by call site) after the same block.
set -u
gp=$1 report=$2
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
brief=$("$gp" report "$report") || bad "report PROFILE.json: exit $?"
long=$("$gp" report "$report" --verbose) || bad "report PROFILE.json --verbose: exit $?"
# The first line after the headline (and an empty line) is the block; its first row the capture.
first=$(sed -n 4,5p <<< "$brief")
if [[ "$first" == "  what to fix first"*"  1. broken capture on stream "* ]]; then ok "the brief form opens with what to fix"
else bad "the brief form does not open with what to fix: $(head -6 <<< "$brief")"; fi
if grep -q "slowest nodes\|eager work left, by call site" <<< "$brief"; then bad "the brief form holds the long form's tables"
elif grep -q "(--verbose lists them by name)" <<< "$brief"; then ok "the brief form points to --verbose"
else bad "the brief form does not point to --verbose"; fi
if grep -q "slowest nodes" <<< "$long" && grep -q "eager work left, by call site" <<< "$long" &&
   [ "$(sed -n 4p <<< "$long")" = "  what to fix first" ]; then ok "--verbose: the long form, after the same block"
else bad "--verbose is not the long form: $(head -6 <<< "$long")"; fi
[ "$(wc -l <<< "$brief")" -lt "$(wc -l <<< "$long")" ] || bad "the brief form is not shorter"
exit $fail
