// The Python stack of the calling thread, when the process runs CPython and this thread holds the
// GIL: taken through the interpreter's own exported C API (found with dlsym; no Python headers,
// nothing imported, no Python code run). Used by call_site.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gp::inject {

// One frame as the key of a call site: the code object and the line being executed.
struct PyFrameKey {
  const void* code = nullptr;
  int line = 0;
};

struct PyFrameInfo {
  std::string file, function;
  int line = 0;
};

// Up to `max` frames of the calling thread, innermost first; 0 when there is no interpreter, it
// is not initialised, or this thread does not hold the GIL. Cheap enough for every launch call
// (no strings are made).
std::size_t python_stack(PyFrameKey* frames, std::size_t max);

// The same frames with file names and function names, for a stack seen for the first time (the
// GIL is still held: called right after python_stack in the same callback).
std::vector<PyFrameInfo> python_stack_named(std::size_t max);

// Looks the interpreter's API up (at initialisation, and again when a new call site is seen: an
// embedding program may load the interpreter after CUDA started; at most 64 tries). True once found.
bool look_up_python();
bool python_present();

}  // namespace gp::inject
