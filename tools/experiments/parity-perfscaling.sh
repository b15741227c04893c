#!/bin/bash
# graphprof held against NVIDIA's cuda-samples cudaGraphsPerfScaling on the same graphs (GPU machine).
#
#   tools/experiments/parity-perfscaling.sh SAMPLE.cu [GRAPHPROF]
#
# SAMPLE.cu is the unmodified sample (cudaGraphPerfScaling.cu). It is built with nvcc into a
# temporary folder, never into the project's build. GRAPHPROF defaults to ./build-gpu/graphprof.
# Both measure the sample's topologies -- `width` chains of `length` empty kernels <<<1,1>>>, with
# (pattern 1, graphprof entry=1) or without (pattern 0) one entry kernel -- for every length in
# PARITY_LENGTHS and width in PARITY_WIDTHS; graphprof runs the `scaling` workload in the modes of
# PARITY_MODES (default capture, as the sample captures; `capture,graph` adds the same DAG built
# explicitly). PARITY_GRAPHPROF says how, a comma list of: `shapes` (one `graphprof run` process
# per shape, as the sample does; the default), `isolate` (`graphprof sweep --isolate-modes`: a
# fresh process per shape and mode), `sweep` (every shape and mode in one `graphprof sweep`
# process); `both` = shapes,sweep. PARITY_BUDGET (default 0.3) is graphprof's --budget,
# PARITY_GP_ARGS more graphprof options (e.g. `--min-time 0.02`); PARITY_SAMPLE_BIN a sample
# binary built before from SAMPLE.cu (skips the build). The sample prints each trial
# (OUTFMT 2): the tables show the trials, since the H200 replays chains at one of two speeds and a
# process can switch during its run; graphprof's sections.device_probe says which speed each shape
# ran at. Writes $OUT/parity.md (per way of running graphprof, the wide capture table: every
# figure against the sample, ratio to the trials' median), $OUT/parity_compact.md
# (tools/experiments/parity-table.py: device time per node per shape and mode, every way side by side, ratios
# to the sample's trial 1 and median, graphprof's two methods, the level) and $OUT/parity.tgz (the
# sample's CSVs, graphprof's JSON and console output, the timings of each step).
# Device time on the H200: about 1 minute per graphprof mode plus ~30 s for the sample (defaults);
# PARITY_TRIALS=3 PARITY_BUDGET=0.05 PARITY_GP_ARGS='--min-time 0.02' with isolate,sweep and
# capture,graph: ~40 s for the sample, ~30 s isolated, ~20 s in one process.
set -euo pipefail

usage() { echo "usage: $0 SAMPLE.cu [GRAPHPROF]  (writes \$OUT/parity.md and \$OUT/parity.tgz)" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
src=$1
gp=${2:-./build-gpu/graphprof}
[ -f "$src" ] || { echo "$0: $src: no such file (the sample's cudaGraphPerfScaling.cu)" >&2; exit 3; }
[ -x "$gp" ] || { echo "$0: $gp: not an executable graphprof (build it first, or pass its path)" >&2; exit 2; }
out=${OUT:-$PWD/parity-out}
lengths=${PARITY_LENGTHS:-"10 100 1000 10000"}
widths=${PARITY_WIDTHS:-"1 4 16"}
arch=${PERFSCALING_ARCH:-sm_90}
# The sample averages TRIALS fresh graphs per shape (plus one warm-up graph it does not report).
# At length 10000 x width 16 (160 000 nodes) each trial instantiates four times, so fewer trials there.
trials_small=${PARITY_TRIALS:-5}
trials_large=${PARITY_TRIALS_LARGE:-2}
sample_budget=${PARITY_SAMPLE_SECONDS:-110}   # seconds since the start after which no new sample run starts
# graphprof: a comma list of shapes (one process per shape, default), isolate (a process per shape
# and mode), sweep (one process over every shape); both = shapes,sweep.
gp_processes=${PARITY_GRAPHPROF:-shapes}
[ "$gp_processes" = both ] && gp_processes=shapes,sweep
for way in ${gp_processes//,/ }; do
  case $way in shapes|isolate|sweep) ;; *) echo "$0: PARITY_GRAPHPROF=$gp_processes: expected a comma list of shapes, isolate, sweep (or both)" >&2; exit 2;; esac
done
wants() { case ",$gp_processes," in *",$1,"*) return 0;; esac; return 1; }
modes=${PARITY_MODES:-capture}
gp_budget=${PARITY_BUDGET:-0.3}
read -r -a gp_args <<< "${PARITY_GP_ARGS:-}"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH=$PATH:/usr/local/cuda/bin

step() { echo "[$(( SECONDS ))s] $*" | tee -a "$work/steps.txt" >&2; }

