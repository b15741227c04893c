// The cross-rank view of a profile (graphprof/profile/profile_ranks.hpp): built from the report's
// processes, so one `graphprof profile` of a whole node and `graphprof merge` of the reports of
// several nodes give the same view.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graphprof/core/json_fields.hpp"
#include "graphprof/profile/profile_ranks.hpp"

namespace gp {

using nlohmann::json;

namespace {

// The report's fields, read tolerantly (graphprof/core/json_fields.hpp).
const json& member(const json& j, const char* key) { return json_fields::field(j, key); }
double num(const json& j, const char* key, double fallback = NAN) { return json_fields::number(j, key, fallback); }
std::string str(const json& j, const char* key) { return json_fields::text(j, key); }
const json& arr(const json& j, const char* key) { return json_fields::items(j, key); }

json or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string rank_list(const std::vector<int>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) s += (i ? (i + 1 == ranks.size() ? " and " : ", ") : "") + std::to_string(ranks[i]);
  return s;
}

std::string graph_name(const json& g) { return "graph_" + std::to_string(static_cast<long long>(num(g, "graph", 0))); }

struct RankGraph {
  const json* graph = nullptr;
  std::size_t process = 0;  // the process's number in the report
};

struct Rank {
  int rank = 0;
  const json* identity = nullptr;
  std::string host;
  std::vector<std::size_t> processes;
  std::vector<long long> pids;
  json gpus = json::array();
  std::vector<RankGraph> graphs;
  std::vector<const json*> eager_collectives, capture_trouble;
};

// Where the application made the graph: its capture's call site, else its instantiation's
// ("serve.py:57 in step"; the same line on every rank of one program). "" when not recorded.
std::string call_site_of(const json& g) {
  for (const char* key : {"capture_site", "instantiate_site"}) {
    const std::string where = str(member(g, key), "where");
    if (!where.empty()) return where;
  }
  return {};
}

// How a graph is matched across ranks: by its call site when the report has one, and its shape
// (node count and the signature of its kernels).
std::string match_key(const json& g) {
  return call_site_of(g) + "|" + std::to_string(static_cast<long long>(num(g, "nodes", 0))) + "|" + str(g, "signature");
}

std::multiset<std::string> collective_kinds(const json& g) {
  std::multiset<std::string> kinds;
  for (const auto& c : arr(g, "collectives")) kinds.insert(str(c, "kind"));
  return kinds;
}

std::string kinds_text(const std::multiset<std::string>& kinds) {
  std::set<std::string> distinct(kinds.begin(), kinds.end());
  std::string s;
  for (const auto& k : distinct) s += (s.empty() ? "" : ", ") + k;
  return s;
}

const char* kCollectiveOrderHint =
    "NCCL matches the collectives of a communicator by their order on every rank: a collective captured into a "
    "graph on one rank and launched eagerly, differently or not at all on another makes the ranks wait for each "
    "other (a hang) or pair the wrong operations when the graph replays. Capture the same step on every rank; look "
    "for rank-dependent branches (if rank == 0: ...) and warm-up that differs between ranks in the captured region";

const char* kCaptureWithNcclHint =
    "with NCCL in the job: set the communicator up and run one collective eagerly before capturing (PyTorch's "
    "process groups create NCCL's communicator lazily, at the first collective); in the global capture mode a CUDA "
    "call another thread makes during the capture (NCCL's proxy thread, a data loader) breaks it: capture in "
    "thread-local mode (torch.cuda.graph(..., capture_error_mode=\"thread_local\"), cudaStreamCaptureModeThreadLocal)";

// Kernels of graph `a` that `b` lacks ("k_extra x1"), at most three names.
std::string kernels_not_in(const json& a, const json& b) {
  std::map<std::string, long long> have;
  for (const auto& k : arr(b, "kernel_counts")) have[str(k, "name")] += static_cast<long long>(num(k, "count", 0));
  std::string s;
  int shown = 0;
  for (const auto& k : arr(a, "kernel_counts")) {
    const long long extra = static_cast<long long>(num(k, "count", 0)) - have[str(k, "name")];
    if (extra <= 0) continue;
    if (++shown > 3) {
      s += ", ...";
      break;
    }
    s += (s.empty() ? "" : ", ") + str(k, "name") + " x" + std::to_string(extra);
  }
  return s;
}

void add_trouble(json& trouble, const char* kind, const std::vector<int>& ranks, const json& graph, std::string detail,
                 std::string hint) {
  trouble.push_back({{"kind", kind}, {"ranks", ranks}, {"graph", graph}, {"detail", std::move(detail)}, {"hint", std::move(hint)}});
}

// One graph on the ranks that have it: times per rank, slowest, skew, collectives and wait.
json group_json(const std::string& id, const std::vector<std::pair<int, RankGraph>>& members, const std::vector<int>& all_ranks) {
  const json& first = *members.front().second.graph;
  json g;
  g["id"] = id;
  const std::string site = call_site_of(first);
  g["matched_by"] = site.empty() ? "shape" : "call site";
  g["call_site"] = site.empty() ? json(nullptr) : json(site);
  g["nodes"] = num(first, "nodes", 0);
  g["kernels_per_launch"] = num(first, "kernels_per_launch", 0);
  g["signature"] = str(first, "signature");
  std::vector<int> missing;
  for (int r : all_ranks)
    if (std::none_of(members.begin(), members.end(), [&](const auto& m) { return m.first == r; })) missing.push_back(r);
  g["missing_on"] = missing;
  double min_coll = std::numeric_limits<double>::infinity();
  for (const auto& [r, m] : members) {
    const double c = num(member(*m.graph, "collective_per_launch"), "median_ns");
    if (std::isfinite(c)) min_coll = std::min(min_coll, c);
  }
  json per = json::array();
  double lo = NAN, hi = NAN, busiest_outside = NAN, coll_total = 0, kernel_total = 0;
  int slowest = -1, fastest = -1, busiest = -1;
  for (const auto& [r, m] : members) {
    const json& x = *m.graph;
    const double span = num(member(x, "gpu_span"), "median_ns");
    const double coll = num(member(x, "collective_per_launch"), "median_ns");
    const double outside = std::isfinite(span) && std::isfinite(coll) ? span - coll : NAN;
    per.push_back({{"rank", r},
                   {"process", m.process},
                   {"exec", num(x, "exec", 0)},
                   {"graph", num(x, "graph", 0)},
                   {"launches", num(x, "launches", 0)},
                   {"gpu_per_launch_ns", or_null(span)},
                   {"collective_per_launch_ns", or_null(coll)},
                   {"outside_collectives_per_launch_ns", or_null(outside)},
                   {"wait_per_launch_ns", or_null(std::isfinite(coll) ? coll - min_coll : NAN)},
                   {"capture_mode", member(x, "capture_mode")}});
    if (std::isfinite(span)) {
      if (slowest < 0 || span > hi) hi = span, slowest = r;
      if (fastest < 0 || span < lo) lo = span, fastest = r;
    }
    if (std::isfinite(outside) && (busiest < 0 || outside > busiest_outside)) busiest_outside = outside, busiest = r;
    for (const auto& c : arr(x, "collectives")) coll_total += num(c, "total_ns", 0);
    kernel_total += num(x, "kernel_time_ns", 0);
  }
  g["ranks"] = std::move(per);
  // Slowest, fastest and skew need two ranks to compare.
  const bool compared = slowest >= 0 && members.size() > 1;
  g["slowest_rank"] = compared ? json(slowest) : json(nullptr);
  g["fastest_rank"] = compared ? json(fastest) : json(nullptr);
  g["skew_ns"] = compared ? json(hi - lo) : json(nullptr);
  g["skew"] = compared && lo > 0 ? json(hi / lo - 1.0) : json(nullptr);
  g["busiest_rank"] = busiest >= 0 ? json(busiest) : json(nullptr);
  g["collective_share"] = kernel_total > 0 && !arr(first, "collectives").empty() ? json(coll_total / kernel_total) : json(nullptr);
  json colls = json::array();
  for (const auto& c : arr(first, "collectives"))
    colls.push_back({{"kind", str(c, "kind")}, {"kernel", str(c, "kernel")}, {"op", str(c, "op")}, {"dtype", str(c, "dtype")},
                     {"algorithm", str(c, "algorithm")}, {"per_launch", num(c, "per_launch", 0)}, {"bytes", nullptr}});
  g["collectives"] = std::move(colls);
  return g;
}

// Collective time per rank and kind, and the estimated wait: a rank's time in a kind minus the
// fastest rank's, where every rank ran as many kernels of that kind.
json collectives_per_rank(const std::map<int, Rank>& ranks, std::map<int, std::pair<double, double>>& totals) {
  struct Acc {
    std::size_t in_graphs = 0, eager = 0;
    double ns = 0;
  };
  std::map<std::string, std::map<int, Acc>> by_kind;
  for (const auto& [r, rank] : ranks) {
    for (const auto& g : rank.graphs)
      for (const auto& c : arr(*g.graph, "collectives")) {
        Acc& a = by_kind[str(c, "kind")][r];
        a.in_graphs += static_cast<std::size_t>(num(c, "count", 0));
        a.ns += num(c, "total_ns", 0);
      }
    for (const json* c : rank.eager_collectives) {
      Acc& a = by_kind[str(*c, "kind")][r];
      a.eager += static_cast<std::size_t>(num(*c, "count", 0));
      a.ns += num(*c, "total_ns", 0);
    }
  }
  json out = json::array();
  for (const auto& [kind, per] : by_kind) {
    bool same_count = per.size() == ranks.size();
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& [r, a] : per) {
      same_count = same_count && a.in_graphs + a.eager == per.begin()->second.in_graphs + per.begin()->second.eager;
      fastest = std::min(fastest, a.ns);
    }
    for (const auto& [r, a] : per) {
      const double wait = same_count ? a.ns - fastest : NAN;
      out.push_back({{"rank", r}, {"kind", kind}, {"in_graphs", a.in_graphs}, {"eager", a.eager}, {"total_ns", a.ns},
                     {"wait_ns", or_null(wait)}});
      totals[r].first += a.ns;
      if (std::isfinite(wait)) totals[r].second += wait;
    }
  }
  return out;
}

