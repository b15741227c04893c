#!/bin/bash
# hostile_reports.sh GRAPHPROF GOOD_REPORT DOT: hostile report files read by compare, merge and
# analyze/render --report and report must end in exit 3 with a line naming the file — never exit 6,
# never a signal, never a fraction silently truncated into a count.
set -u
gp=$1; good=$2; dot=$3
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
status=0
# CASE NAME: the hostile file $dir/NAME.json, built from the good report.
sed '0,/"repetitions": \[\[[0-9.]*/s//"repetitions": [[1e400/' "$good" >"$dir/huge_number.json"
sed 's/"cpu_count": [0-9]*/"cpu_count": 1e30/' "$good" >"$dir/cpu_count_1e30.json"
sed 's/"sm_count": [0-9]*/"sm_count": -7/' "$good" >"$dir/sm_count_negative.json"
sed 's/"repetitions": 1,/"repetitions": 1e300,/' "$good" >"$dir/settings_repetitions_1e300.json"
sed '0,/"nodes": [0-9]*/s//"nodes": 100.5/' "$good" >"$dir/graph_nodes_fraction.json"
sed 's/"processes": 1,/"processes": 2.5,/' "$good" >"$dir/settings_processes_fraction.json"
# Finite but absurd: every figure of the first metric's samples ~1e300 (valid JSON).
sed -E '0,/"repetitions": \[\[[^]]*\]/s//"repetitions": [[1e300, 1.5e300, 1e300]/' "$good" >"$dir/figures_1e300.json"
{ printf '{"schema_version": "1.0.0", "settings": '; printf '%.0s{"a":' {1..100000}; printf '1'; printf '%.0s}' {1..100000}; printf ', "results": []}\n'; } >"$dir/deep_settings.json"
{ printf '{"schema_version": "1.0.0", "results": [{"workload": "w", "mode": "eager", "params": {}, "status": "ok", "sections": '
  printf '%.0s[' {1..100000}; printf '%.0s]' {1..100000}; printf '}]}\n'; } >"$dir/deep_sections.json"
for f in "$dir"/*.json; do
  for cmd in compare merge analyze render report; do
    case $cmd in
      compare) args=(compare "$good" "$f") ;;
      merge) args=(merge "$f" "$good" -o "$dir/merged.out") ;;
      analyze) args=(analyze "$dot" --report "$f") ;;
      render) args=(render "$dot" -o "$dir/out.svg" --report "$f") ;;
      report) args=(report "$f" -o "$dir/out.html") ;;
    esac
    err=$("$gp" "${args[@]}" 2>&1 >/dev/null)
    rc=$?
    if [ $rc != 3 ] || ! grep -q -- "$f" <<<"$err"; then
      echo "FAIL $(basename "$f") $cmd: exit $rc, expected 3 with the file name; stderr: ${err:0:300}"
      status=1
    else
      echo "ok   $(basename "$f") $cmd: ${err:0:160}"
    fi
  done
done
exit $status