if [ -n "${PARITY_SAMPLE_BIN:-}" ]; then
  # A sample built earlier from the same source (PARITY_SAMPLE_BIN=path), to save the build.
  step "using the sample built at $PARITY_SAMPLE_BIN (source sha256 $(sha256sum "$src" | cut -c1-16))"
  cp "$PARITY_SAMPLE_BIN" "$work/perfscaling"
else
  step "building the sample ($arch) from $src (sha256 $(sha256sum "$src" | cut -c1-16))"
  nvcc -O2 -std=c++17 -arch="$arch" -o "$work/perfscaling" "$src"
fi

step "running the sample"
header=length,width,pattern,capture,instantiation,first_launch_api,first_launch_total,repeat_launch_api,repeat_launch_total,first_launch_device,first_timeout,repeat_launch_device,repeat_timeout,upload_api_time,upload_device_time,upload_timeout
echo "$header" > "$work/sample.csv"
echo "$header" > "$work/sample_trials.csv"
for pattern in 0 1; do
  for width in $widths; do
    for length in $lengths; do
      # Device time is scarce: past the sample's share of the budget, skip the remaining shapes.
      if [ "$SECONDS" -gt "$sample_budget" ]; then
        step "skipped: sample at length $length width $width pattern $pattern (past ${sample_budget}s)"
        continue
      fi
      trials=$trials_small
      [ "$length" -ge 10000 ] && trials=$trials_large
      # OUTFMT 2: a CSV line per trial (the sample refuses 6 = trials and average); STRIDE 1,
      # MAXLENGTH = LENGTH: this length only. The average of the trials is what OUTFMT 4 prints.
      if ! timeout 60 "$work/perfscaling" 2 "$trials" "$length" "$width" "$pattern" 1 "$length" > "$work/one.txt"; then
        step "sample failed at length $length width $width pattern $pattern"
        continue
      fi
      { grep -E '^[0-9]' "$work/one.txt" || true; } | tr -d '\r ' | sed 's/,$//' > "$work/lines.txt"
      [ -s "$work/lines.txt" ] || { step "sample printed no trial at length $length width $width pattern $pattern"; continue; }
      cat "$work/lines.txt" >> "$work/sample_trials.csv"
      awk -F, '{for (i = 1; i <= NF; i++) t[i] += $i; n = NF; k++}
               END {for (i = 1; i <= n; i++) printf "%s%s", (i > 3 ? sprintf("%.3f", t[i] / k) : t[i] / k), (i < n ? "," : "\n")}' \
        "$work/lines.txt" >> "$work/sample.csv"
    done
  done
  step "sample pattern $pattern done"
done

csv() { echo "$1" | tr -s ' ' ','; }
if wants shapes; then
  # One graphprof process per shape, as the sample runs: no shape measured after another.
  step "running graphprof, one process per shape (scaling, $modes)"
  for entry in 0 1; do
    for width in $widths; do
      for length in $lengths; do
        "$gp" run --workload scaling --mode "$modes" --quiet --trace none \
          --param "length=$length" --param "width=$width" --param "entry=$entry" \
          --budget "$gp_budget" "${gp_args[@]}" --json "$work/gp-$length-$width-$entry.json" >> "$work/graphprof-shapes.txt" 2>&1 \
          || step "graphprof failed at length $length width $width entry $entry (exit $?)"
      done
    done
  done
  # One report with every shape's result (the first report's header).
  python3 - "$work/graphprof-shapes.json" "$work"/gp-*.json <<'PY' && step "graphprof (one process per shape) done"
import json, os, sys
reports = [json.load(open(f)) for f in sys.argv[2:]]
merged = reports[0]
merged["results"] = [r for rep in reports for r in rep["results"]]
json.dump(merged, open(sys.argv[1] + ".tmp", "w"))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
PY
  rm -f "$work"/gp-*.json
fi
# A sweep over every shape: `isolate` with a fresh process per shape and mode, `sweep` in one process.
# Its console (the level column) is kept in graphprof-NAME.txt.
for way in isolate sweep; do
  wants $way || continue
  extra=()
  [ $way = isolate ] && extra=(--isolate-modes)
  step "running graphprof sweep ${extra[*]} (scaling, $modes)"
  "$gp" sweep --workload scaling --mode "$modes" "${extra[@]}" \
    --param "length=$(csv "$lengths")" --param "width=$(csv "$widths")" --param entry=0,1 \
    --budget "$gp_budget" "${gp_args[@]}" --json "$work/graphprof-$way.json" > "$work/graphprof-$way.txt" 2>&1 \
    && step "graphprof sweep ($way) done" || step "graphprof sweep ($way) failed (exit $?): see graphprof-$way.txt"
done

python3 - "$work/sample.csv" "$work/sample_trials.csv" "$out/parity.md" "$work/graphprof-shapes.json" "$work/graphprof-isolate.json" "$work/graphprof-sweep.json" <<'PY'
import csv, json, os, statistics, sys

