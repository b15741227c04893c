// Kernel name forms (see include/graphprof/core/kernel_names.hpp).
#include "graphprof/core/kernel_names.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <memory>

namespace gp {

std::string demangle_kernel_name(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  if (status != 0 || !out) return mangled;
  return out.get();
}

namespace {

// Index of the '(' that opens the parameter list closed by the ')' at `close`; npos if none.
std::size_t matching_open(const std::string& s, std::size_t close) {
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string::npos;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string kernel_base_name(const std::string& demangled) {
  std::string s = demangled;
  if (ends_with(s, " const")) s.resize(s.size() - 6);
  if (!s.empty() && s.back() == ')') {
    const std::size_t open = matching_open(s, s.size() - 1);
    // "(anonymous namespace)" alone is not a parameter list.
    if (open != std::string::npos && open > 0) s.resize(open);
  }
  // Remove template arguments at every depth; "operator<" does not occur in kernel names.
  std::string flat;
  int angle = 0;
  for (char c : s) {
    if (c == '<') {
      ++angle;
      continue;
    }
    if (c == '>' && angle > 0) {
      --angle;
      continue;
    }
    if (angle == 0) flat += c;
  }
  // Drop the return type ("void "): the last space outside parentheses separates it.
  int paren = 0;
  std::size_t name_start = 0;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    if (flat[i] == '(') ++paren;
    if (flat[i] == ')') --paren;
    if (flat[i] == ' ' && paren == 0) name_start = i + 1;
  }
  std::string qualified = flat.substr(name_start);
  // Keep the last scope component, outside parentheses ("(anonymous namespace)::k" -> "k").
  paren = 0;
  std::size_t last = 0;
  for (std::size_t i = 0; i + 1 < qualified.size(); ++i) {
    if (qualified[i] == '(') ++paren;
    if (qualified[i] == ')') --paren;
    if (paren == 0 && qualified[i] == ':' && qualified[i + 1] == ':') last = i + 2;
  }
  std::string shortest = qualified.substr(last);
  return shortest.empty() ? demangled : shortest;
}

std::string short_kernel_name(const std::string& recorded_name) {
  return kernel_base_name(demangle_kernel_name(recorded_name));
}

}  // namespace gp
