// Rank identity, GPUs, signatures and collectives into the report (rank_json.hpp).
#include "rank_json.hpp"

#include "graphprof/core/stats.hpp"

namespace gp {

using nlohmann::json;

namespace {

json opt_int(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

json collectives_json(const std::vector<CollectiveUse>& v) {
  json a = json::array();
  for (const auto& c : v)
    a.push_back({{"kind", c.what.kind},
                 {"kernel", c.kernel},
                 {"op", c.what.op},
                 {"dtype", c.what.dtype},
                 {"algorithm", c.what.algorithm},
                 {"count", c.count},
                 {"total_ns", c.total_ns},
                 {"per_launch", c.per_launch},
                 // Neither NCCL's kernel name nor CUPTI's kernel record carries the message size.
                 {"bytes", nullptr}});
  return a;
}

}  // namespace

void add_process_rank_fields(json& j, const ProcessProfile& p) {
  const RankIdentity& r = p.rank;
  j["rank"] = r.known() ? json{{"rank", *r.rank},
                               {"local_rank", opt_int(r.local_rank)},
                               {"world_size", opt_int(r.world_size)},
                               {"local_world_size", opt_int(r.local_world_size)},
                               {"node_rank", opt_int(r.node_rank)},
                               {"from", r.from}}
                        : json(nullptr);
  j["rank_env"] = p.rank_env;
  j["rank_problems"] = r.problems;
  j["host"] = p.host;
  j["host_from"] = p.host_from;
  json gpus = json::array();
  for (const auto& g : p.gpus) gpus.push_back({{"ordinal", g.ordinal}, {"pci_bus_id", g.pci_bus_id}, {"uuid", g.uuid}});
  j["gpus"] = std::move(gpus);
  j["devices_used"] = p.devices_used;
  j["eager_collectives"] = collectives_json(p.eager_collectives);
}

void add_graph_rank_fields(json& j, const GraphProfile& g) {
  j["capture_mode"] = g.capture_mode.empty() ? json(nullptr) : json(g.capture_mode);
  j["signature"] = g.signature;
  j["kernels_per_launch"] = g.kernels_per_launch;
  json counts = json::array();
  for (const auto& [name, n] : g.kernel_counts) counts.push_back({{"name", name}, {"count", n}});
  j["kernel_counts"] = std::move(counts);
  j["collectives"] = collectives_json(g.collectives);
  const DurationStats c = duration_stats(g.collective_ns_per_launch);
  j["collective_per_launch"] = c.count ? json{{"count", c.count}, {"median_ns", c.median}, {"p10_ns", c.p10},
                                              {"p90_ns", c.p90}, {"mean_ns", c.mean}, {"total_ns", c.total}}
                                       : json(nullptr);
}

}  // namespace gp
