// The revision of a program built on graphprof's libraries without the binary's generated source
// (tests, benchmarks): "unknown". A weak definition: the graphprof binary links the strong one that
// the build writes (cmake/GraphprofRevision.cmake), and only it relinks when the revision changes.
#include "graphprof/core/version.hpp"

namespace gp {

__attribute__((weak)) extern const char* const kGitRevision = "unknown";

}  // namespace gp
