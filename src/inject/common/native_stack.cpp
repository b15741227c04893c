// Unwinding and naming native frames (native_stack.hpp).
//
// Unwinding uses _Unwind_Backtrace (the tables in .eh_frame that C++ exceptions use; GCC and Clang
// emit them by default on x86-64 and AArch64), so it works without frame pointers. Naming a frame:
// dladdr1 gives the module and its load bias; the module's file is read once and its .symtab (or,
// in a stripped file, .dynsym) sorted, so static functions of an executable are named too (dladdr
// alone sees exported symbols only); names are demangled with the C++ ABI's demangler. The same
// read takes the module's identity (GNU build ID, size, modification time), which graphprof
// checks before it reads the file's debug information for file:line after the run.
#include "native_stack.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unwind.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "graphprof/core/elf_identity.hpp"

namespace gp::inject {

namespace {

struct Walk {
  std::uintptr_t* pcs;
  std::uintptr_t* sps;  // optional: each frame's stack pointer at its call (libgcc's _Unwind_GetCFA of
                        // a frame is the CFA of the frame it called, checked on x86-64)
  std::size_t n, max;
  int skip;
  bool hit_max = false;
};

_Unwind_Reason_Code on_frame(_Unwind_Context* ctx, void* arg) {
  auto* w = static_cast<Walk*>(arg);
  const std::uintptr_t pc = _Unwind_GetIP(ctx);
  if (pc == 0) return _URC_END_OF_STACK;
  if (w->skip > 0) {
    --w->skip;
    return _URC_NO_REASON;
  }
  if (w->sps != nullptr) w->sps[w->n] = _Unwind_GetCFA(ctx);
  w->pcs[w->n++] = pc;
  if (w->n >= w->max) {
    w->hit_max = true;
    return _URC_END_OF_STACK;
  }
  return _URC_NO_REASON;
}

// The learned frame sizes: (previous return address, return address) -> size of the frame that
// return address is in, and whether the stack ended after it.
struct Edge {
  std::uintptr_t size = 0;
  bool last = false;
};
std::mutex g_edges_mu;
std::unordered_map<std::uint64_t, Edge> g_edges;
std::atomic<std::uint64_t> g_full_unwinds{0};  // cached_native_stack calls that unwound fully

std::uint64_t edge_key(std::uintptr_t prev, std::uintptr_t pc) {
  return (static_cast<std::uint64_t>(prev) * 0x9e3779b97f4a7c15ull) ^ static_cast<std::uint64_t>(pc);
}

// This thread's stack: reads off it stay inside [low, high).
struct StackBounds {
  std::uintptr_t low = 0, high = 0;
};
const StackBounds& this_stack() {
  thread_local StackBounds b = [] {
    StackBounds s;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      std::size_t size = 0;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        s.low = reinterpret_cast<std::uintptr_t>(addr);
        s.high = s.low + size;
      }
      pthread_attr_destroy(&attr);
    }
    return s;
  }();
  return b;
}

struct Symbol {
  std::uintptr_t value, size;
  std::uint32_t name;  // offset in SymbolTable::strings
};

// One module's function symbols, sorted by address (relative to the load bias).
struct SymbolTable {
  std::vector<Symbol> symbols;
  std::string strings;
  ModuleIdentity identity;
};

// Maps a file read-only for the duration of one parse.
struct Mapping {
  const char* data = nullptr;
  std::size_t size = 0;
  std::int64_t mtime = 0;
  explicit Mapping(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* map = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (map != MAP_FAILED) {
        data = static_cast<const char*>(map);
        size = static_cast<std::size_t>(st.st_size);
        mtime = static_cast<std::int64_t>(st.st_mtime);
      }
    }
    ::close(fd);
  }
  ~Mapping() {
    if (data != nullptr) munmap(const_cast<char*>(data), size);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
};