// cross_rank_view, step by step: the ranks and what they claim, the graphs matched across them,
// the graphs and captures that differ, then a row per rank.
class CrossRankView {
 public:
  explicit CrossRankView(const json& processes) : processes_(processes) {}

  json build() {
    gather_ranks();
    if (ranks_.empty()) return nullptr;
    describe_world();
    match_graphs();
    pair_unmatched_graphs();
    compare_captures();
    std::map<int, std::pair<double, double>> totals;
    view_["collectives"] = collectives_per_rank(ranks_, totals);
    view_["ranks"] = rank_rows(totals);
    view_["trouble"] = std::move(trouble_);
    view_["notes"] = std::move(notes_);
    return view_;
  }

 private:
  // The processes that carry a rank, grouped by it.
  void gather_ranks() {
    for (std::size_t i = 0; i < processes_.size(); ++i) {
      const json& p = processes_[i];
      const json& id = member(p, "rank");
      if (!member(id, "rank").is_number_integer()) continue;
      const int r = id["rank"].get<int>();
      const std::string host = str(p, "host");
      const std::size_t number = static_cast<std::size_t>(num(p, "process", static_cast<double>(i + 1)));
      auto [it, fresh] = ranks_.try_emplace(r);
      Rank& rank = it->second;
      if (fresh) {
        rank.rank = r;
        rank.identity = &id;
        rank.host = host;
      } else if (rank.host != host) {
        add_trouble(trouble_, "duplicate_rank", {r}, nullptr,
                    "rank " + std::to_string(r) + " was claimed by processes on hosts '" + rank.host + "' and '" + host +
                        "' (process " + std::to_string(number) + ")",
                    "each process of a job needs its own global rank: check the launcher's RANK/SLURM_PROCID settings");
        continue;
      }
      if (member(id, "world_size").is_number_integer()) world_sizes_.insert(id["world_size"].get<long long>());
      rank.processes.push_back(number);
      rank.pids.push_back(static_cast<long long>(num(p, "pid", 0)));
      for (const auto& g : arr(p, "gpus")) rank.gpus.push_back(g);
      for (const auto& g : arr(p, "graphs")) rank.graphs.push_back(RankGraph{&g, number});
      for (const auto& c : arr(p, "eager_collectives")) rank.eager_collectives.push_back(&c);
      for (const auto& t : arr(p, "capture_trouble")) rank.capture_trouble.push_back(&t);
    }
  }

