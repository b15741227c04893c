// How the driver-API functions libgraphprof_interpose.so defines (interpose_api.cpp) reach the
// programs that do not call them through the dynamic linker: a statically linked CUDA runtime
// (nvcc's default), the runtime that cuBLAS carries, CuPy, XLA and Triton open libcuda.so.1
// themselves and take the driver's functions with dlsym(handle, "cu...") or from
// cuGetProcAddress (which they also take with dlsym). The interposer defines dlsym and
// cuGetProcAddress(_v2): where what the real one returns is a driver function the interposer
// also defines, the caller gets the interposer's definition, which records the call and forwards
// it to the real one (docs/profile.md, "How the light default sees a program").
//
// Two callers get the real function: the interposer itself (its own look-ups of the real
// functions) and the shared CUDA runtime (libcudart.so), whose calls are recorded at the runtime's
// own functions: its driver calls through the interposer would be counted twice.
//
// dlsym answers relative to its caller for RTLD_DEFAULT and RTLD_NEXT, so the interposer's dlsym
// hands those two on to the real one by a jump (the caller's return address stays where the real
// one looks for it); only a look-up in a handle the caller opened is looked at. That takes a few
// instructions of assembly: on other machines than x86-64 the interposer defines no dlsym and sees
// only the driver calls that come through the dynamic linker and cuGetProcAddress.
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "interpose_core.hpp"

#define GP_EXPORT extern "C" __attribute__((visibility("default")))
#define GP_HIDDEN extern "C" __attribute__((visibility("hidden")))

namespace gp::interposer {
namespace {

using DlsymFn = void* (*)(void*, const char*);

// This library: its base address and a handle on it.
struct Self {
  const void* base = nullptr;
  void* handle = nullptr;
};
const Self& self() {
  static const Self s = [] {
    Self out;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&self), &info) != 0 && info.dli_fname != nullptr) {
      out.base = info.dli_fbase;
      out.handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    }
    return out;
  }();
  return s;
}

// GRAPHPROF_DEV_NO_DRIVER_LOOKUPS=1 (a developer switch): every look-up gets the real function
// (and a process without the shared runtime is then observed through CUPTI).
bool lookups_off() {
  static const bool off = [] {
    const char* v = std::getenv("GRAPHPROF_DEV_NO_DRIVER_LOOKUPS");
    return v != nullptr && *v == '1';
  }();
  return off;
}

// Whether a caller gets the interposer's functions: not the interposer itself, not the shared runtime.
bool hand_out_to(const void* caller) {
  if (lookups_off()) return false;
  Dl_info info{};
  if (caller == nullptr || dladdr(caller, &info) == 0) return true;
  if (info.dli_fbase == self().base) return false;
  const char* name = info.dli_fname != nullptr ? info.dli_fname : "";
  const char* base = std::strrchr(name, '/');
  base = base != nullptr ? base + 1 : name;
  return std::strncmp(base, "libcudart.so", 12) != 0;
}

bool driver_name(const char* name) {
  return name != nullptr && name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

std::atomic<std::uint64_t> g_handed_out{0};  // look-ups answered with the interposer's function



// The interposer's definition of `name`, where it defines one (not one of its dependencies').
void* own_definition(DlsymFn real_dlsym, const char* name) {
  const Self& s = self();
  if (s.handle == nullptr) return nullptr;
  void* own = real_dlsym(s.handle, name);
  Dl_info info{};
  if (own == nullptr || dladdr(own, &info) == 0 || info.dli_fbase != s.base) return nullptr;
  return own;
}

}  // namespace

DlsymFn real_dlsym_fn();  // below

// The interposer's function for a real driver function `real` that a look-up of `symbol` returned:
// found by the real function's exported names (dladdr's, and the requested name with the
// driver's version suffixes), each checked to be that very function in libcuda.
void* swapped(const char* symbol, void* real) {
  const DlsymFn real_dlsym = real_dlsym_fn();
  if (real == nullptr || real_dlsym == nullptr) return real;
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (cuda == nullptr) return real;
  std::string candidates[7];
  std::size_t n = 0;
  Dl_info info{};
  if (dladdr(real, &info) != 0 && info.dli_sname != nullptr && info.dli_saddr == real) candidates[n++] = info.dli_sname;
  if (symbol != nullptr)
    for (const char* suffix : {"", "_v2", "_v3", "_ptsz", "_v2_ptsz", "_ptds"}) candidates[n++] = std::string(symbol) + suffix;
  void* out = real;
  for (std::size_t i = 0; i < n && out == real; ++i) {
    if (!driver_name(candidates[i].c_str()) || real_dlsym(cuda, candidates[i].c_str()) != real) continue;
    if (void* own = own_definition(real_dlsym, candidates[i].c_str())) out = own;
  }
  dlclose(cuda);  // NOLOAD: only the reference just taken
  if (out != real) g_handed_out.fetch_add(1, std::memory_order_relaxed);
  return out;
}

