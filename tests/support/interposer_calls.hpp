// What the tests of the interposer (tests/unit/interpose_load_test.cpp, interpose_capture_test.cpp)
// and its stand-in runtime (tests/support/fake_cudart.cpp) share: the interposer's own dim3, so
// that a launch is called through a pointer of the type it is defined with (UBSan's function check
// compares the types by name), its calls' pointer types, and a line writer that keeps what the
// interposer writes.
#pragma once
#include <cstddef>
#include <mutex>
#include <string>

namespace gp::interposer {
struct Dim3 {  // the same as src/inject/interpose/interpose_core.hpp's
  unsigned x, y, z;
};
}  // namespace gp::interposer

namespace gp::interpose {
struct Hooks;  // src/inject/common/interpose_records.hpp's (the tests pass none)
}  // namespace gp::interpose

namespace gp::interposer_test {

using LaunchFn = int (*)(const void*, gp::interposer::Dim3, gp::interposer::Dim3, void**, std::size_t, void*);
using WriteFn = int (*)(const char*, std::size_t, int);
using BeginFn = int (*)(WriteFn, const char* dir, int dump_dot, const gp::interpose::Hooks* hooks);  // graphprof_interpose_begin
using EndFn = void (*)(int may_wait);                             // graphprof_interpose_end

// The lines the interposer wrote (collect is its WriteFn; the application's threads, the writer and
// the window switch call it, as they call the injection's writer: under a lock). Read them once
// the interposer has ended.
inline std::mutex& lines_mutex() {
  static std::mutex m;
  return m;
}
inline std::string& lines() {
  static std::string s;
  return s;
}
inline int collect(const char* data, std::size_t size, int) {
  const std::lock_guard<std::mutex> lock(lines_mutex());
  lines().append(data, size);
  return 1;
}

}  // namespace gp::interposer_test
