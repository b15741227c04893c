// Per graph and per process, what the cross-rank view matches and compares (rank_inputs.hpp).
#include "rank_inputs.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "graphprof/graph/graph_model.hpp"

namespace gp {

namespace {

std::string capture_mode_name(int mode) {
  switch (mode) {
    case 0: return "global";
    case 1: return "thread-local";
    case 2: return "relaxed";
    default: return {};
  }
}

// FNV-1a over the sorted names: equal for the same kernels in any launch order (concurrent
// branches start in either order).
std::string signature_of(std::vector<std::string> names) {
  if (names.empty()) return {};
  std::sort(names.begin(), names.end());
  std::uint64_t h = 1469598103934665603ull;
  for (const auto& n : names) {
    for (unsigned char c : n) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;  // separator
  }
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}


// NCCL kernels among `kernels`, by short name.
std::vector<CollectiveUse> collectives_in(const std::vector<const KernelRecord*>& kernels) {
  std::map<std::string, CollectiveUse> by_name;
  for (const KernelRecord* k : kernels) {
    const auto c = nccl_collective_of(k->name);
    if (!c) continue;
    const std::string name = short_kernel_name(k->name);
    CollectiveUse& u = by_name[name];
    u.what = *c;
    u.kernel = name;
    ++u.count;
    u.total_ns += duration_ns(k->start_ns, k->end_ns);
  }
  std::vector<CollectiveUse> out;
  for (auto& [name, u] : by_name) out.push_back(std::move(u));
  return out;
}

}  // namespace

void describe_graph_for_ranks(GraphProfile& g, const TraceData& t, const DotGraphInfo* dot,
                              const std::vector<CaptureCall>& captures) {
  // The capture that made this graph: the begin before its end on the same stream.
  for (std::size_t i = 0; i < captures.size(); ++i) {
    if (captures[i].begin || captures[i].graph_id != g.exec.graph_id || captures[i].return_value != 0) continue;
    for (std::size_t b = i; b-- > 0;)
      if (captures[b].begin && captures[b].stream_id == captures[i].stream_id) {
        g.capture_mode = capture_mode_name(captures[b].mode);
        break;
      }
    break;
  }
  // Kernels per launch (the launch's correlation id), in the launch order of the calls.
  std::map<std::uint32_t, std::vector<const KernelRecord*>> by_launch;
  std::vector<const KernelRecord*> all;
  for (const auto& k : t.kernels) {
    by_launch[k.correlation_id].push_back(&k);
    all.push_back(&k);
  }
  std::vector<std::string> names;
  if (!by_launch.empty()) {
    // The most common number of kernels per launch; its first launch is the representative one.
    std::map<std::size_t, std::size_t> sizes;
    for (const auto& [co, ks] : by_launch) ++sizes[ks.size()];
    const auto common = std::max_element(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    g.kernels_per_launch = common->first;
    for (const ApiRecord& call : t.api) {
      auto it = by_launch.find(call.correlation_id);
      if (it == by_launch.end() || it->second.size() != g.kernels_per_launch) continue;
      for (const KernelRecord* k : it->second) names.push_back(short_kernel_name(k->name));
      break;
    }
    if (names.empty())  // launches not matched to calls: any launch of the common size
      for (const auto& [co, ks] : by_launch)
        if (ks.size() == g.kernels_per_launch) {
          for (const KernelRecord* k : ks) names.push_back(short_kernel_name(k->name));
          break;
        }
  } else if (dot != nullptr) {
    for (const auto& [index, node] : dot->nodes)
      if (node.kind == "kernel" && !node.name.empty()) names.push_back(short_kernel_name(node.name));
    g.kernels_per_launch = names.size();
  }
  g.signature = signature_of(names);
  std::map<std::string, std::size_t> counts;
  for (const auto& n : names) ++counts[n];
  g.kernel_counts.assign(counts.begin(), counts.end());

  g.collectives = collectives_in(all);
  if (g.collectives.empty()) return;
  const double launches = static_cast<double>(std::max<std::size_t>(1, by_launch.size()));
  for (auto& c : g.collectives) c.per_launch = static_cast<double>(c.count) / launches;
  for (const ApiRecord& call : t.api) {
    auto it = by_launch.find(call.correlation_id);
    if (it == by_launch.end()) continue;
    double ns = 0;
    for (const KernelRecord* k : it->second)
      if (nccl_collective_of(k->name)) ns += duration_ns(k->start_ns, k->end_ns);
    g.collective_ns_per_launch.push_back(ns);
  }
}

void describe_process_for_ranks(ProcessProfile& out, const ProcessRecords& p) {
  out.rank = rank_identity_of(p.rank_env);
  out.rank_env = p.rank_env;
  out.host = p.host;
  out.host_from = p.host_from;
  out.gpus = p.gpus;
  std::set<std::uint32_t> devices;
  std::vector<const KernelRecord*> eager;
  for (const auto& k : p.trace.kernels) {
    devices.insert(k.device_id);
    if (k.graph_id == 0) eager.push_back(&k);
  }
  for (const auto& m : p.trace.memcpys) devices.insert(m.device_id);
  for (const auto& g : p.trace.graph_traces) devices.insert(g.device_id);
  out.devices_used.assign(devices.begin(), devices.end());
  out.eager_collectives = collectives_in(eager);
}

}  // namespace gp
