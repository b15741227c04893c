// Kernel names as graphprof shows them: demangled, and the short base name every output uses.
// Host-only text rules, shared by the graph loader, the trace join, the Chrome trace and
// `profile`. src/core/kernel_names.cpp.
#pragma once
#include <string>

namespace gp {

// demangle_kernel_name returns the input unchanged when it is not a mangled C++
// name (extern "C" kernels, cuBLAS's sm90_xmma_...). kernel_base_name drops the return type,
// namespaces, template arguments and the parameter list: "void ns::k<4>(float*)" -> "k".
std::string demangle_kernel_name(const std::string& mangled);
std::string kernel_base_name(const std::string& demangled);
// The short name of a recorded (mangled) name: kernel_base_name(demangle_kernel_name(name)). The
// loader, the trace join, the Chrome trace and `profile` name kernels by this one rule.
std::string short_kernel_name(const std::string& recorded_name);

}  // namespace gp
