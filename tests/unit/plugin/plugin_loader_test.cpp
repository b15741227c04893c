// The plugin boundary without a GPU: a real plugin (examples/saxpy.cu, built in this tree) is
// loaded in-process; what it declares arrives intact, and an exception thrown inside the plugin
// comes back across the C table as the same error category. No CUDA call is made.
#include <gtest/gtest.h>

#include <string>

#include "graphprof/cuda/plugin_loader.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/error.hpp"

namespace gp {
namespace {

const WorkloadEntry& saxpy() {
  static const WorkloadEntry* e = [] {
    const auto names = load_plugin(GRAPHPROF_SAXPY_PLUGIN);
    EXPECT_EQ(names, std::vector<std::string>{"saxpy"});
    return find_workload("saxpy");
  }();
  return *e;
}

TEST(PluginLoader, DeclarationsAndOriginArrive) {
  const WorkloadEntry& e = saxpy();
  EXPECT_TRUE(e.provides_graph);
  ASSERT_NE(e.plugin, nullptr);
  EXPECT_EQ(e.plugin->name, "saxpy");
  EXPECT_EQ(e.plugin->version, "test");
  EXPECT_EQ(e.plugin->library, GRAPHPROF_SAXPY_PLUGIN);
  EXPECT_EQ(e.plugin->file_fnv1a64.size(), 16u);
  ASSERT_EQ(e.info.params.size(), 3u);
  EXPECT_EQ(e.info.params[0].name, "kernels");
  EXPECT_EQ(e.info.params[0].default_value, "20");
}

TEST(PluginLoader, UsageErrorInsideThePluginComesBackAsUsageError) {
  const WorkloadEntry& e = saxpy();
  std::unique_ptr<Workload> w = e.create();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->unsupported_reason(Mode::kGraph), "");
  // The plugin checks the range while reading the parameter, before any CUDA call.
  const Params p(e.info.params, {{"kernels", "0"}}, "saxpy");
  try {
    w->setup(p);
    FAIL() << "kernels=0 was accepted";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(err.what()).find("kernels"), std::string::npos) << err.what();
  }
}

TEST(PluginLoader, TheSameWorkloadTwiceIsRefused) {
  saxpy();
  try {
    load_plugin(GRAPHPROF_SAXPY_PLUGIN);
    FAIL() << "loaded twice";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(err.what()).find("already registered"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace gp