// Reads the function symbols of an ELF64 file: .symtab when present, else .dynsym. Only the
// symbols and their names are kept; a file that is not a readable ELF64 gives an empty table.
std::unique_ptr<SymbolTable> load_symbols(const std::string& path) {
  auto table = std::make_unique<SymbolTable>();
  const Mapping file(path);
  if (file.data == nullptr || file.size < sizeof(Elf64_Ehdr)) return table;
  table->identity = ModuleIdentity{elf_build_id(file.data, file.size), file.size, file.mtime};
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(file.data);
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return table;
  if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
      eh->e_shoff + std::uint64_t{eh->e_shnum} * sizeof(Elf64_Shdr) > file.size)
    return table;
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(file.data + eh->e_shoff);
  const Elf64_Shdr* chosen = nullptr;
  for (unsigned want : {unsigned{SHT_SYMTAB}, unsigned{SHT_DYNSYM}}) {
    for (unsigned i = 0; i < eh->e_shnum && chosen == nullptr; ++i)
      if (sh[i].sh_type == want && sh[i].sh_link < eh->e_shnum) chosen = &sh[i];
    if (chosen != nullptr) break;
  }
  if (chosen == nullptr || chosen->sh_entsize != sizeof(Elf64_Sym)) return table;
  const Elf64_Shdr& str = sh[chosen->sh_link];
  if (chosen->sh_offset + chosen->sh_size > file.size || str.sh_offset + str.sh_size > file.size) return table;
  const char* strings = file.data + str.sh_offset;
  const auto* syms = reinterpret_cast<const Elf64_Sym*>(file.data + chosen->sh_offset);
  const std::size_t count = chosen->sh_size / sizeof(Elf64_Sym);
  for (std::size_t i = 0; i < count; ++i) {
    const int type = ELF64_ST_TYPE(syms[i].st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || syms[i].st_value == 0 || syms[i].st_shndx == SHN_UNDEF) continue;
    if (syms[i].st_name >= str.sh_size) continue;
    const char* name = strings + syms[i].st_name;
    const std::size_t len = strnlen(name, str.sh_size - syms[i].st_name);
    table->symbols.push_back(Symbol{syms[i].st_value, syms[i].st_size, static_cast<std::uint32_t>(table->strings.size())});
    table->strings.append(name, len);
    table->strings += '\0';
  }
  std::sort(table->symbols.begin(), table->symbols.end(),
            [](const Symbol& a, const Symbol& b) { return a.value != b.value ? a.value < b.value : a.size > b.size; });
  return table;
}

std::mutex g_tables_mu;
std::map<std::string, std::unique_ptr<SymbolTable>> g_tables;

const SymbolTable& symbols_of(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_tables_mu);
  auto& t = g_tables[path];
  if (!t) t = load_symbols(path);
  return *t;
}

std::string demangle(const char* name) {
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string s = out;
  std::free(out);
  return s;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Frames of graphprof's own library, of CUPTI and of the CUDA driver are how the callback was
// reached, not where the application called.
bool internal_module(const std::string& path) {
  // This code's own module when it is a shared library (the injection library); compiled into an
  // executable (a test), that executable is the application.
  static const std::string self = [] {
    Dl_info info{};
    link_map* lm = nullptr;
    if (dladdr1(reinterpret_cast<void*>(&native_stack), &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) == 0 ||
        lm == nullptr || lm->l_name == nullptr || lm->l_name[0] == '\0')
      return std::string();
    return std::string(lm->l_name);
  }();
  if (!self.empty() && path == self) return true;
  const std::string b = base_name(path);
  // The interposer (libgraphprof_interpose.so): its functions call the injection library for the site.
  return b.rfind("libcupti.so", 0) == 0 || b.rfind("libcuda.so", 0) == 0 || b.rfind("libgraphprof_interpose.so", 0) == 0;
}

}  // namespace

std::size_t native_stack(std::uintptr_t* pcs, std::size_t max) {
  if (max == 0) return 0;
  Walk w{pcs, nullptr, 0, max, 1};
  _Unwind_Backtrace(on_frame, &w);
  return w.n;
}

std::uint64_t full_unwinds() { return g_full_unwinds.load(std::memory_order_relaxed); }

