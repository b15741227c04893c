#!/bin/bash
# The sanitizer and fuzzing step of CI (after scripts/test.sh): builds build-sanitize/ with clang,
# ASan+UBSan for the host C++ code (GRAPHPROF_SANITIZE) and the libFuzzer targets of tests/fuzz/
# (GRAPHPROF_BUILD_FUZZERS), runs the host-only CPU tests (target core_tests) under the sanitizers,
# then every fuzz target for GRAPHPROF_FUZZ_SECONDS (default 60) on its committed seed corpus.
#   scripts/sanitize.sh              everything
#   scripts/sanitize.sh --tests      only the sanitized tests
#   scripts/sanitize.sh --fuzz       only the fuzz runs
# Needs clang with the compiler-rt runtimes (Debian: clang-14 libclang-rt-14-dev; installed when
# missing, as scripts/setup.sh does; GRAPHPROF_SKIP_APT=1 skips installing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-sanitize  # binaryDir of the "sanitize" preset
what=${1:-all}
export PATH=$PATH:/usr/local/cuda/bin

cxx=""
for c in clang++-14 clang++; do command -v "$c" >/dev/null && { cxx=$c; break; }; done
fuzzer_rt=$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null | head -1 || true)
if [ -z "$cxx" ] || [ -z "$fuzzer_rt" ]; then
  if [ "${GRAPHPROF_SKIP_APT:-0}" = 1 ]; then
    echo "sanitize: clang with libFuzzer not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 1
  fi
  echo "sanitize: installing clang-14 libclang-rt-14-dev"
  sudo_=(); [ "$(id -u)" = 0 ] || sudo_=(sudo -n)
  "${sudo_[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo_[@]}" apt-get install -y -qq clang-14 libclang-rt-14-dev >/dev/null
  cxx=clang++-14
fi

launch=()
command -v ccache >/dev/null && launch=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/CMakeCache.txt" ]; then
  # The "sanitize" preset (CMakePresets.json); only Hopper SASS: CUDA objects are linked, never run.
  (cd "$root" && cmake --preset sanitize "${launch[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
    -DGRAPHPROF_FUZZ_SECONDS="${GRAPHPROF_FUZZ_SECONDS:-60}")
elif [ -n "${GRAPHPROF_FUZZ_SECONDS:-}" ]; then
  cmake -S "$root" -B "$build" -DGRAPHPROF_FUZZ_SECONDS="$GRAPHPROF_FUZZ_SECONDS" >/dev/null
fi

# UB and leaks fail the test; CUDA (on a GPU machine) needs the shadow gap unprotected.
# intercept_tls_get_addr=0: up to LLVM 16 the runtime's __tls_get_addr interceptor can take a
# dynamic TLS block of a dlopen'ed library (libcupti, loaded by trace_cupti_conversion_test) for a
# pre-2.25 glibc header when the block happens to sit at that page offset; LeakSanitizer's tracer
# then segfaults at exit ("Tracer caught signal 11") after every test passed. Seen once in CI.
export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/fuzz/graphviz.lsan.supp}

status=0
if [ "$what" = all ] || [ "$what" = --tests ]; then
  cmake --build "$build" -j"$(nproc)" --target core_tests
  # The executables of core_tests (listed in core_tests.txt by tests/CMakeLists.txt), each run
  # whole; a failure prints its log.
  while read -r exe; do
    t=$(basename "$exe")
    if "$exe" --gtest_brief=1 >"$build/$t.log" 2>&1; then
      echo "sanitized $t: ok"
    else
      echo "sanitized $t: FAILED"; tail -40 "$build/$t.log"; status=1
    fi
  done <"$build/core_tests.txt"
fi
if [ "$what" = all ] || [ "$what" = --fuzz ]; then
  targets=$(cd "$root/tests/fuzz" && ls fuzz_*.cpp | sed 's/\.cpp$//')
  # shellcheck disable=SC2086
  cmake --build "$build" -j"$(nproc)" --target $targets
  # One at a time: each uses both cores' worth of memory checks; the summary lines go to the log.
  ctest --test-dir "$build" -L fuzz --output-on-failure -j1 || status=1
  grep -hE '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|Done [0-9]+ runs)' \
    "$build"/Testing/Temporary/LastTest.log 2>/dev/null || true
fi
exit $status
