#!/bin/bash
# The main job: installs missing packages, builds, and runs the default suite (every one-GPU workload in
# every mode), writing out/report.json and the graphs' DOT dumps under out/. Each workload is
# measured in its own fresh process (run --isolate), so none inherits the slower device level an
# earlier one may have left the process in (docs/methodology.md, "Repetitions and processes").
# On a machine without a GPU it says so and shows what the offline commands do instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
GRAPHPROF_BUILD_TARGET=graphprof "$root/scripts/build.sh" >/dev/null  # the binary, not the tests
gp="${GRAPHPROF_BUILD_DIR:-$root/build}/graphprof"
out=${GRAPHPROF_OUT:-$root/out}
set +e
"$gp" info >/dev/null 2>&1
has_gpu=$?
set -e
if [ $has_gpu = 0 ]; then
  # The console is the answer (suite summary, answer line, report paths); `graphprof info` and
  # `run --verbose` show the rest.
  exec "$gp" run --isolate --out "$out" "$@"
fi
echo "== No usable GPU here: $("$gp" run 2>&1 | sed 's/^graphprof: //')"
echo "== What works offline:"
echo "\$ graphprof list"
"$gp" list
for f in "$root"/tests/data/dot/fork-join_graph.dot "$root"/tests/data/dot/*.dot; do
  [ -f "$f" ] || continue
  if "$gp" analyze --help >/dev/null 2>&1 && "$gp" analyze "$f" >/dev/null 2>&1; then
    echo; echo "\$ graphprof analyze ${f#$root/}"; "$gp" analyze "$f"
    mkdir -p "$out"
    if "$gp" render "$f" -o "$out/$(basename "${f%.dot}").svg" >/dev/null 2>&1; then
      echo "\$ graphprof render ${f#$root/} -o out/$(basename "${f%.dot}").svg   # written"
    fi
  fi
  break
done
base="$root/tests/data/reports/base.json"
cand="$root/tests/data/reports/regression.json"
if [ -f "$base" ] && [ -f "$cand" ]; then
  echo; echo "\$ graphprof compare tests/data/reports/base.json tests/data/reports/regression.json   # synthetic reports"
  "$gp" compare "$base" "$cand" || true
fi
echo
echo "== To measure, run scripts/run.sh on a machine with an NVIDIA GPU and driver (CUDA 13)."
exit 0
