// Host-only checks of the bundled workloads: registration, parameter defaults, and that
// docs/workloads.md describes exactly the registered workloads with their real parameters and
// defaults. Registration touches no CUDA API, so this runs on machines without a GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/error.hpp"

namespace gp {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WorkloadRegistry, TheIssuesWorkloadsAreBundled) {
  std::set<std::string> names;
  for (const auto& e : registered_workloads()) names.insert(e.info.name);
  for (const char* n : {"chain", "fork-join", "decode", "stencil", "memcpy", "alloc", "host", "update", "while"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_EQ(names.size(), registered_workloads().size()) << "two workloads share a name";
}

TEST(WorkloadRegistry, EveryWorkloadDescribesItselfAndItsDefaultsParse) {
  for (const auto& e : registered_workloads()) {
    SCOPED_TRACE(e.info.name);
    EXPECT_GE(e.info.description.size(), 20u);
    std::set<std::string> keys;
    for (const auto& p : e.info.params) {
      EXPECT_TRUE(keys.insert(p.name).second) << "parameter " << p.name << " declared twice";
      EXPECT_FALSE(p.default_value.empty()) << p.name;
      EXPECT_FALSE(p.help.empty()) << p.name;
    }
    // The resolved defaults are what setup() reads; an unknown override is a usage error.
    const Params defaults(e.info.params, {}, e.info.name);
    EXPECT_EQ(defaults.values().size(), e.info.params.size());
    try {
      Params bad(e.info.params, {{"no_such_parameter", "1"}}, e.info.name);
      ADD_FAILURE() << "unknown parameter accepted";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), ExitCode::kUsage);
    }
    // Creating an instance must not touch the GPU (run_mode asks a throwaway one for reasons).
    EXPECT_NE(e.create(), nullptr);
  }
}

TEST(WorkloadRegistry, DocsListExactlyTheRegisteredWorkloadsAndParameters) {
  const std::string doc = read_text(std::string(GRAPHPROF_SOURCE_DIR) + "/docs/workloads.md");
  ASSERT_FALSE(doc.empty()) << "docs/workloads.md is missing";
  std::set<std::string> documented;
  const std::regex heading(R"(^## ([a-z][a-z0-9-]*)$)", std::regex::multiline);
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), heading); it != std::sregex_iterator(); ++it)
    documented.insert((*it)[1].str());
  std::set<std::string> registered;
  for (const auto& e : registered_workloads()) registered.insert(e.info.name);
  // Workloads with an optional dependency are documented even where they are not built.
  for (const char* optional : {"allreduce"})
    if (!registered.count(optional)) documented.erase(optional);
  EXPECT_EQ(documented, registered);

  for (const auto& e : registered_workloads()) {
    const std::size_t start = doc.find("\n## " + e.info.name + "\n");
    ASSERT_NE(start, std::string::npos) << e.info.name;
    const std::size_t end = doc.find("\n## ", start + 1);
    const std::string section = doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
    for (const auto& p : e.info.params) {
      const std::string row = "| `" + p.name + "` | " + p.default_value + " |";
      EXPECT_NE(section.find(row), std::string::npos) << e.info.name << ": docs lack the row " << row;
    }
  }
}

}  // namespace
}  // namespace gp
