#!/bin/bash
# Real GPU outputs for the HTML report, the CSV and the compressed Chrome trace: the source of
# the HTML fixtures and of docs/html.md's pictures. Run on a GPU machine after build-gpu/
# was built:   bash tools/html-fixtures.sh
# Writes $OUT/html.tgz (html/: run.html, run.csv, run/report.json + dot/, trace.json.gz, sweep.html,
# sweep.csv, sweep.json, suite.html, console logs, status.txt, sizes.txt). About 40 s on the GPU.
set -uo pipefail  # no -e: whatever was written still comes back; exit codes go to status.txt
gp=${GRAPHPROF:-./build-gpu/graphprof}
out=${OUT:-out}/html
mkdir -p "$out"
# A GPU machine's build may lack zlib's headers; that build refuses .gz names, so write .json there and let
# python compress it afterwards (sizes.txt then says so).
build=$(dirname "$gp")
gz=.json.gz
if ! grep -q '^ZLIB_INCLUDE_DIR:PATH=/' "$build/CMakeCache.txt" 2>/dev/null; then gz=.json; fi
# Four workloads with the trace pass: HTML with graphs and heat maps (while: the loop body's
# times; host: the host nodes' idle gaps), CSV, gzipped trace.
"$gp" run -w chain,fork-join,while,host --out "$out/run" --html "$out/run.html" --csv "$out/run.csv" \
  --trace-out "$out/trace$gz" --budget 0.25 -q > "$out/run.txt" 2>&1
echo "run: exit $?" >> "$out/status.txt"
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null && echo "browser here: $(command -v "$b")" >> "$out/status.txt"
done
# A sweep: log-log curves, break-even, per-node cost.
"$gp" sweep -w chain -p kernels=1,10,100,1000 --json "$out/sweep.json" --html "$out/sweep.html" \
  --csv "$out/sweep.csv" --budget 0.25 -q > "$out/sweep.txt" 2>&1
echo "sweep: exit $?" >> "$out/status.txt"
# The whole default suite with short timing passes: is the default trace small enough for a
# browser (the aim: <= 20 MB compressed)? Only its size and event count come back.
"$gp" run --budget 0.05 --min-time 0.02 --out "$out/suite" --html "$out/suite.html" \
  --trace-out "$out/suite_trace$gz" -q > "$out/suite.txt" 2>&1
echo "suite: exit $?" >> "$out/status.txt"
{
  ls -la "$out" "$out/run" "$out/suite"
  python3 - "$out/suite_trace$gz" "$out/trace$gz" <<'PY'
import gzip, json, os, sys
for path in sys.argv[1:]:
    if path.endswith(".gz"):
        raw = gzip.open(path).read()
        print(path, os.path.getsize(path), "bytes as written (gzip by graphprof),", len(raw), "bytes of JSON")
    else:
        raw = open(path, "rb").read()
        print(path, len(raw), "bytes as written (no zlib in this build),", len(gzip.compress(raw, 6)),
              "bytes after gzip -6 by python")
        with gzip.open(path + ".gz", "wb", 6) as f:
            f.write(raw)
        os.remove(path)
    doc = json.loads(raw)
    print("  ", len(doc["traceEvents"]), "events; truncated sessions:", len(doc["otherData"].get("truncated_sessions", [])))
PY
} > "$out/sizes.txt" 2>&1
rm -f "$out/suite_trace.json.gz" "$out/suite_trace.json"
rm -rf "$out/suite/dot"  # suite.html has the pictures; the dumps of every workload are large
tar czf "${OUT:-out}/html.tgz" -C "${OUT:-out}" html
# At most 16 MiB come back per file: drop the suite's page and report before anything else.
if [ "$(stat -c %s "${OUT:-out}/html.tgz")" -gt 15000000 ]; then
  rm -rf "$out/suite" "$out/suite.html"
  echo "suite report left out: html.tgz was over 15 MB" >> "$out/status.txt"
  tar czf "${OUT:-out}/html.tgz" -C "${OUT:-out}" html
fi
rm -rf "$out"
