// libFuzzer target: DOT text -> load_dot_text. Whatever the bytes, the loader either returns a
// model or throws gp::Error(kBadInput); anything else (another error category, another
// exception, a crash, a sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const gp::GraphModel m = gp::load_dot_text(text, "fuzz.dot");
    for (const auto& e : m.edges)
      if (e.from >= m.nodes.size() || e.to >= m.nodes.size()) std::abort();
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput) std::abort();
  }
  return 0;
}
