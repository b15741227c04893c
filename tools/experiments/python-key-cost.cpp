// python-key-cost: what reading a call site's Python key costs (src/inject/common/python_frames.cpp,
// python_stack) at a given depth in functions of a given length, once through an embedded
// interpreter's own thread holding the GIL and once with the GIL released (taken for the read).
// The key's position is the instruction offset (PyFrame_GetLasti); build a second copy with that
// look-up renamed to see the cost of the line number (PyFrame_GetLineNumber decodes the line table).
// A developer tool, not part of the build:
//   g++ -O2 -std=c++17 -Isrc/inject tools/experiments/python-key-cost.cpp src/inject/common/python_frames.cpp -o key_cost -ldl -rdynamic
//   sed 's/"PyFrame_GetLasti"/"none"/' src/inject/common/python_frames.cpp > /tmp/pf_line.cpp
//   g++ -O2 -std=c++17 -Isrc/inject tools/experiments/python-key-cost.cpp /tmp/pf_line.cpp -o key_cost_line -ldl -rdynamic
//   ./key_cost [DEPTH] [STATEMENTS]        (default 24 frames of 200-statement functions)
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "python_frames.hpp"

extern "C" __attribute__((visibility("default"))) void gp_key_cost(int n) {
  using Clock = std::chrono::steady_clock;
  gp::inject::PyFrameKey keys[48];
  std::size_t depth = 0;
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    const gp::inject::PythonScope scope(true);
    depth = gp::inject::python_stack(keys, 48);
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / n;
  std::printf("python-key-cost: %zu frames: %.0f ns per key\n", depth, ns);
}

int main(int argc, char** argv) {
  const int depth = argc > 1 ? std::atoi(argv[1]) : 24;
  const int statements = argc > 2 ? std::atoi(argv[2]) : 200;
  void* lib = nullptr;
  for (int minor = 14; minor >= 9 && lib == nullptr; --minor)
    lib = dlopen(("libpython3." + std::to_string(minor) + ".so.1.0").c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "python-key-cost: no libpython3 found\n");
    return 4;
  }
  auto init = reinterpret_cast<void (*)(int)>(dlsym(lib, "Py_InitializeEx"));
  auto run = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "PyRun_SimpleString"));
  if (init == nullptr || run == nullptr) return 4;
  init(0);
  if (!gp::inject::look_up_python()) return 4;
  // A recursion of `depth` frames of a function with `statements` statements before its call.
  std::string program = "import ctypes\nheld = ctypes.PyDLL(None)\nreleased = ctypes.CDLL(None)\ndef f(k, probe):\n";
  for (int i = 0; i < statements; ++i) program += "    x" + std::to_string(i) + " = k + " + std::to_string(i) + "\n";
  program += "    if k == 0:\n        probe(20000)\n        return\n    f(k - 1, probe)\n";
  program += "print('python-key-cost: GIL held by the caller')\nf(" + std::to_string(depth) + ", held.gp_key_cost)\n";
  program += "print('python-key-cost: GIL released (taken for each read)')\nf(" + std::to_string(depth) + ", released.gp_key_cost)\n";
  return run(program.c_str());
}
