#!/bin/bash
# needed_libraries.sh GRAPHPROF: the binary must not need CUDA's shared libraries to start
# (CUPTI is loaded on first trace use, cudart is static, libcuda is dlopen'ed by cudart), and
# --version must work with CUPTI out of reach.
set -u
gp=$1
needed=$(readelf -d "$gp" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
status=0
for lib in $needed; do
  case $lib in
    *cupti*|libcuda.so*|libcudart*|*nvidia*|*nvToolsExt*|libnvrtc*) echo "FAIL: needs $lib"; status=1 ;;
  esac
done
# No CUDA toolkit folder on the library path: still starts.
out=$(env -u LD_LIBRARY_PATH LD_LIBRARY_PATH=/nonexistent-gp "$gp" --version) || { echo "FAIL: --version exited $?"; status=1; }
echo "$out"
grep -q '^graphprof ' <<<"$out" || status=1
exit $status
