#!/bin/bash
# No product file reaches another folder by a relative include (`#include "../...`): the layer
# check (the build's include paths per layer) cannot see such an include, so a layer could call
# upward through it unnoticed. Usage: no_parent_includes.sh SOURCE_ROOT
root=${1:?usage: no_parent_includes.sh SOURCE_ROOT}
found=$(grep -rn --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.h' '#include "\.\./' "$root/src" || true)
if [ -n "$found" ]; then
  echo "relative includes that leave their folder (give the target an include directory instead):"
  echo "$found"
  exit 1
fi
echo "no relative parent includes in $root/src"