sample_csv, trials_csv, md_path = sys.argv[1:4]
gp_paths = [p for p in sys.argv[4:] if os.path.exists(p)]
sample, trials = {}, {}
for row in csv.DictReader(open(sample_csv)):
    key = (int(row["length"]), int(row["width"]), int(row["pattern"]))
    sample[key] = {k: float(v) for k, v in row.items()}
for row in csv.DictReader(open(trials_csv)):
    key = (int(row["length"]), int(row["width"]), int(row["pattern"]))
    trials.setdefault(key, []).append(float(row["repeat_launch_device"]))

def med(r, k):
    m = r.get("metrics", {}).get(k)
    return None if m is None else m["summary"]["median"] / 1000.0  # ns -> µs

def fmt(v):
    if v is None: return "-"
    if v >= 1000: return f"{v / 1000:.2f} ms"
    if v >= 100: return f"{v:.0f}"
    if v >= 10: return f"{v:.1f}"
    return f"{v:.2f}"

def probes_of(r):
    p = (((r or {}).get("sections") or {}).get("device_probe") or {})
    return [p[k] for k in ("ns_per_kernel", "ns_per_kernel_after") if isinstance(p.get(k), (int, float))]

def probe(r):
    """The slower of the probes before and after the result's passes (None without any)."""
    v = probes_of(r)
    return max(v) if v else None

