#!/bin/bash
# graphviz_core_fallback.sh GRAPHPROF PLUGIN OUTDIR REPORT DOTDIR: where Graphviz's text-layout
# plugin (cairo/pango) is broken — here replaced by PLUGIN, which aborts when asked to measure
# text — `render -o x.svg` and the HTML page still draw the graphs, through Graphviz's core SVG
# renderer, and the page shows no Graphviz error in place of a picture.
# Skips (77) where Graphviz has no cairo/pango plugin to replace.
set -u
gp=$1 plugin=$2 out=$3 report=$4 dots=$5
rm -rf "$out" && mkdir -p "$out/gvbin"
gvc=$(ldd "$gp" | awk '/libgvc\.so/ {print $3; exit}')
real=$(dirname "$(readlink -f "$gvc")")/graphviz
[ -f "$real/config6a" ] || { echo "skip: no Graphviz plugin registry at $real"; exit 77; }
name=$(awk '$2 == "cairo" && $3 == "{" {print $1; exit}' "$real/config6a")
[ -n "$name" ] || { echo "skip: this Graphviz has no cairo/pango plugin"; exit 77; }
for f in "$real"/*; do ln -s "$f" "$out/gvbin/"; done
rm "$out/gvbin/$name" && cp "$plugin" "$out/gvbin/$name"
export GVBINDIR=$out/gvbin
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
dot=$(ls "$dots"/*.dot | head -1)

"$gp" render "$dot" -o "$out/graph.svg" > "$out/render.out" 2> "$out/render.err"
rc=$?
if [ $rc = 0 ] && grep -q "<svg" "$out/graph.svg" && grep -q "core SVG renderer" "$out/render.err"; then
  ok "render -o graph.svg: drawn by the core SVG renderer, and said so"
else bad "render -o graph.svg: exit $rc: $(head -c 400 "$out/render.err")"; fi

"$gp" report "$report" --dot-dir "$dots" -o "$out/page.html" > "$out/report.out" 2>&1
rc=$?
pictures=$(grep -c 'class="gp-graph-svg"' "$out/page.html" 2>/dev/null)
if [ $rc = 0 ] && [ "${pictures:-0}" -ge 1 ] && ! grep -q "layout failed\|cannot draw" "$out/page.html" &&
   grep -q "drawn by Graphviz&#39;s core SVG renderer\|drawn by Graphviz's core SVG renderer" "$out/page.html"; then
  ok "report -o page.html: $pictures pictures, no Graphviz error in their place"
else bad "report -o page.html: exit $rc, ${pictures:-0} pictures: $(grep -o 'cannot draw.\{0,200\}' "$out/page.html" | head -1)"; fi
exit $fail
