// Combining the reports of the ranks of a multi-GPU run (see include/graphprof/core/ranks.hpp).
#include "graphprof/core/ranks.hpp"

#include <string>

#include "graphprof/core/derived.hpp"
#include "graphprof/core/error.hpp"

namespace gp {

namespace {

std::map<std::string, std::string> without_rank(std::map<std::string, std::string> p) {
  p.erase("rank");
  p.erase(kRendezvousParam);
  return p;
}

// The result of every rank for one (workload, mode, parameters) → the "all" result.
ModeResult slowest_rank_decides(const std::vector<const ModeResult*>& per_rank) {
  ModeResult all = *per_rank.front();
  all.params = without_rank(all.params);
  all.params["rank"] = "all";
  all.metrics.clear();
  all.derived.clear();
  all.sections = Sections{};
  for (const ModeResult* r : per_rank) {
    if (r->status == Status::kOk) continue;
    all.status = r->status;
    all.reason = r->reason + " (rank " + r->params.at("rank") + ")";
    all.failure = r->failure;
    return all;
  }
  bool same_output = true;
  for (const ModeResult* r : per_rank) same_output = same_output && r->checksum == all.checksum;
  if (!same_output) all.checksum = "differs between ranks";
  RanksSection ranks;
  ranks.count = per_rank.size();
  ranks.same_output_on_every_rank = same_output;
  for (const auto& [key, first] : per_rank.front()->metrics) {
    const Metric* worst = nullptr;
    std::string worst_rank;
    std::vector<double> per;
    for (const ModeResult* r : per_rank) {
      auto it = r->metrics.find(key);
      if (it == r->metrics.end()) {
        worst = nullptr;
        break;
      }
      per.push_back(it->second.summary.median);
      if (worst == nullptr || it->second.summary.median > worst->summary.median) {
        worst = &it->second;
        worst_rank = r->params.at("rank");
      }
    }
    if (worst == nullptr) continue;  // a metric not every rank has cannot be compared across ranks
    all.metrics[key] = *worst;
    ranks.median_per_rank[key] = std::move(per);
    ranks.slowest_rank[key] = worst_rank;
  }
  all.sections.ranks = std::move(ranks);
  all.sections.graph = per_rank.front()->sections.graph;
  derive_within_mode(all);
  return all;
}

}  // namespace

Report merge_ranks(const std::vector<Report>& ranks) {
  if (ranks.empty()) throw usage_error("--ranks: no rank reported");
  Report out = ranks.front();
  out.results.clear();
  const std::string gpu0 = out.environment.gpu ? out.environment.gpu->name : "";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const Report& r = ranks[i];
    const std::string gpu = r.environment.gpu ? r.environment.gpu->name : "";
    if (gpu != gpu0 || r.git_revision != out.git_revision)
      throw input_error("rank " + std::to_string(i) + ": made by " + r.git_revision + " on '" + gpu + "', rank 0 by " +
                        out.git_revision + " on '" + gpu0 + "'");
    for (ModeResult m : r.results) {
      m.params.erase(kRendezvousParam);
      if (!m.params.count("rank")) m.params["rank"] = std::to_string(i);
      out.results.push_back(std::move(m));
    }
  }
  // Group the ranks' results of the same workload, mode and parameters, in first-seen order.
  std::vector<ModeResult> combined;
  std::vector<bool> used(out.results.size(), false);
  for (std::size_t i = 0; i < out.results.size(); ++i) {
    if (used[i]) continue;
    std::vector<const ModeResult*> group;
    const auto key = without_rank(out.results[i].params);
    for (std::size_t j = i; j < out.results.size(); ++j) {
      const ModeResult& x = out.results[j];
      if (used[j] || x.workload != out.results[i].workload || x.mode != out.results[i].mode || without_rank(x.params) != key)
        continue;
      used[j] = true;
      group.push_back(&x);
    }
    if (group.size() > 1) combined.push_back(slowest_rank_decides(group));
  }
  for (auto& c : combined) out.results.push_back(std::move(c));
  derive_against_eager(out.results);
  out.settings.ranks = static_cast<long long>(ranks.size());
  std::vector<RankGpu>& gpus = out.settings.rank_gpus.emplace();
  for (const Report& r : ranks)
    if (r.environment.gpu) gpus.push_back({r.environment.gpu->ordinal, r.environment.gpu->pci_bus_id});
  return out;
}

}  // namespace gp
