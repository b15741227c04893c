#!/bin/bash
# The layers' libraries call only downward: every graphprof symbol (namespace gp) that a layer's
# library leaves undefined must be defined by that library or by a layer it links. The include
# folders already keep a layer from seeing a higher layer's headers; this catches a declaration
# written again by hand in a lower layer. Argument: the file cmake/GraphprofLayers.cmake writes,
# one line per library: <name> <archive> <names of the layers it may use>...
set -euo pipefail
spec=$1
declare -A archive
while read -r name file _; do archive[$name]=$file; done <"$spec"
gp_symbols() {  # $1: nm option (--defined-only or --undefined-only), $2: archive
  nm -C --no-sort "$1" "$2" 2>/dev/null | sed -nE 's/^ *([0-9a-f]+ )?[A-Za-z] //p' |
    grep -E '^((vtable|typeinfo|typeinfo name) for )?gp::' | sort -u || true
}
status=0
while read -r name file deps; do
  defined=$(gp_symbols --defined-only "$file"
            for d in $deps; do gp_symbols --defined-only "${archive[$d]}"; done)
  missing=$(comm -23 <(gp_symbols --undefined-only "$file") <(sort -u <<<"$defined"))
  if [ -n "$missing" ]; then
    echo "graphprof_$name uses what none of its layers ($deps) defines:"
    sed 's/^/  /' <<<"$missing" | head -20
    status=1
  else
    echo "graphprof_$name: calls only itself and $deps"
  fi
done <"$spec"
exit $status