__attribute__((noinline, no_sanitize_address)) std::size_t cached_native_stack(std::uintptr_t* pcs, std::size_t max) {
  if (max == 0) return 0;
#if defined(__x86_64__)
  constexpr std::size_t kMaxFrames = 64;
  max = std::min(max, kMaxFrames);
  // The CFA of this function: the caller's stack pointer at the call, the return address just below.
  const std::uintptr_t top = reinterpret_cast<std::uintptr_t>(__builtin_dwarf_cfa());
  const StackBounds& stack = this_stack();
  if (stack.high > stack.low) {
    std::lock_guard<std::mutex> lock(g_edges_mu);
    std::uintptr_t cfa = top, prev = 0;
    std::size_t n = 0;
    bool known = true;
    while (n < max) {
      const std::uintptr_t slot = cfa - sizeof(std::uintptr_t);
      if (slot < top - sizeof(std::uintptr_t) || slot + sizeof(std::uintptr_t) > stack.high) {
        known = false;
        break;
      }
      const std::uintptr_t pc = *reinterpret_cast<const std::uintptr_t*>(slot);
      auto it = g_edges.find(edge_key(prev, pc));
      if (it == g_edges.end()) {
        known = false;
        break;
      }
      pcs[n++] = pc;
      if (it->second.last) break;
      if (it->second.size == 0) {  // learned from a walk that stopped here (max frames): unknown beyond
        known = n == max;
        break;
      }
      cfa += it->second.size;
      prev = pc;
    }
    if (known) return n;
  }
  // Unwind fully (skipping this function's frame too) and learn the frame sizes of this chain:
  // sps[k] is where frame k's return address sits above (sps[0] == top), sps[k+1] - sps[k] its size.
  std::uintptr_t sps[kMaxFrames];
  g_full_unwinds.fetch_add(1, std::memory_order_relaxed);
  Walk w{pcs, sps, 0, max, 1};
  _Unwind_Backtrace(on_frame, &w);
  if (w.n == 0 || sps[0] != top || stack.high <= stack.low) return w.n;  // not the layout assumed: nothing learned
  std::lock_guard<std::mutex> lock(g_edges_mu);
  std::uintptr_t prev = 0;
  for (std::size_t k = 0; k < w.n; ++k) {
    const std::uintptr_t slot = sps[k] - sizeof(std::uintptr_t);
    const bool has_next = k + 1 < w.n;
    if (slot < top - sizeof(std::uintptr_t) || slot + sizeof(std::uintptr_t) > stack.high ||
        *reinterpret_cast<const std::uintptr_t*>(slot) != pcs[k] || (has_next && sps[k + 1] < sps[k]))
      break;  // a frame the simple rule does not describe (a signal frame): the rest stays unlearned
    Edge& e = g_edges[edge_key(prev, pcs[k])];
    e.size = has_next ? sps[k + 1] - sps[k] : 0;
    e.last = !has_next && !w.hit_max;
    prev = pcs[k];
  }
  return w.n;
#else
  return native_stack(pcs, max);
#endif
}

NativeFrame describe_frame(std::uintptr_t pc) {
  NativeFrame f;
  f.offset = pc;
  Dl_info info{};
  link_map* lm = nullptr;
  if (dladdr1(reinterpret_cast<void*>(pc - 1), &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) == 0 || lm == nullptr)
    return f;  // no module: JIT-compiled code, or a mapping the loader does not know
  f.module = lm->l_name != nullptr && lm->l_name[0] != '\0' ? lm->l_name : "/proc/self/exe";
  if (f.module == "/proc/self/exe") {
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) f.module.assign(exe, static_cast<std::size_t>(n));
  }
  f.offset = pc - lm->l_addr;
  f.internal = internal_module(f.module);
  if (f.internal) return f;  // not named: nobody reads them
  const SymbolTable& t = symbols_of(f.module);
  f.identity = t.identity;
  const std::uintptr_t at = f.offset - 1;
  auto it = std::upper_bound(t.symbols.begin(), t.symbols.end(), at,
                             [](std::uintptr_t a, const Symbol& s) { return a < s.value; });
  // The nearest symbol at or below; it must cover the address when its size is known.
  while (it != t.symbols.begin()) {
    --it;
    if (it->size == 0 || at < it->value + it->size) {
      f.function = demangle(t.strings.c_str() + it->name);
      f.function_offset = f.offset - it->value;
      return f;
    }
    if (at - it->value > (std::uintptr_t{1} << 20)) break;
  }
  if (info.dli_sname != nullptr && info.dli_saddr != nullptr) {  // what the dynamic symbols say
    f.function = demangle(info.dli_sname);
    f.function_offset = pc - reinterpret_cast<std::uintptr_t>(info.dli_saddr);
  }
  return f;
}

}  // namespace gp::inject
