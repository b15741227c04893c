#!/bin/bash
# The "new user" walk-through of docs/api.md on a GPU machine: install graphprof from
# an existing build into a prefix, build the example plugins against the installed package twice
# (the second time with a deliberately slower saxpy kernel), run them in all modes (one run with
# the trace pass and DOT dumps), and compare the two saxpy builds. Outputs: $OUT/plugin.tgz
# (transcript.txt with every command and its output, the reports, compare outputs, DOT dumps).
#   bash tools/experiments/plugin-h200.sh            (after build-gpu/ was built)
# Environment: GRAPHPROF_BUILD_DIR (default build-gpu), PREFIX (default /tmp/gp-prefix), OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GRAPHPROF_BUILD_DIR:-$root/build-gpu}
prefix=${PREFIX:-/tmp/gp-prefix}
OUT=${OUT:-$root/out}
out=$OUT/plugin
work=/tmp/gp-plugin-work
export PATH=$PATH:/usr/local/cuda/bin
rm -rf "$out" "$work" && mkdir -p "$out" "$work"
transcript=$out/transcript.txt

# Runs a command, appending it and its output to the transcript; returns its exit status.
step() {
  echo "\$ $*" | tee -a "$transcript"
  local t0=$SECONDS
  "$@" >"$work/step.log" 2>&1
  local rc=$?
  tee -a "$transcript" <"$work/step.log"
  echo "[exit $rc, $((SECONDS - t0)) s]" | tee -a "$transcript"
  return $rc
}
die() { echo "plugin-h200: $*" | tee -a "$transcript"; tar czf "$OUT/plugin.tgz" -C "$OUT" plugin; exit 1; }

gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
step cmake --install "$build" --prefix "$prefix" || die "install failed"
gp=$prefix/bin/graphprof
step "$gp" --version

# As an outside project: examples/ configured against the installed package only.
step cmake -S "$root/examples" -B "$work/ex" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix;${CMAKE_PREFIX_PATH:-}" \
  -DCMAKE_CUDA_ARCHITECTURES=90 || die "configure failed"
step cmake --build "$work/ex" -j 16 || die "build failed"
step cmake -S "$root/examples" -B "$work/ex-slow" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix;${CMAKE_PREFIX_PATH:-}" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DEXAMPLES_SLOW=ON || die "configure (slow) failed"
step cmake --build "$work/ex-slow" --target saxpy -j 16 || die "build (slow) failed"
saxpy=$work/ex/libsaxpy.so reduce=$work/ex/libreduce.so slow=$work/ex-slow/libsaxpy_slow.so

step "$gp" list --load "$saxpy" --load "$reduce"
step "$gp" info
quick=(--budget 0.1 --min-time 0.02)
# Both plugins, all modes, with the trace pass, DOT dumps and a Perfetto trace.
step "$gp" run --load "$saxpy" --load "$reduce" --mode all "${quick[@]}" --trace node --trace-iterations 50 \
  --out "$out/all" --trace-out "$out/all/trace.json" || die "run (all modes) failed"
# Two builds of saxpy, three repetitions each, no trace pass.
step "$gp" run --load "$saxpy" --workload saxpy --mode all "${quick[@]}" -r 3 --trace none -q \
  --json "$out/saxpy_base.json" || die "run (base) failed"
step "$gp" run --load "$slow" --workload saxpy --mode all "${quick[@]}" -r 3 --trace none -q \
  --json "$out/saxpy_slow.json" || die "run (slow) failed"
step "$gp" compare "$out/saxpy_base.json" "$out/saxpy_slow.json" --markdown "$out/compare.md" --json "$out/compare.json"
echo "compare exit status: $? (1 = regression found, expected)" | tee -a "$transcript"
tar czf "$OUT/plugin.tgz" -C "$OUT" plugin && rm -rf "$out"
echo "written $OUT/plugin.tgz"
