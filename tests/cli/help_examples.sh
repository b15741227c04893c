#!/bin/bash
# help_examples.sh GRAPHPROF: the --help of graphprof and of every command it lists fits in 100
# columns and ends with an example: "Example(s):" and then command lines of that command.
# A command that this build does not have (built without CUDA: one line and exit 4) is the only
# exception, and only in such a build.
set -u
gp=$1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
top=$("$gp" --help) || { echo "FAIL graphprof --help: exit $?"; exit 1; }
without_cuda=0
grep -q "^Built without CUDA" <<< "$top" && without_cuda=1
widest() { awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
w=$(widest <<< "$top")
[ "$w" -le 100 ] && ok "graphprof --help: $w columns" || bad "graphprof --help: a line of $w columns"
# The commands, from the Subcommands list: "  name   description".
commands=$(awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}' <<< "$top")
[ "$(wc -w <<< "$commands")" -ge 10 ] || bad "graphprof --help lists $(wc -w <<< "$commands") commands: $commands"
for c in $commands; do
  help=$("$gp" "$c" --help 2>&1)
  rc=$?
  if [ $rc = 4 ] && [ $without_cuda = 1 ] && grep -q "built without CUDA" <<< "$help"; then
    ok "$c --help: not in this build (exit 4)"
    continue
  fi
  [ $rc = 0 ] || { bad "$c --help: exit $rc: $(head -c 200 <<< "$help")"; continue; }
  w=$(widest <<< "$help")
  [ "$w" -le 100 ] || bad "$c --help: a line of $w columns: $(awk 'length($0) > 100' <<< "$help" | head -1)"
  # The last lines: "Example:" or "Examples:", then only "  graphprof $c[ ...]" lines.
  tail_block=$(awk '/^Examples?:$/ {block = ""; on = 1; next} on {block = block $0 "\n"} END {printf "%s", block}' <<< "$help")
  last=$(tail -1 <<< "$help")
  if [ -z "$tail_block" ] || grep -Eqv "^  graphprof $c( |$)" <<< "$tail_block" ||
     ! grep -Eq "^  graphprof $c( |$)" <<< "$last"; then
    bad "$c --help does not end with examples of '$c': $(tail -3 <<< "$help")"
  else
    ok "$c --help: $w columns, ends with $(wc -l <<< "$tail_block") example(s)"
  fi
done
exit $fail
