// The process-wide list of workloads: the bundled ones, filled during static initialisation, then
// those of plugins loaded with --load. A plugin compiles this file too and has its own list.
#include <algorithm>
#include <cstdio>

#include "graphprof/cuda/workload.hpp"

namespace gp {

namespace {
std::vector<WorkloadEntry>& registry() {
  static std::vector<WorkloadEntry> entries;  // function-local: safe whatever the init order
  return entries;
}
}  // namespace

bool register_workload(WorkloadInfo info, WorkloadFactory factory, bool provides_graph) {
  return register_workload(WorkloadEntry{std::move(info), std::move(factory), provides_graph, nullptr});
}

bool register_workload(WorkloadEntry entry) {
  auto& r = registry();
  r.push_back(std::move(entry));
  std::sort(r.begin(), r.end(), [](const WorkloadEntry& a, const WorkloadEntry& b) { return a.info.name < b.info.name; });
  return true;
}

const std::vector<WorkloadEntry>& registered_workloads() { return registry(); }

const WorkloadEntry* find_workload(const std::string& name) {
  for (const auto& e : registry())
    if (e.info.name == name) return &e;
  return nullptr;
}

std::string digest_bytes(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace gp
