// Moved to the public headers (graphprof/cuda/iteration_ops.hpp) so plugins can use it too; kept so
// existing includes of "iteration_ops.hpp" keep working.
#pragma once
#include "graphprof/cuda/iteration_ops.hpp"
