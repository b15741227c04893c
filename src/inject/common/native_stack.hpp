// Native call stacks inside the injection library: taking one (the return addresses, unwound with
// the unwinder's tables, so frame pointers are not needed) and naming its frames once (module,
// offset in the module, the enclosing function from the module's ELF symbol table, demangled).
// Used by call_site.cpp; no CUDA or CUPTI here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gp::inject {

// Fills `pcs` with up to `max` return addresses of the calling thread, innermost first, skipping
// the frames of this function itself. Returns how many. Never throws; stops at the first frame the
// unwinder has no table for (JIT code, a library built without unwind tables).
std::size_t native_stack(std::uintptr_t* pcs, std::size_t max);

// The same stack, most of the time without the unwinder: a full unwind (native_stack's) costs
// about 0.4 us per frame on the H200 (the CUDA driver's frames are slow to look up), so each full
// unwind also records, for each pair (return address, the next one), the size of the next frame.
// A later call reads the return addresses straight off the stack with those sizes and accepts the
// chain only while every pair read was seen before (else it unwinds fully and learns). x86-64
// only (the return address sits just below the frame's CFA); elsewhere always the full unwind.
std::size_t cached_native_stack(std::uintptr_t* pcs, std::size_t max);
// How many of its calls unwound fully so far (the rest read the stack with learned sizes).
std::uint64_t full_unwinds();

// Which build of a module a frame is in, read with its symbols: graphprof compares it with the file
// it finds after the run before reading that file's debug information (src/profile/source_lines.cpp).
struct ModuleIdentity {
  std::string build_id;    // hex of the GNU build ID note; "" when the module has none
  std::uint64_t size = 0;  // bytes of the file (0: not read)
  std::int64_t mtime = 0;  // its modification time, seconds since the epoch
};

struct NativeFrame {
  std::string module;        // path of the shared object or executable; "" when no module maps it (JIT code)
  std::uintptr_t offset = 0; // pc - the module's load bias (what addr2line takes), or the absolute pc without a module
  std::string function;      // demangled name of the enclosing function; "" when no symbol covers it
  std::uintptr_t function_offset = 0;
  bool internal = false;     // in this library, CUPTI or the CUDA driver: not the application's
  ModuleIdentity identity;   // of `module` (not read for internal frames)
};

// Names one return address (looked up at pc - 1, inside the call). Reads a module's symbol table
// once and keeps it; safe to call from several threads.
NativeFrame describe_frame(std::uintptr_t pc);

}  // namespace gp::inject
