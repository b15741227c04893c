// The Python stack of an allocation made with the GIL released (alloc_python.hpp).
#include "alloc_python.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>

#include "native_stack.hpp"

namespace gp::inject {

namespace {

constexpr std::size_t kKeptMax = 16;

struct Kept {
  std::uint32_t correlation = 0;
  std::size_t n = 0;
  std::uintptr_t pcs[kComparedFrames];
};

// Per thread: allocated at the thread's first kept allocation, kept for the thread's life.
thread_local std::vector<Kept>* t_kept = nullptr;

// The interpreter module's load address (dli_fbase of PyGILState_Check); 1 while not found.
std::atomic<std::uintptr_t> g_interpreter_base{1};

std::uintptr_t interpreter_base() {
  std::uintptr_t base = g_interpreter_base.load(std::memory_order_relaxed);
  if (base != 1) return base;
  void* f = dlsym(RTLD_DEFAULT, "PyGILState_Check");
  Dl_info info{};
  if (f == nullptr || dladdr(f, &info) == 0) return 0;  // looked up again next time: an interpreter loaded later
  base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  g_interpreter_base.store(base, std::memory_order_relaxed);
  return base;
}

}  // namespace

std::size_t frames_shared_inside_interpreter(const std::uintptr_t* a, std::size_t na, const std::uintptr_t* b, std::size_t nb,
                                             bool (*in_interpreter)(std::uintptr_t)) {
  auto boundary = [&](const std::uintptr_t* s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      if (in_interpreter(s[i])) return i;
    return n;
  };
  const std::size_t ia = boundary(a, na), ib = boundary(b, nb);
  if (ia == na || ib == nb) return 0;
  // From the interpreter outwards: every frame both stacks have (one may be cut shorter).
  for (std::size_t j = 0; ia + j < na && ib + j < nb; ++j)
    if (a[ia + j] != b[ib + j]) return 0;
  std::size_t shared = 0;
  while (shared < ia && shared < ib && a[ia - 1 - shared] == b[ib - 1 - shared]) ++shared;
  return shared;
}

bool in_python_interpreter(std::uintptr_t pc) {
  const std::uintptr_t base = interpreter_base();
  if (base == 0) return false;
  Dl_info info{};
  return dladdr(reinterpret_cast<void*>(pc - 1), &info) != 0 && reinterpret_cast<std::uintptr_t>(info.dli_fbase) == base;
}

void keep_allocation_without_python(std::uint32_t correlation) {
  if (t_kept == nullptr) t_kept = new std::vector<Kept>();  // one per thread that allocates, never freed
  if (t_kept->size() >= kKeptMax) return;
  t_kept->emplace_back();
  Kept& k = t_kept->back();
  k.correlation = correlation;
  k.n = cached_native_stack(k.pcs, kComparedFrames);
}

bool allocations_kept() { return t_kept != nullptr && !t_kept->empty(); }

std::vector<std::uint32_t> allocations_of_this_python_call(std::size_t* shared) {
  std::vector<std::uint32_t> out;
  if (!allocations_kept()) return out;
  std::uintptr_t pcs[kComparedFrames];
  const std::size_t n = cached_native_stack(pcs, kComparedFrames);
  std::size_t least = 0;
  for (const Kept& k : *t_kept) {
    const std::size_t s = frames_shared_inside_interpreter(k.pcs, k.n, pcs, n, in_python_interpreter);
    if (s < kSameCallFrames) continue;
    least = out.empty() ? s : std::min(least, s);
    out.push_back(k.correlation);
  }
  t_kept->clear();
  if (shared != nullptr) *shared = least;
  return out;
}

}  // namespace gp::inject
