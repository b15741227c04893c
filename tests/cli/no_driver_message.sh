#!/bin/bash
# On a machine without any NVIDIA driver, `info` and `run` say so (exit 4), rather than the CUDA
# runtime's "CUDA driver version is insufficient", which sent people after a driver update.
# Usage: no_driver_message.sh GRAPHPROF. Skips (77) where a driver is installed.
set -u
bin=$1
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' || [ -e /usr/lib/wsl/lib/libcuda.so.1 ]; then
  echo "a driver (libcuda.so.1) is installed here: nothing to check"
  exit 77
fi
fail=0
for cmd in info "run --workload chain"; do
  # shellcheck disable=SC2086
  out=$("$bin" $cmd 2>&1); rc=$?
  if [ "$rc" != 4 ] || ! grep -q "^graphprof: no usable CUDA device or driver found (cudaErrorInsufficientDriver: no NVIDIA driver is installed" <<<"$out"; then
    echo "FAIL: graphprof $cmd -> exit $rc: $out"
    fail=1
  fi
done
exit $fail