std::uint64_t driver_functions_handed_out() { return g_handed_out.load(std::memory_order_relaxed); }

}  // namespace gp::interposer

using gp::interposer::DlsymFn;

// ---- dlsym ----
extern "C" {
// The real dlsym (glibc's), found with dlvsym; read by the assembly below. A sanitizer's runtime
// looks its functions up with dlsym while it starts, before it can check memory: the first call
// is not instrumented.
__attribute__((visibility("hidden"))) void* gp_real_dlsym = nullptr;
__attribute__((visibility("hidden"), no_sanitize("address", "undefined"))) void* gp_find_real_dlsym() {
  if (gp_real_dlsym == nullptr) {
    void* f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (f == nullptr) f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    __atomic_store_n(&gp_real_dlsym, f, __ATOMIC_RELEASE);
  }
  return gp_real_dlsym;
}
}

DlsymFn gp::interposer::real_dlsym_fn() { return reinterpret_cast<DlsymFn>(gp_find_real_dlsym()); }

// A look-up in a handle the caller opened (reached by a jump from dlsym below: the return address
// is the caller's).
GP_HIDDEN void* gp_dlsym_in_handle(void* handle, const char* name) {
  const DlsymFn real = gp::interposer::real_dlsym_fn();
  void* p = real != nullptr ? real(handle, name) : nullptr;
  if (p == nullptr || !gp::interposer::driver_name(name) || !gp::interposer::hand_out_to(__builtin_return_address(0))) return p;
  if (std::strncmp(name, "cuGetProcAddress", 16) == 0) {
    void* own = gp::interposer::own_definition(real, name);
    return own != nullptr ? own : p;
  }
  return gp::interposer::swapped(name, p);
}

#if defined(__x86_64__)
// dlsym(handle, name): RTLD_DEFAULT (0) and RTLD_NEXT (-1) jump to the real dlsym, any other
// handle to gp_dlsym_in_handle; the real one is found first where not yet known (the arguments
// kept across that call).
asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
dlsym:
  mov gp_real_dlsym(%rip), %rax
  test %rax, %rax
  jnz 1f
  push %rdi
  push %rsi
  sub $8, %rsp
  call gp_find_real_dlsym
  add $8, %rsp
  pop %rsi
  pop %rdi
  test %rax, %rax
  jz 3f
1:
  test %rdi, %rdi
  je 2f
  cmp $-1, %rdi
  je 2f
  jmp gp_dlsym_in_handle
2:
  jmp *%rax
3:
  xor %eax, %eax
  ret
  .size dlsym, .-dlsym
)");
GP_EXPORT int graphprof_interpose_sees_dlsym(void) {
  return gp_find_real_dlsym() != nullptr && !gp::interposer::lookups_off() ? 1 : 0;
}
#else
GP_EXPORT int graphprof_interpose_sees_dlsym(void) { return 0; }
#endif

// ---- cuGetProcAddress: the driver functions it returns, swapped where the interposer defines them ----
using gp::interposer::Err;
GP_EXPORT Err cuGetProcAddress_v2(const char* symbol, void** pfn, int version, unsigned long long flags, void* status) {
  using Fn = Err (*)(const char*, void**, int, unsigned long long, void*);
  static const auto real = gp::interposer::real_fn<Fn>("cuGetProcAddress_v2", true);
  if (real == nullptr) return gp::interposer::kNotFound;
  const Err r = real(symbol, pfn, version, flags, status);
  if (r == 0 && pfn != nullptr && *pfn != nullptr && gp::interposer::hand_out_to(__builtin_return_address(0)))
    *pfn = gp::interposer::swapped(symbol, *pfn);
  return r;
}
GP_EXPORT Err cuGetProcAddress(const char* symbol, void** pfn, int version, unsigned long long flags) {
  using Fn = Err (*)(const char*, void**, int, unsigned long long);
  static const auto real = gp::interposer::real_fn<Fn>("cuGetProcAddress", true);
  if (real == nullptr) return gp::interposer::kNotFound;
  const Err r = real(symbol, pfn, version, flags);
  if (r == 0 && pfn != nullptr && *pfn != nullptr && gp::interposer::hand_out_to(__builtin_return_address(0)))
    *pfn = gp::interposer::swapped(symbol, *pfn);
  return r;
}

// For the injection library: how many look-ups were answered with the interposer's functions.
GP_EXPORT unsigned long long graphprof_interpose_driver_handed_out(void) { return gp::interposer::driver_functions_handed_out(); }
