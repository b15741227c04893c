// Parameter grids for `graphprof sweep`: "--param kernels=1,10,100" (a list), "kernels=1:5"
// (every integer), "kernels=1:10000:*10" (geometric), "kernels=0:100:+25" (arithmetic).
// Host-only; CPU-tested.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace gp {

// The values one "--param NAME=SPEC" stands for; throws usage_error for malformed specs or
// grids over 10 000 values.
std::vector<std::string> expand_param_values(const std::string& name, const std::string& spec);

// Cartesian product of every parameter's values, in a stable order (first parameter outermost).
std::vector<std::map<std::string, std::string>> expand_grid(const std::map<std::string, std::string>& specs);

}  // namespace gp
