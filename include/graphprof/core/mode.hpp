// The three ways graphprof runs the same work.
#pragma once
#include <array>
#include <iosfwd>
#include <optional>
#include <string>

namespace gp {

enum class Mode {
  kEager,    // launch every operation from the host each iteration
  kCapture,  // record one iteration with stream capture, replay the instantiated graph
  kGraph,    // build one iteration explicitly with cudaGraphAdd*Node, replay it
  kApp,      // not run by graphprof: a program observed from outside (`graphprof profile`)
};

// The modes `run` measures (kApp is only ever read from reports).
inline constexpr std::array<Mode, 3> kAllModes{Mode::kEager, Mode::kCapture, Mode::kGraph};

const char* to_string(Mode m);
std::optional<Mode> mode_from_string(const std::string& s);  // any of the four names
std::ostream& operator<<(std::ostream& out, Mode m);  // writes to_string(m)

}  // namespace gp
