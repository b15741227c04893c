// CPython frames through the interpreter's exported C API (python_frames.hpp).
//
// Only exported functions of the C API are used, looked up with dlsym(RTLD_DEFAULT): the python
// executable exports them, and an embedding program that loaded libpython globally does too.
// Frames come from PyGILState_GetThisThreadState + PyThreadState_GetFrame (3.9+) and
// PyFrame_GetBack/GetCode (new references, released with Py_DecRef). Names come from the code
// object's co_filename and co_qualname (co_name before 3.11) attributes, read with any pending
// exception saved and restored.
//
// The stack is read only while this thread holds the GIL: it held it already (PyGILState_Check),
// or it is a Python thread that released it around the CUDA call and the GIL is taken for the read
// (PyGILState_Ensure/Release). The GIL is not taken when the interpreter is finalising (a thread
// that takes the GIL then is stopped by the interpreter: Py_IsFinalizing, 3.13+, or
// _Py_IsFinalizing before; with neither exported it is never taken), on a thread without a thread
// state (a thread the interpreter never ran: CUDA's, NCCL's, a C++ worker's), nor after 16 waits
// for it of over 1 ms (another thread keeps it busy: taking it would slow the application down).
#include "python_frames.hpp"

#include <dlfcn.h>
#include <time.h>

#include <atomic>
#include <mutex>