def table(title, report):
    within = {}
    def ratio(a, b, col, same_method):
        """graphprof / sample; counts same-method columns for the ±10 % summary."""
        if a is None or b is None or b <= 0: return "-"
        q = a / b
        if same_method:
            ok = abs(q - 1) <= 0.10
            n, k = within.get(col, (0, 0))
            within[col] = (n + 1, k + ok)
            return f"{q:.2f}" + ("" if ok else " ⚠")
        return f"{q:.2f}"
    gp = {}
    for r in report["results"]:
        p = r["params"]
        if r.get("mode", "capture") == "capture":  # this table compares the capture mode, as the sample captures
            gp[(int(p["length"]), int(p["width"]), int(p["entry"]))] = r
    probes = [v for r in gp.values() for v in probes_of(r)]
    fast = min(probes) if probes else None
    env = report.get("environment", {}).get("gpu") or {}
    lines = [f"### {title}", "",
             f"GPU: {env.get('name', '?')}, driver {env.get('driver_version', '?')}, runtime {env.get('runtime_version', '?')}; "
             f"graphprof {report.get('tool', {}).get('git_revision', '?')}. Times in µs unless marked; ratio = graphprof / sample.", "",
             "| length × width | entry | nodes | device per node: sample (mean of trials) | sample trials (min–max) | graphprof | ratio (to the trials' median) | graphprof device probe before/after, ns/kernel | repeat launch, host (after sync): sample (2nd launch of a new exec) | graphprof (warm exec, median) | ratio | graphprof back to back | instantiate: sample (after its warm-up trial) | graphprof (repeated) | ratio | graphprof first | ratio | upload: sample (API only) | graphprof (API only) | ratio | graphprof (+sync) | first launch: sample (incl. upload, +sync) | graphprof upload + first launch | ratio | sample latch timeouts |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    slow_rows = 0
    for key in sorted(set(sample) | set(gp)):
        length, width, pattern = key
        s, r = sample.get(key), gp.get(key)
        nodes = length * width + pattern
        if r is not None and r.get("status") != "ok":
            lines.append(f"| {length} × {width} | {pattern} | {nodes} | graphprof {r.get('status')}: {r.get('reason', '')} |" + " |" * 21)
            continue
        s_node = s["repeat_launch_device"] / nodes if s else None
        t = [v / nodes for v in trials.get(key, [])]
        t_range = f"{min(t):.2f}–{max(t):.2f} ({len(t)})" if t else "-"
        t_med = statistics.median(t) if t else s_node
        lat = med(r, "gpu_time_per_iter_latched") if r else None
        g_nodes = r["sections"]["graph"]["nodes"] if r else nodes
        g_node = lat / g_nodes if lat is not None else None
        pr = probe(r)
        slow = pr is not None and fast is not None and pr > 1.15 * fast
        slow_rows += slow
        pr_text = "-" if pr is None else "/".join(f"{v:.0f}" for v in probes_of(r)) + (" slow" if slow else "")
        s_rep = s["repeat_launch_api"] if s else None
        g_iso = med(r, "launch_cpu_isolated") if r else None
        g_b2b = med(r, "launch_cpu_per_call") if r else None
        s_inst = s["instantiation"] if s else None
        g_inst = med(r, "instantiate_time") if r else None
        g_inst_first = med(r, "instantiate_time_first") if r else None
        s_up = s["upload_api_time"] if s else None
        g_up = med(r, "upload_time") if r else None
        g_up_call = med(r, "upload_call_time") if r else None
        s_first = s["first_launch_total"] if s else None
        g_first_only = med(r, "first_launch_time") if r else None
        g_first = g_up + g_first_only if g_up is not None and g_first_only is not None else None
        timeouts = f"{s['first_timeout'] + s['repeat_timeout'] + s['upload_timeout']:.1f}" if s else "-"
        node_note = "" if g_nodes == nodes else f" (graphprof: {g_nodes})"
        lines.append(
            f"| {length} × {width} | {pattern} | {nodes}{node_note} | {fmt(s_node)} | {t_range} | {fmt(g_node)} "
            f"| {ratio(g_node, t_med, 'device per node', True)} | {pr_text} "
            f"| {fmt(s_rep)} | {fmt(g_iso)} | {ratio(g_iso, s_rep, 'repeat launch host', False)} | {fmt(g_b2b)} "
            f"| {fmt(s_inst)} | {fmt(g_inst)} | {ratio(g_inst, s_inst, 'instantiate', True)} "
            f"| {fmt(g_inst_first)} | {ratio(g_inst_first, s_inst, 'instantiate first', False)} "
            f"| {fmt(s_up)} | {fmt(g_up_call)} | {ratio(g_up_call, s_up, 'upload call', True)} | {fmt(g_up)} "
            f"| {fmt(s_first)} | {fmt(g_first)} | {ratio(g_first, s_first, 'first launch', False)} | {timeouts} |")
    lines.append("")
    lines.append("Same method, same shape, within ±10 %: " +
                 "; ".join(f"{c}: {k} of {n}" for c, (n, k) in within.items()) + ". ⚠ marks a same-method ratio outside ±10 %.")
    lines.append(f"Device probe: graphprof's sections.device_probe before and after each shape's passes; \"slow\" = one of them "
                 f"more than 15 % above this table's fastest probe ({fast:.0f} ns): {slow_rows} of {len(gp)} shapes." if fast else "Device probe: not recorded.")
    lines.append("")
    return lines

lines = []
titles = {"graphprof-shapes.json": "graphprof: one process per shape (as the sample)",
          "graphprof-isolate.json": "graphprof: one process per shape and mode (sweep --isolate-modes)",
          "graphprof-sweep.json": "graphprof: all shapes in one sweep process"}
for path in gp_paths:
    lines += table(titles.get(os.path.basename(path), path), json.load(open(path)))
if not gp_paths:
    lines += table("graphprof: no report", {"results": []})
lines.append("The sample's device time per node is `repeat_launch_device` ÷ nodes of each trial (a fresh exec's "
             "second replay behind a latch); the ratio is taken to the median of its trials, the mean is what it prints.")
lines.append("Sample latch timeouts: how many of its three latched measurements (summed, averaged over trials) "
             "ran past the latch's timeout (4 µs + 0.5 µs per node), so the host submission was not fully hidden; "
             f"repeat_launch_device, the one compared, timed out in {sum(v['repeat_timeout'] for v in sample.values()):.1f} "
             f"(summed over {len(sample)} shapes).")
lines.append("Instantiate: the sample's mean over its trials, each the first instantiate of a freshly captured graph after an "
             "unprinted warm-up trial of the same shape (three instantiates); graphprof's instantiate_time the median of its "
             "one-off sequences after the first, instantiate_time_first the first (a graph of this size met for the first "
             "time in the process). Upload: both the cudaGraphUpload call alone (the sample's into a stream held by its "
             "latch kernel, graphprof's into an idle stream); graphprof's upload_time adds the synchronize.")
lines.append("Repeat launch, host: not held to ±10 %: the sample times the second launch of a freshly instantiated exec "
             "(one call per trial), graphprof the median over hundreds of launches of a warm exec.")
open(md_path + ".tmp", "w").write("\n".join(lines) + "\n")
os.replace(md_path + ".tmp", md_path)
print("\n".join(lines))
PY
step "table written to $out/parity.md"
labels=()
for way in shapes isolate sweep; do
  case $way in shapes) label="per-shape process";; isolate) label=isolated;; sweep) label="one process";; esac
  [ -f "$work/graphprof-$way.json" ] && labels+=("$label=$work/graphprof-$way.json")
done
if [ ${#labels[@]} -gt 0 ]; then
  python3 "$here/parity-table.py" "$work/sample_trials.csv" "${labels[@]}" > "$out/parity_compact.md.tmp" \
    && mv "$out/parity_compact.md.tmp" "$out/parity_compact.md" && step "compact table written to $out/parity_compact.md" \
    || step "compact table failed (exit $?)"
fi
(cd "$work" && tar czf "$out/parity.tgz.tmp" sample.csv sample_trials.csv steps.txt $(ls graphprof-* 2>/dev/null))
mv "$out/parity.tgz.tmp" "$out/parity.tgz"
