// Call sites at known source lines for tests/unit/source_lines_test.cpp: built twice as a shared
// library, with debug information (-g -O0) and without (-g0), and loaded by the test with dlopen.
// Each exported function returns the return address of a call it makes, as a profiled program's
// stack would hold it. The test finds the expected lines by the MARKER comments, so moving code
// here does not break it.
#include <cstdint>

namespace fixture {

__attribute__((noinline)) std::uintptr_t return_address() { return reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)); }

// A C++ function (binutils' addr2line names a C-linkage function inlined there by its caller).
__attribute__((always_inline)) inline std::uintptr_t inlined_call() {
  return return_address();  // MARKER: inlined call
}

}  // namespace fixture

extern "C" {

__attribute__((visibility("default"))) std::uintptr_t fixture_direct() {
  return fixture::return_address();  // MARKER: direct call
}

__attribute__((visibility("default"))) std::uintptr_t fixture_through_inline() {
  return fixture::inlined_call();  // MARKER: inlined into
}

}  // extern "C"
