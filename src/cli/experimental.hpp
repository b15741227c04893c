// Experimental features of the command line, switched on by the environment: one reading of each
// variable for the command and its tests. Header-only, so a GPU test (which does not link the
// command line's library) reads it the same way.
#pragma once
#include <cstdlib>
#include <cstring>

namespace gp::cli {

// GRAPHPROF_EXPERIMENTAL_INTERPOSE=1: `profile --observe interpose` may run (it is refused
// otherwise: on the H200 it invalidated an application's stream capture, docs/profile.md), and
// its GPU tests run.
inline constexpr const char* kExperimentalInterposeVariable = "GRAPHPROF_EXPERIMENTAL_INTERPOSE";
inline bool experimental_interpose_allowed() {
  const char* e = std::getenv(kExperimentalInterposeVariable);
  return e != nullptr && std::strcmp(e, "1") == 0;
}

}  // namespace gp::cli
