// Host-only libraries that graphprof must refuse with a one-line message, never a crash
// (tests/plugin/plugin_tests.cmake). Compiled once per case with BAD_PLUGIN_CASE:
//   1  a plugin built for another API major version
//   2  a table smaller than this API version's (built against an older or damaged header)
//   3  an entry point that returns no table
//   4  a shared library that is no graphprof plugin at all (no entry point)
#include "graphprof/cuda/plugin_abi.h"

#if BAD_PLUGIN_CASE == 4
extern "C" __attribute__((visibility("default"))) int some_other_library_function(void) { return 42; }
#else
namespace {
gp_plugin make_table() {
  gp_plugin p{};
  p.api_major = GP_PLUGIN_API_MAJOR;
  p.api_minor = GP_PLUGIN_API_MINOR;
  p.struct_size = sizeof(gp_plugin);
  p.workload_desc_size = sizeof(gp_plugin_workload);
  p.plugin_name = "bad";
  p.plugin_version = "0";
#if BAD_PLUGIN_CASE == 1
  p.api_major = GP_PLUGIN_API_MAJOR + 1;
  p.struct_size = 4096;  // whatever a future layout has: graphprof must not read it
#elif BAD_PLUGIN_CASE == 2
  p.struct_size = 24;
#endif
  return p;
}
const gp_plugin table = make_table();
}  // namespace

extern "C" __attribute__((visibility("default"))) const gp_plugin* graphprof_plugin(void) {
  return BAD_PLUGIN_CASE == 3 ? nullptr : &table;
}
#endif
