// Loading workload plugins (graphprof run|sweep|list --load libX.so): the graphprof side of the
// C boundary in graphprof/plugin_abi.h. A loaded plugin's workloads join the registry and run
// like bundled ones; their results name the library (sections.plugin of the report).
#pragma once
#include <string>
#include <vector>

namespace gp {

// dlopen()s `path`, checks its API version and table sizes, and registers its workloads.
// Returns their names. Throws input_error (exit 3) naming the file for anything wrong with it:
// missing, not loadable, not a graphprof plugin, another API major version, too small a table,
// or a workload name that is already registered. The library stays loaded for the process.
std::vector<std::string> load_plugin(const std::string& path);

}  // namespace gp
