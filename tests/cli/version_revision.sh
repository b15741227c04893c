#!/bin/bash
# graphprof --version names the revision the binary was built from: the tree's `git describe` now
# (the build writes it at every build, not only when CMake configured). Skipped (77) without git
# or .git (a copy of the tree; the revision is then the one given with -DGRAPHPROF_REVISION).
set -uo pipefail
bin=$1 src=$2
command -v git >/dev/null && [ -e "$src/.git" ] || { echo "no git checkout: skipped"; exit 77; }
want=$(git -C "$src" describe --always --dirty --abbrev=12 2>/dev/null) || { echo "git describe failed: skipped"; exit 77; }
got=$("$bin" --version)
case "$got" in
  *"($want)"*) echo "ok: $got"; exit 0 ;;
  *) echo "FAIL: graphprof --version says '$got'; the tree is at $want (build again: the revision is written at every build)"; exit 1 ;;
esac