  // The world size, the ranks this profile lacks, the hosts.
  void describe_world() {
    std::set<std::string> hosts;
    for (const auto& [r, rank] : ranks_) {
      all_ranks_.push_back(r);
      hosts.insert(rank.host);
      if (rank.processes.size() > 1)
        notes_.push_back("rank " + std::to_string(r) + " is " + std::to_string(rank.processes.size()) +
                         " processes (children that inherited its variables); their graphs are pooled");
    }
    view_["world_size"] = world_sizes_.size() == 1 ? json(*world_sizes_.begin()) : json(nullptr);
    if (world_sizes_.size() > 1)
      add_trouble(trouble_, "world_size_differs", all_ranks_, nullptr, "the ranks were told different world sizes", "");
    json missing = json::array();
    if (world_sizes_.size() == 1 && *world_sizes_.begin() <= 100000) {  // a hostile report's 2^60 is not listed
      for (long long r = 0; r < *world_sizes_.begin(); ++r)
        if (!ranks_.count(static_cast<int>(r))) missing.push_back(r);
      if (!missing.empty())
        notes_.push_back(std::to_string(missing.size()) + " of " + std::to_string(*world_sizes_.begin()) +
                         " ranks are not in this profile (other nodes): profile every node and join the reports with "
                         "graphprof merge");
    }
    view_["missing_ranks"] = std::move(missing);
    view_["hosts"] = hosts;
  }

