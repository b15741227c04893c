// Moved to the public headers (graphprof/cuda/output_digest.hpp) so plugins can use it too; kept so
// existing includes of "output_digest.hpp" keep working.
#pragma once
#include "graphprof/cuda/output_digest.hpp"
