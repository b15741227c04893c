#!/bin/bash
# profile_from.sh GRAPHPROF OUTDIR GOOD_RECORDS: the analysis of a profile is never lost while its
# records are on disk.
# - `profile --from DIR` reads an earlier profile's records again, runs nothing, prints the summary
#   and writes the report (the same processes and graphs as the profile's own).
# - The summary is printed before the report is written: with --json on a full device (exit 4) the
#   summary is still on stdout, and stderr says how to write the report from the records.
# - --from with a command, a missing folder or one without records: exit 2 / 3 / 3.
# No GPU needed (GRAPHPROF_PROFILE_NO_GPU_CHECK=1: the application only copies a record file).
set -u
gp=$1 out=$2 good=$3
rm -rf "$out" && mkdir -p "$out"
export GRAPHPROF_PROFILE_NO_GPU_CHECK=1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
app="cp '$good' \"\$GRAPHPROF_PROFILE_DIR/proc-101.jsonl\""
graphs() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r["results"][0]["sections"]["profile"]["processes"]; print(len(p), [g["exec"] for g in p[0]["graphs"]], p[0]["pid"])' "$1"; }

# A report that cannot be written: the summary is printed all the same, and the way back is said.
"$gp" profile --out "$out/p" --json /dev/full -- sh -c "$app" > "$out/full.out" 2> "$out/full.err"
rc=$?
if [ $rc = 4 ] && grep -q "^profile: sh (1 CUDA process" "$out/full.out" && grep -q "graph_1" "$out/full.out" &&
   grep -q "graphprof profile --from $out/p --json FILE" "$out/full.err"; then ok "profile --json /dev/full: exit 4, summary printed, --from named"
else bad "profile --json /dev/full: exit $rc: $(head -c 300 "$out/full.out") / $(tail -3 "$out/full.err")"; fi

# The records read again, from the --out folder and from its profile-data folder.
"$gp" profile --out "$out/p" -- sh -c "$app" > "$out/first.log" 2>&1 || bad "the profile itself: $(tail -3 "$out/first.log")"
mv "$out/p/report.json" "$out/first.json"
for from in "$out/p" "$out/p/profile-data"; do
  rm -f "$out/p/report.json"
  "$gp" profile --from "$from" > "$out/from.out" 2> "$out/from.err"
  rc=$?
  if [ $rc != 0 ] || [ ! -s "$out/p/report.json" ]; then bad "--from $from: exit $rc: $(tail -3 "$out/from.err")"; continue; fi
  if [ "$(graphs "$out/p/report.json")" != "$(graphs "$out/first.json")" ]; then
    bad "--from $from: other processes or graphs than the profile's: $(graphs "$out/p/report.json") vs $(graphs "$out/first.json")"
  elif ! grep -q "read again from the records" "$out/from.out" || grep -q "running " "$out/from.err"; then
    bad "--from $from: the summary does not say so, or something ran: $(head -5 "$out/from.out")"
  else ok "--from $from: $(graphs "$out/p/report.json")"; fi
done
# Summary first with --from too.
"$gp" profile --from "$out/p" --json /dev/full > "$out/from_full.out" 2>&1
rc=$?
[ $rc = 4 ] && grep -q "^profile: graphprof_graph_app" "$out/from_full.out" && ok "--from --json /dev/full: exit 4 after the summary" ||
  bad "--from --json /dev/full: exit $rc: $(head -5 "$out/from_full.out")"

# Wrong uses.
expect() {
  local want=$1 pattern=$2; shift 2
  local err rc
  err=$("$gp" profile "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc = "$want" ] && grep -Eq -- "$pattern" <<<"$err"; then ok "$*: $err"; else bad "$*: exit $rc, expected $want /$pattern/: $err"; fi
}
mkdir -p "$out/empty"
expect 2 "^graphprof: --from re-reads the records of an earlier profile and runs nothing" --from "$out/p" -- true
expect 3 "^graphprof: --from $out/missing: no such folder" --from "$out/missing"
expect 3 "^graphprof: --from $out/empty: .* holds no records of a profile" --from "$out/empty"
expect 2 "^graphprof: --json $out/p/profile-data/proc-101.jsonl: the same file as the record file" --from "$out/p" --json "$out/p/profile-data/proc-101.jsonl"
exit $fail
