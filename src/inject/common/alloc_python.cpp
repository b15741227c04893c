// The Python stack of an allocation made with the GIL released (alloc_python.hpp).
#include "alloc_python.hpp"

#include <dlfcn.h>
#include <link.h>

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

// The address range of the interpreter module's loaded segments (the module of PyGILState_Check),
// found once; [0, 0) while no interpreter is loaded (looked up again at the next call).
std::atomic<std::uintptr_t> g_interpreter_lo{0}, g_interpreter_hi{0};

struct Range {
  std::uintptr_t at = 0, lo = 0, hi = 0;  // `at`: an address of the module sought
};

// dl_iterate_phdr's callback: the loaded segments' range of the module one of whose segments
// holds `at`.
int segments_of(dl_phdr_info* info, std::size_t, void* data) {
  auto* r = static_cast<Range*>(data);
  std::uintptr_t lo = 0, hi = 0;
  bool holds = false;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t from = info->dlpi_addr + ph.p_vaddr, to = from + ph.p_memsz;
    lo = lo == 0 ? from : std::min(lo, from);
    hi = std::max(hi, to);
    holds = holds || (r->at >= from && r->at < to);
  }
  if (!holds) return 0;
  r->lo = lo, r->hi = hi;
  return 1;
}

bool interpreter_range(std::uintptr_t& lo, std::uintptr_t& hi) {
  lo = g_interpreter_lo.load(std::memory_order_acquire);
  hi = g_interpreter_hi.load(std::memory_order_acquire);
  if (hi != 0) return true;
  void* f = dlsym(RTLD_DEFAULT, "PyGILState_Check");
  if (f == nullptr) return false;
  Range r;
  r.at = reinterpret_cast<std::uintptr_t>(f);
  if (dl_iterate_phdr(segments_of, &r) == 0) return false;
  lo = r.lo, hi = r.hi;
  g_interpreter_lo.store(lo, std::memory_order_release);
  g_interpreter_hi.store(hi, std::memory_order_release);
  return true;
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
  std::uintptr_t lo = 0, hi = 0;
  return interpreter_range(lo, hi) && pc - 1 >= lo && pc - 1 < hi;
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
