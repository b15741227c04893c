#!/bin/bash
# Real H200 outputs for the HTML report, the CSV and the compressed Chrome trace (issue 14), for
# the docs and the closing note. Run on the GPU machine after `bash .gpu-deps/remote.sh` built
# build-gpu/:   bash .gpu-deps/remote.sh bash scripts/html-h200.sh
# Writes $OUT/html.tgz (html/: run.html, run.csv, run/report.json + dot/, trace.json.gz, sweep.html,
# sweep.csv, sweep.json, suite.html, console logs, sizes.txt). About 40 s of device time.
set -euo pipefail
gp=${GRAPHPROF:-./build-gpu/graphprof}
out=${OUT:-out}/html
mkdir -p "$out"
# Three workloads with the trace pass: HTML with graphs and heat maps, CSV, gzipped trace.
"$gp" run -w chain,fork-join,while --out "$out/run" --html "$out/run.html" --csv "$out/run.csv" \
  --trace-out "$out/trace.json.gz" -q > "$out/run.txt" 2>&1
# A sweep: log-log curves, break-even, per-node cost.
"$gp" sweep -w chain -p kernels=1,10,100,1000 --json "$out/sweep.json" --html "$out/sweep.html" \
  --csv "$out/sweep.csv" -q > "$out/sweep.txt" 2>&1
# The whole default suite with short timing passes: is the default trace small enough for a
# browser (issue 14 asks for <= 20 MB compressed)? Only its size and event count come back.
"$gp" run --budget 0.05 --min-time 0.02 --out "$out/suite" --html "$out/suite.html" \
  --trace-out "$out/suite_trace.json.gz" -q > "$out/suite.txt" 2>&1
{
  ls -la "$out" "$out/run" "$out/suite"
  python3 - "$out/suite_trace.json.gz" "$out/trace.json.gz" <<'PY'
import gzip, json, os, sys
for path in sys.argv[1:]:
    doc = json.load(gzip.open(path))
    print(path, os.path.getsize(path), "bytes compressed,", len(doc["traceEvents"]), "events,",
          "truncated sessions:", len(doc["otherData"].get("truncated_sessions", [])))
PY
} > "$out/sizes.txt" 2>&1
rm -f "$out/suite_trace.json.gz"
tar czf "${OUT:-out}/html.tgz" -C "${OUT:-out}" html
rm -rf "$out"
