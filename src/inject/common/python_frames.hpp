// The Python stack of the calling thread, when the process runs CPython: taken through the
// interpreter's own exported C API (found with dlsym; no Python headers, nothing imported, no
// Python code run). Used by call_site.cpp.
//
// A thread may read its stack while it holds the GIL. PyTorch releases the GIL around its
// operators, so the thread that launches a kernel usually does not hold it: then, when the thread
// is a Python thread (it has a thread state) and the interpreter is not finalising, the GIL is
// taken for the read (PyGILState_Ensure ... PyGILState_Release), as PyTorch's own memory-history
// recorder does from its allocator. PythonMode::kHeld never takes it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gp::inject {

// GRAPHPROF_PROFILE_SITES: on (kTake), held (kHeld), native or off (kOff: no Python frames).
enum class PythonMode { kOff, kHeld, kTake };
void set_python_mode(PythonMode mode);
PythonMode python_mode();

// One frame as the key of a call site: the code object and where in it the frame is: the
// instruction offset (PyFrame_GetLasti, 3.11+: read in constant time) or, before 3.11, the line
// (PyFrame_GetLineNumber decodes the code's line table up to the instruction on every call).
struct PyFrameKey {
  const void* code = nullptr;
  int at = 0;
};

struct PyFrameInfo {
  std::string file, function;
  int line = 0;
};

// Makes the calling thread's Python stack readable for the scope's life, when it can be: the
// thread holds the GIL, or (kTake, `may_take`) the GIL is taken here and given back at the end of
// the scope. Nothing of this library that waits for the GIL's holder may run inside the scope.
class PythonScope {
 public:
  explicit PythonScope(bool may_take);
  ~PythonScope();
  PythonScope(const PythonScope&) = delete;
  PythonScope& operator=(const PythonScope&) = delete;
  bool readable() const { return readable_; }

 private:
  bool readable_ = false;
  bool taken_ = false;
  int state_ = 0;  // PyGILState_STATE
};

// Up to `max` frames of the calling thread, innermost first, inside a readable PythonScope; 0
// otherwise. Cheap enough for every launch call (no strings are made).
std::size_t python_stack(PyFrameKey* frames, std::size_t max);

// The same frames with file names and function names, for a stack seen for the first time (inside
// the same scope). The code objects of the frames are kept alive from then on, so that the code
// pointers of a known site's key are never reused by other code.
std::vector<PyFrameInfo> python_stack_named(std::size_t max);

// Looks the interpreter's API up (at initialisation, and again when a new call site is seen: an
// embedding program may load the interpreter after CUDA started; at most 64 tries). True once found.
bool look_up_python();
bool python_present();

// Whether the calling thread is one the interpreter runs (it has a thread state), whether or not it
// holds the GIL now; false on CUDA's, NCCL's, a C++ worker's or PyTorch's autograd threads, whose
// stacks never have Python frames.
bool python_thread();

// How the stacks were read, for the `py` line: calls read with the GIL held, calls for which it
// was taken, the time spent waiting for it, waits over 1 ms, whether taking stopped (after 16
// slow waits: another thread keeps the GIL busy), whether it could be taken at all (the
// interpreter exports PyGILState_Ensure and Py_IsFinalizing or _Py_IsFinalizing).
struct PythonStats {
  std::uint64_t held = 0, taken = 0, wait_ns = 0, slow = 0;
  bool stopped = false, can_take = false;
};
PythonStats python_stats();

}  // namespace gp::inject
