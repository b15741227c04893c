// The Python stack of a device allocation made where the thread had released the GIL (PyTorch's
// operators release it before dispatch, and the GIL is never taken in an allocation's callback:
// call_site.cpp). Used by call_site.cpp; no CUDA, CUPTI or Python calls here.
//
// The allocation's native stack is kept on its thread. At that thread's next call whose Python
// stack is read (a kernel launch or copy: the GIL taken then), the two native stacks are compared
// where they enter the interpreter: when every interpreter frame both have is the same and at
// least kSameCallFrames frames just inside the interpreter are too, both calls were made inside
// one call from Python into the same native function (an operator that allocated its output,
// then launched its kernel), and the allocation gets that call's Python stack. Any other call
// whose Python stack is read drops what its thread kept: the allocation keeps native frames only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gp::inject {

// Frames just inside the interpreter that two stacks must share to count as one call from Python.
constexpr std::size_t kSameCallFrames = 3;

// Stacks `a` and `b` (return addresses, innermost first) aligned at their innermost frame for
// which `in_interpreter` is true: 0 when either has none or a frame both have from there outwards
// differs; else how many frames just inside it (towards the innermost) are the same in both.
std::size_t frames_shared_inside_interpreter(const std::uintptr_t* a, std::size_t na, const std::uintptr_t* b, std::size_t nb,
                                             bool (*in_interpreter)(std::uintptr_t));

// Whether `pc` lies in the module that exports the interpreter's C API (the python executable or
// libpython); false when none is loaded.
bool in_python_interpreter(std::uintptr_t pc);

// How deep the stacks compared are taken (PyTorch's allocations lie about 40 frames inside the
// interpreter, its launches through cuBLAS about as deep).
constexpr std::size_t kComparedFrames = 72;

// An allocation call whose site has no Python frames: its native stack is taken (kComparedFrames)
// and kept on the calling thread (up to 16 allocations).
void keep_allocation_without_python(std::uint32_t correlation);
bool allocations_kept();  // on this thread

// In a call whose Python stack was read: the correlation ids of this thread's kept allocations
// made inside the same call from Python (their Python stack is this call's), `shared` the
// frames in common (frames_shared_inside_interpreter). Takes this call's native stack itself and
// forgets everything the thread kept.
std::vector<std::uint32_t> allocations_of_this_python_call(std::size_t* shared = nullptr);

}  // namespace gp::inject
