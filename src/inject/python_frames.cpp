// CPython frames through the interpreter's exported C API (python_frames.hpp).
//
// Only functions of the stable, exported API are used, looked up with dlsym(RTLD_DEFAULT): the
// python executable exports them, and an embedding program that loaded libpython globally does
// too. The stack is read only when PyGILState_Check() says this thread holds the GIL (the
// interpreter's state cannot change under us then); frames come from
// PyGILState_GetThisThreadState + PyThreadState_GetFrame (3.9+) and PyFrame_GetBack/GetCode (new
// references, released with Py_DecRef). Names come from the code object's co_filename and
// co_qualname (co_name before 3.11) attributes, read with any pending exception saved and restored.
#include "python_frames.hpp"

#include <dlfcn.h>

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
  Obj (*get_attr)(Obj, const char*) = nullptr;
  const char* (*utf8)(Obj) = nullptr;
  void (*dec_ref)(Obj) = nullptr;
  void (*err_fetch)(Obj*, Obj*, Obj*) = nullptr;
  void (*err_restore)(Obj, Obj, Obj) = nullptr;
  void (*err_clear)() = nullptr;
  bool complete() const {
    return is_initialized && gil_check && this_thread_state && thread_frame && frame_back && frame_code && frame_line &&
           get_attr && utf8 && dec_ref && err_fetch && err_restore && err_clear;
  }
};

template <typename F>
void find(F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

std::atomic<const PyApi*> g_api{nullptr};
int g_lookups = 0;  // under the lookup's mutex

const PyApi* api() { return g_api.load(std::memory_order_acquire); }

}  // namespace

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
  find(p->get_attr, "PyObject_GetAttrString");
  find(p->utf8, "PyUnicode_AsUTF8");
  find(p->dec_ref, "Py_DecRef");
  find(p->err_fetch, "PyErr_Fetch");
  find(p->err_restore, "PyErr_Restore");
  find(p->err_clear, "PyErr_Clear");
  if (!p->complete()) {
    delete p;
    return false;
  }
  g_api.store(p, std::memory_order_release);
  return true;
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

bool python_present() { return api() != nullptr; }

std::size_t python_stack(PyFrameKey* frames, std::size_t max) {
  const PyApi* a = api();
  if (a == nullptr || max == 0) return 0;
  Obj f = top_frame(*a);
  std::size_t n = 0;
  while (f != nullptr && n < max) {
    Obj code = a->frame_code(f);
    frames[n].code = code;
    frames[n].line = a->frame_line(f);
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
  if (a == nullptr) return out;
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
      a->dec_ref(code);
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