  // Graphs: the k-th graph with the same key on every rank is the same graph.
  void match_graphs() {
    std::map<std::string, std::vector<std::pair<int, RankGraph>>> groups;
    std::vector<std::string> order;
    for (const auto& [r, rank] : ranks_) {
      std::map<std::string, int> seen;
      for (const auto& g : rank.graphs) {
        const std::string key = match_key(*g.graph) + "#" + std::to_string(seen[match_key(*g.graph)]++);
        if (!groups.count(key)) order.push_back(key);
        groups[key].push_back({r, g});
      }
    }
    json graphs = json::array();
    std::size_t number = 0;
    for (const auto& key : order) {
      const auto& members = groups[key];
      graphs.push_back(group_json("g" + std::to_string(++number), members, all_ranks_));
      const json& added = graphs.back();
      if (members.size() < ranks_.size())
        for (const auto& [r, m] : members) unmatched_[r].push_back(m.graph);
      std::set<std::string> modes;
      for (const auto& pr : added["ranks"])
        if (pr["capture_mode"].is_string()) modes.insert(pr["capture_mode"].get<std::string>());
      if (modes.size() > 1)
        add_trouble(trouble_, "capture_mode_differs", all_ranks_, added["id"],
                    "the ranks captured " + graph_name(*members.front().second.graph) + " in different capture modes", "");
    }
    view_["graphs"] = std::move(graphs);
  }

  // Graphs some ranks lack, paired by their order among each rank's unmatched graphs.
  void pair_unmatched_graphs() {
    std::size_t most = 0;
    for (const auto& [r, list] : unmatched_) most = std::max(most, list.size());
    for (std::size_t i = 0; i < most; ++i) {
      std::vector<std::pair<int, const json*>> row;  // nullptr: the rank has no i-th unmatched graph
      for (int r : all_ranks_) row.push_back({r, i < unmatched_[r].size() ? unmatched_[r][i] : nullptr});
      std::map<std::multiset<std::string>, std::vector<int>> by_kinds;
      for (const auto& [r, g] : row) by_kinds[g ? collective_kinds(*g) : std::multiset<std::string>{}].push_back(r);
      const std::string detail = unmatched_row_text(row);
      if (by_kinds.size() > 1) {
        // Which ranks ran those collectives outside graphs instead.
        std::string eager;
        for (const auto& [r, g] : row)
          for (const json* c : ranks_[r].eager_collectives)
            eager += (eager.empty() ? "; outside graphs: rank " : ", rank ") + std::to_string(r) + " ran " +
                     std::to_string(static_cast<long long>(num(*c, "count", 0))) + " " + str(*c, "kind") + " kernels";
        add_trouble(trouble_, "collective_on_some_ranks", all_ranks_, nullptr,
                    "a graph with collectives was captured differently across ranks: " + detail + eager, kCollectiveOrderHint);
      } else {
        add_trouble(trouble_, "graph_differs", all_ranks_, nullptr, "a graph differs across ranks: " + detail,
                    "the ranks captured different work: a rank-dependent branch or size in the captured region");
      }
    }
  }

