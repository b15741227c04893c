// Rank identity, GPUs, signatures and collectives into the report (rank_json.hpp).
#include "rank_json.hpp"

#include "graphprof/core/stats.hpp"
#include "section_values.hpp"

namespace gp {

using nlohmann::json;
using section_values::opt;

namespace {

ProfileList<ProfileGraphCollective> collectives_of(const std::vector<CollectiveUse>& v) {
  ProfileList<ProfileGraphCollective> out;
  out.present = true;
  for (const auto& c : v) {
    ProfileGraphCollective k;
    k.kind = c.what.kind;
    k.kernel = c.kernel;
    k.op = c.what.op;
    k.dtype = c.what.dtype;
    k.algorithm = c.what.algorithm;
    k.count = c.count;
    k.total_ns = c.total_ns;
    k.per_launch = c.per_launch;
    // Neither NCCL's kernel name nor CUPTI's kernel record carries the message size.
    k.bytes = ProfileNumber::null();
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

void add_process_rank_fields(ProfileProcess& j, const ProcessProfile& p) {
  const RankIdentity& r = p.rank;
  if (r.known()) {
    ProfileRankId& id = j.rank.emplace();
    id.rank = *r.rank;
    id.local_rank = opt(r.local_rank);
    id.world_size = opt(r.world_size);
    id.local_world_size = opt(r.local_world_size);
    id.node_rank = opt(r.node_rank);
    id.from = r.from;
  } else {
    j.rank = ProfileOptional<ProfileRankId>::null();
  }
  j.rank_env = json(p.rank_env);
  j.rank_problems = section_values::texts(r.problems);
  j.host = p.host;
  j.host_from = p.host_from;
  j.gpus.present = true;
  for (const auto& g : p.gpus) {
    ProfileGpu gpu;
    gpu.ordinal = g.ordinal;
    gpu.pci_bus_id = g.pci_bus_id;
    gpu.uuid = g.uuid;
    j.gpus.push_back(std::move(gpu));
  }
  j.devices_used = section_values::numbers(p.devices_used);
  j.eager_collectives = collectives_of(p.eager_collectives);
}

void add_graph_rank_fields(ProfileGraph& j, const GraphProfile& g) {
  j.capture_mode = ProfileText::or_null(g.capture_mode);
  j.signature = g.signature;
  j.kernels_per_launch = g.kernels_per_launch;
  j.kernel_counts.present = true;
  for (const auto& [name, n] : g.kernel_counts) {
    ProfileNameCount c;
    c.name = name;
    c.count = n;
    j.kernel_counts.push_back(std::move(c));
  }
  j.collectives = collectives_of(g.collectives);
  j.collective_per_launch = section_values::stats(duration_stats(g.collective_ns_per_launch));
}

}  // namespace gp
