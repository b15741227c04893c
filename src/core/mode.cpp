// Mode names as they appear on the command line and in reports.
#include "graphprof/core/mode.hpp"

#include <ostream>

namespace gp {

const char* to_string(Mode m) {
  switch (m) {
    case Mode::kEager: return "eager";
    case Mode::kCapture: return "capture";
    case Mode::kGraph: return "graph";
    case Mode::kApp: return "app";
  }
  return "eager";
}

std::optional<Mode> mode_from_string(const std::string& s) {
  for (Mode m : kAllModes)
    if (s == to_string(m)) return m;
  if (s == to_string(Mode::kApp)) return Mode::kApp;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, Mode m) { return out << to_string(m); }

}  // namespace gp