  // "rank 0: graph_3 (12 nodes, allreduce; only here: k x1); rank 1: no such graph".
  static std::string unmatched_row_text(const std::vector<std::pair<int, const json*>>& row) {
    std::string detail;
    for (const auto& [r, g] : row) {
      detail += detail.empty() ? "" : "; ";
      detail += "rank " + std::to_string(r) + ": ";
      if (g == nullptr) {
        detail += "no such graph";
        continue;
      }
      detail += graph_name(*g) + " (" + std::to_string(static_cast<long long>(num(*g, "nodes", 0))) + " nodes";
      const std::multiset<std::string> kinds = collective_kinds(*g);
      if (!kinds.empty()) detail += ", " + kinds_text(kinds);
      for (const auto& [r2, g2] : row)
        if (g2 != nullptr && g2 != g) {
          const std::string extra = kernels_not_in(*g, *g2);
          if (!extra.empty()) detail += "; only here: " + extra;
          break;
        }
      detail += ")";
    }
    return detail;
  }

  // Capture trouble on some ranks only, and capture trouble in a job that uses NCCL.
  void compare_captures() {
    for (const auto& [r, rank] : ranks_) {
      nccl_ = nccl_ || !rank.eager_collectives.empty();
      for (const auto& g : rank.graphs) nccl_ = nccl_ || !arr(*g.graph, "collectives").empty();
    }
    std::vector<int> failed, clean;
    for (const auto& [r, rank] : ranks_) (rank.capture_trouble.empty() ? clean : failed).push_back(r);
    if (failed.empty() || (clean.empty() && !nccl_)) return;
    const json& t = *ranks_[failed.front()].capture_trouble.front();
    std::string detail = "capture failed on " + rank_list(failed) + " (first: " + str(t, "api") + " returned " + str(t, "error") + ")";
    if (!clean.empty()) detail += ", not on " + rank_list(clean);
    add_trouble(trouble_, clean.empty() ? "capture_failed_with_collectives" : "capture_failed_on_some_ranks", failed, nullptr,
                detail, nccl_ ? kCaptureWithNcclHint : "ranks that capture different work replay different graphs");
  }

  // A row per rank: its identity, processes, graph launches and collective time (`totals`: rank ->
  // collective time and wait).
  json rank_rows(std::map<int, std::pair<double, double>>& totals) const {
    json rows = json::array();
    for (const auto& [r, rank] : ranks_) {
      const json& id = *rank.identity;
      double launches = 0, gpu = 0;
      for (const auto& g : rank.graphs) {
        launches += num(*g.graph, "launches", 0);
        gpu += num(member(*g.graph, "gpu_span"), "total_ns", 0);
      }
      rows.push_back({{"rank", r},
                      {"local_rank", member(id, "local_rank")},
                      {"world_size", member(id, "world_size")},
                      {"local_world_size", member(id, "local_world_size")},
                      {"node_rank", member(id, "node_rank")},
                      {"from", member(id, "from")},
                      {"host", rank.host},
                      {"processes", rank.processes},
                      {"pids", rank.pids},
                      {"gpus", rank.gpus},
                      {"graph_launches", launches},
                      {"graph_gpu_ns", gpu},
                      // null without any collective in the job: nothing was measured, not 0 ns
                      {"collective_ns", nccl_ ? json(totals[r].first) : json(nullptr)},
                      {"collective_wait_ns", nccl_ ? json(totals[r].second) : json(nullptr)}});
    }
    return rows;
  }

  const json& processes_;
  std::map<int, Rank> ranks_;
  std::set<long long> world_sizes_;
  std::vector<int> all_ranks_;
  std::map<int, std::vector<const json*>> unmatched_;  // rank -> its graphs that some rank lacks
  bool nccl_ = false;                                  // a collective ran somewhere in the job
  json view_, trouble_ = json::array(), notes_ = json::array();
};

}  // namespace

json cross_rank_view(const json& processes) {
  if (!processes.is_array()) return nullptr;
  return CrossRankView(processes).build();
}

}  // namespace gp