namespace gp::inject {

namespace {

using Obj = void*;

struct PyApi {
  int (*is_initialized)() = nullptr;
  int (*gil_check)() = nullptr;
  Obj (*this_thread_state)() = nullptr;
  Obj (*thread_frame)(Obj) = nullptr;  // new reference
  Obj (*frame_back)(Obj) = nullptr;    // new reference
  Obj (*frame_code)(Obj) = nullptr;    // new reference
  int (*frame_line)(Obj) = nullptr;
  int (*frame_lasti)(Obj) = nullptr;  // optional (3.11+): the key's position without the line table
  Obj (*get_attr)(Obj, const char*) = nullptr;
  const char* (*utf8)(Obj) = nullptr;
  void (*dec_ref)(Obj) = nullptr;
  void (*err_fetch)(Obj*, Obj*, Obj*) = nullptr;
  void (*err_restore)(Obj, Obj, Obj) = nullptr;
  void (*err_clear)() = nullptr;
  // Optional: taking the GIL (PyGILState_STATE is an enum, passed as an int).
  int (*gil_ensure)() = nullptr;
  void (*gil_release)(int) = nullptr;
  int (*is_finalizing)() = nullptr;
  bool complete() const {
    return is_initialized && gil_check && this_thread_state && thread_frame && frame_back && frame_code && frame_line &&
           get_attr && utf8 && dec_ref && err_fetch && err_restore && err_clear;
  }
  bool can_take() const { return gil_ensure && gil_release && is_finalizing; }
};

template <typename F>
void find(F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

std::atomic<const PyApi*> g_api{nullptr};
int g_lookups = 0;  // under the lookup's mutex
std::atomic<PythonMode> g_mode{PythonMode::kTake};

constexpr std::uint64_t kSlowWaitNs = 1000000;  // a wait for the GIL over 1 ms is slow
constexpr std::uint64_t kSlowWaitsBeforeStop = 16;
std::atomic<std::uint64_t> g_held{0}, g_taken{0}, g_wait_ns{0}, g_slow{0};
std::atomic<bool> g_stopped{false};

const PyApi* api() { return g_api.load(std::memory_order_acquire); }

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace

void set_python_mode(PythonMode mode) { g_mode.store(mode); }
PythonMode python_mode() { return g_mode.load(); }

bool look_up_python() {
  if (api() != nullptr) return true;
  static std::mutex mu;
  std::unique_lock<std::mutex> lock(mu, std::try_to_lock);
  if (!lock.owns_lock() || ++g_lookups > 64) return false;
  auto* p = new PyApi;  // kept for the life of the process
  find(p->is_initialized, "Py_IsInitialized");
  find(p->gil_check, "PyGILState_Check");
  find(p->this_thread_state, "PyGILState_GetThisThreadState");
  find(p->thread_frame, "PyThreadState_GetFrame");
  find(p->frame_back, "PyFrame_GetBack");
  find(p->frame_code, "PyFrame_GetCode");
  find(p->frame_line, "PyFrame_GetLineNumber");
  find(p->frame_lasti, "PyFrame_GetLasti");
  find(p->get_attr, "PyObject_GetAttrString");
  find(p->utf8, "PyUnicode_AsUTF8");
  find(p->dec_ref, "Py_DecRef");
  find(p->err_fetch, "PyErr_Fetch");
  find(p->err_restore, "PyErr_Restore");
  find(p->err_clear, "PyErr_Clear");
  find(p->gil_ensure, "PyGILState_Ensure");
  find(p->gil_release, "PyGILState_Release");
  find(p->is_finalizing, "Py_IsFinalizing");
  if (p->is_finalizing == nullptr) find(p->is_finalizing, "_Py_IsFinalizing");
  if (!p->complete()) {
    delete p;
    return false;
  }
  g_api.store(p, std::memory_order_release);
  return true;
}

bool python_present() { return api() != nullptr; }

bool python_thread() {
  const PyApi* a = api();
  return a != nullptr && a->is_initialized() && a->this_thread_state() != nullptr;
}

PythonScope::PythonScope(bool may_take) {
  const PyApi* a = api();
  const PythonMode mode = g_mode.load(std::memory_order_relaxed);
  if (a == nullptr || mode == PythonMode::kOff || !a->is_initialized()) return;
  // Finalising: module state is being torn down and a thread that takes the GIL is stopped.
  if (a->is_finalizing != nullptr && a->is_finalizing()) return;
  if (a->gil_check()) {
    readable_ = true;
    g_held.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (!may_take || mode != PythonMode::kTake || !a->can_take() || g_stopped.load(std::memory_order_relaxed)) return;
  if (a->this_thread_state() == nullptr) return;  // not a thread the interpreter ran
  const std::uint64_t t0 = monotonic_ns();
  state_ = a->gil_ensure();
  const std::uint64_t waited = monotonic_ns() - t0;
  taken_ = readable_ = true;
  g_taken.fetch_add(1, std::memory_order_relaxed);
  g_wait_ns.fetch_add(waited, std::memory_order_relaxed);
  if (waited > kSlowWaitNs && g_slow.fetch_add(1, std::memory_order_relaxed) + 1 >= kSlowWaitsBeforeStop)
    g_stopped.store(true, std::memory_order_relaxed);
}

PythonScope::~PythonScope() {
  if (taken_) api()->gil_release(state_);
}

PythonStats python_stats() {
  PythonStats s;
  s.held = g_held.load();
  s.taken = g_taken.load();
  s.wait_ns = g_wait_ns.load();
  s.slow = g_slow.load();
  s.stopped = g_stopped.load();
  const PyApi* a = api();
  s.can_take = a != nullptr && a->can_take();
  return s;
}

namespace {

// The innermost frame (a new reference) when this thread may read the interpreter's state.
Obj top_frame(const PyApi& a) {
  if (!a.is_initialized() || !a.gil_check()) return nullptr;
  Obj ts = a.this_thread_state();
  return ts != nullptr ? a.thread_frame(ts) : nullptr;
}

std::string attr_text(const PyApi& a, Obj obj, const char* name) {
  Obj v = a.get_attr(obj, name);
  if (v == nullptr) {
    a.err_clear();
    return {};
  }
  const char* s = a.utf8(v);
  std::string out = s != nullptr ? s : "";
  if (s == nullptr) a.err_clear();
  a.dec_ref(v);
  return out;
}

}  // namespace

std::size_t python_stack(PyFrameKey* frames, std::size_t max) {
  const PyApi* a = api();
  if (a == nullptr || max == 0 || g_mode.load(std::memory_order_relaxed) == PythonMode::kOff) return 0;
  Obj f = top_frame(*a);
  std::size_t n = 0;
  while (f != nullptr && n < max) {
    Obj code = a->frame_code(f);
    frames[n].code = code;
    frames[n].at = a->frame_lasti != nullptr ? a->frame_lasti(f) : a->frame_line(f);
    ++n;
    if (code != nullptr) a->dec_ref(code);  // the frame still holds it: the pointer stays valid as a key
    Obj back = a->frame_back(f);
    a->dec_ref(f);
    f = back;
  }
  if (f != nullptr) a->dec_ref(f);
  return n;
}

std::vector<PyFrameInfo> python_stack_named(std::size_t max) {
  std::vector<PyFrameInfo> out;
  const PyApi* a = api();
  if (a == nullptr || g_mode.load(std::memory_order_relaxed) == PythonMode::kOff) return out;
  Obj f = top_frame(*a);
  if (f == nullptr) return out;
  Obj type = nullptr, value = nullptr, trace = nullptr;
  a->err_fetch(&type, &value, &trace);  // the attribute reads must not see (or clear) the caller's exception
  while (f != nullptr && out.size() < max) {
    PyFrameInfo info;
    info.line = a->frame_line(f);
    if (Obj code = a->frame_code(f)) {
      info.file = attr_text(*a, code, "co_filename");
      info.function = attr_text(*a, code, "co_qualname");
      if (info.function.empty()) info.function = attr_text(*a, code, "co_name");
      // The reference is kept: this code object stays alive, so no other code takes its address
      // (part of the site key) later. One reference per frame of each distinct site.
    }
    out.push_back(std::move(info));
    Obj back = a->frame_back(f);
    a->dec_ref(f);
    f = back;
  }
  if (f != nullptr) a->dec_ref(f);
  a->err_restore(type, value, trace);
  return out;
}

}  // namespace gp::inject
