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

#include "graphprof/profile/profile_ranks.hpp"
#include "section_values.hpp"

namespace gp {

using nlohmann::json;

namespace {

ProfileNumber or_null(double v) { return std::isfinite(v) ? ProfileNumber(v) : ProfileNumber::null(); }
// A figure copied from a process into the view: null where the process has none.
ProfileNumber copied(const ProfileNumber& v) { return v.present() ? v : ProfileNumber::null(); }
ProfileText copied(const ProfileText& v) { return v.present() ? v : ProfileText::null(); }
double stats_median(const ProfileOptional<ProfileStats>& s) { return s ? s->median_ns.value() : NAN; }

std::string rank_list(const std::vector<int>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) s += (i ? (i + 1 == ranks.size() ? " and " : ", ") : "") + std::to_string(ranks[i]);
  return s;
}

std::string graph_name(const ProfileGraph& g) { return "graph_" + std::to_string(static_cast<long long>(g.graph.value_or(0))); }

struct RankGraph {
  const ProfileGraph* graph = nullptr;
  std::size_t process = 0;  // the process's number in the report
};

struct Rank {
  int rank = 0;
  const ProfileRankId* identity = nullptr;
  std::string host;
  std::vector<std::size_t> processes;
  std::vector<long long> pids;
  ProfileList<ProfileGpu> gpus;
  std::vector<RankGraph> graphs;
  std::vector<const ProfileGraphCollective*> eager_collectives;
  std::vector<const ProfileCaptureTrouble*> capture_trouble;
};

// Where the application made the graph: its capture's call site, else its instantiation's
// ("serve.py:57 in step"; the same line on every rank of one program). "" when not recorded.
std::string call_site_of(const ProfileGraph& g) {
  for (const auto* site : {&g.capture_site, &g.instantiate_site})
    if (*site && !(*site)->where.empty()) return (*site)->where;
  return {};
}

// How a graph is matched across ranks: by its call site when the report has one, and its shape
// (node count and the signature of its kernels).
std::string match_key(const ProfileGraph& g) {
  return call_site_of(g) + "|" + std::to_string(static_cast<long long>(g.nodes.value_or(0))) + "|" + g.signature.str();
}

std::multiset<std::string> collective_kinds(const ProfileGraph& g) {
  std::multiset<std::string> kinds;
  for (const auto& c : g.collectives) kinds.insert(c.kind);
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
std::string kernels_not_in(const ProfileGraph& a, const ProfileGraph& b) {
  std::map<std::string, long long> have;
  for (const auto& k : b.kernel_counts) have[k.name] += static_cast<long long>(k.count.value_or(0));
  std::string s;
  int shown = 0;
  for (const auto& k : a.kernel_counts) {
    const long long extra = static_cast<long long>(k.count.value_or(0)) - have[k.name];
    if (extra <= 0) continue;
    if (++shown > 3) {
      s += ", ...";
      break;
    }
    s += (s.empty() ? "" : ", ") + k.name + " x" + std::to_string(extra);
  }
  return s;
}

void add_trouble(ProfileList<ProfileRankTrouble>& trouble, const char* kind, const std::vector<int>& ranks, json graph,
                 std::string detail, std::string hint) {
  ProfileRankTrouble t;
  t.kind = kind;
  t.ranks = section_values::numbers(ranks);
  t.graph = std::move(graph);
  t.detail = std::move(detail);
  t.hint = std::move(hint);
  trouble.push_back(std::move(t));
}

// One graph on the ranks that have it: times per rank, slowest, skew, collectives and wait.
ProfileCrossRankGraph group_of(const std::string& id, const std::vector<std::pair<int, RankGraph>>& members,
                               const std::vector<int>& all_ranks) {
  const ProfileGraph& first = *members.front().second.graph;
  ProfileCrossRankGraph g;
  g.id = id;
  const std::string site = call_site_of(first);
  g.matched_by = site.empty() ? "shape" : "call site";
  g.call_site = ProfileText::or_null(site);
  g.nodes = first.nodes.value_or(0);
  g.kernels_per_launch = first.kernels_per_launch.value_or(0);
  g.signature = first.signature.str();
  std::vector<int> missing;
  for (int r : all_ranks)
    if (std::none_of(members.begin(), members.end(), [&](const auto& m) { return m.first == r; })) missing.push_back(r);
  g.missing_on = section_values::numbers(missing);
  double min_coll = std::numeric_limits<double>::infinity();
  for (const auto& [r, m] : members) {
    const double c = stats_median(m.graph->collective_per_launch);
    if (std::isfinite(c)) min_coll = std::min(min_coll, c);
  }
  g.ranks.present = true;
  double lo = NAN, hi = NAN, busiest_outside = NAN, coll_total = 0, kernel_total = 0;
  int slowest = -1, fastest = -1, busiest = -1;
  for (const auto& [r, m] : members) {
    const ProfileGraph& x = *m.graph;
    const double span = stats_median(x.gpu_span);
    const double coll = stats_median(x.collective_per_launch);
    const double outside = std::isfinite(span) && std::isfinite(coll) ? span - coll : NAN;
    ProfileRankGraph& pr = g.ranks.emplace_back();
    pr.rank = r;
    pr.process = m.process;
    pr.exec = x.exec.value_or(0);
    pr.graph = x.graph.value_or(0);
    pr.launches = x.launches.value_or(0);
    pr.gpu_per_launch_ns = or_null(span);
    pr.collective_per_launch_ns = or_null(coll);
    pr.outside_collectives_per_launch_ns = or_null(outside);
    pr.wait_per_launch_ns = or_null(std::isfinite(coll) ? coll - min_coll : NAN);
    pr.capture_mode = copied(x.capture_mode);
    if (std::isfinite(span)) {
      if (slowest < 0 || span > hi) hi = span, slowest = r;
      if (fastest < 0 || span < lo) lo = span, fastest = r;
    }
    if (std::isfinite(outside) && (busiest < 0 || outside > busiest_outside)) busiest_outside = outside, busiest = r;
    for (const auto& c : x.collectives) coll_total += c.total_ns.value_or(0);
    kernel_total += x.kernel_time_ns.value_or(0);
  }
  // Slowest, fastest and skew need two ranks to compare.
  const bool compared = slowest >= 0 && members.size() > 1;
  g.slowest_rank = compared ? ProfileNumber(slowest) : ProfileNumber::null();
  g.fastest_rank = compared ? ProfileNumber(fastest) : ProfileNumber::null();
  g.skew_ns = compared ? ProfileNumber(hi - lo) : ProfileNumber::null();
  g.skew = compared && lo > 0 ? ProfileNumber(hi / lo - 1.0) : ProfileNumber::null();
  g.busiest_rank = busiest >= 0 ? ProfileNumber(busiest) : ProfileNumber::null();
  g.collective_share = kernel_total > 0 && !first.collectives.empty() ? ProfileNumber(coll_total / kernel_total) : ProfileNumber::null();
  g.collectives.present = true;
  for (const auto& c : first.collectives) {
    ProfileGraphCollective k;
    k.kind = c.kind.str();
    k.kernel = c.kernel.str();
    k.op = c.op.str();
    k.dtype = c.dtype.str();
    k.algorithm = c.algorithm.str();
    k.per_launch = c.per_launch.value_or(0);
    k.bytes = ProfileNumber::null();
    g.collectives.push_back(std::move(k));
  }
  return g;
}

// Collective time per rank and kind, and the estimated wait: a rank's time in a kind minus the
// fastest rank's, where every rank ran as many kernels of that kind.
ProfileList<ProfileRankCollective> collectives_per_rank(const std::map<int, Rank>& ranks,
                                                         std::map<int, std::pair<double, double>>& totals) {
  struct Acc {
    std::size_t in_graphs = 0, eager = 0;
    double ns = 0;
  };
  std::map<std::string, std::map<int, Acc>> by_kind;
  for (const auto& [r, rank] : ranks) {
    for (const auto& g : rank.graphs)
      for (const auto& c : g.graph->collectives) {
        Acc& a = by_kind[c.kind][r];
        a.in_graphs += static_cast<std::size_t>(c.count.value_or(0));
        a.ns += c.total_ns.value_or(0);
      }
    for (const ProfileGraphCollective* c : rank.eager_collectives) {
      Acc& a = by_kind[c->kind][r];
      a.eager += static_cast<std::size_t>(c->count.value_or(0));
      a.ns += c->total_ns.value_or(0);
    }
  }
  ProfileList<ProfileRankCollective> out;
  out.present = true;
  for (const auto& [kind, per] : by_kind) {
    bool same_count = per.size() == ranks.size();
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& [r, a] : per) {
      same_count = same_count && a.in_graphs + a.eager == per.begin()->second.in_graphs + per.begin()->second.eager;
      fastest = std::min(fastest, a.ns);
    }
    for (const auto& [r, a] : per) {
      const double wait = same_count ? a.ns - fastest : NAN;
      ProfileRankCollective& c = out.emplace_back();
      c.rank = r;
      c.kind = kind;
      c.in_graphs = a.in_graphs;
      c.eager = a.eager;
      c.total_ns = a.ns;
      c.wait_ns = or_null(wait);
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
  explicit CrossRankView(const ProfileList<ProfileProcess>& processes) : processes_(processes) {
    trouble_.present = notes_.present = true;
  }

  ProfileOptional<ProfileCrossRank> build() {
    gather_ranks();
    if (ranks_.empty()) return ProfileOptional<ProfileCrossRank>::null();
    describe_world();
    match_graphs();
    pair_unmatched_graphs();
    compare_captures();
    std::map<int, std::pair<double, double>> totals;
    view_.collectives = collectives_per_rank(ranks_, totals);
    view_.ranks = rank_rows(totals);
    view_.trouble = std::move(trouble_);
    view_.notes = std::move(notes_);
    return std::move(view_);
  }

 private:
  // The processes that carry a rank, grouped by it.
  void gather_ranks() {
    for (std::size_t i = 0; i < processes_.size(); ++i) {
      const ProfileProcess& p = processes_[i];
      if (!p.rank || !p.rank->rank.is_integer()) continue;
      const ProfileRankId& id = *p.rank;
      const int r = static_cast<int>(id.rank.signed_value());
      const std::string host = p.host;
      const std::size_t number = static_cast<std::size_t>(p.process.value_or(static_cast<double>(i + 1)));
      auto [it, fresh] = ranks_.try_emplace(r);
      Rank& rank = it->second;
      if (fresh) {
        rank.rank = r;
        rank.identity = &id;
        rank.host = host;
        rank.gpus.present = true;
      } else if (rank.host != host) {
        add_trouble(trouble_, "duplicate_rank", {r}, nullptr,
                    "rank " + std::to_string(r) + " was claimed by processes on hosts '" + rank.host + "' and '" + host +
                        "' (process " + std::to_string(number) + ")",
                    "each process of a job needs its own global rank: check the launcher's RANK/SLURM_PROCID settings");
        continue;
      }
      if (id.world_size.is_integer()) world_sizes_.insert(id.world_size.signed_value());
      rank.processes.push_back(number);
      rank.pids.push_back(static_cast<long long>(p.pid.value_or(0)));
      for (const auto& g : p.gpus) rank.gpus.push_back(g);
      for (const auto& g : p.graphs) rank.graphs.push_back(RankGraph{&g, number});
      for (const auto& c : p.eager_collectives) rank.eager_collectives.push_back(&c);
      for (const auto& t : p.capture_trouble) rank.capture_trouble.push_back(&t);
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
    view_.world_size = world_sizes_.size() == 1 ? ProfileNumber(*world_sizes_.begin()) : ProfileNumber::null();
    if (world_sizes_.size() > 1)
      add_trouble(trouble_, "world_size_differs", all_ranks_, nullptr, "the ranks were told different world sizes", "");
    std::vector<long long> missing;
    if (world_sizes_.size() == 1 && *world_sizes_.begin() <= 100000) {  // a hostile report's 2^60 is not listed
      for (long long r = 0; r < *world_sizes_.begin(); ++r)
        if (!ranks_.count(static_cast<int>(r))) missing.push_back(r);
      if (!missing.empty())
        notes_.push_back(std::to_string(missing.size()) + " of " + std::to_string(*world_sizes_.begin()) +
                         " ranks are not in this profile (other nodes): profile every node and join the reports with "
                         "graphprof merge");
    }
    view_.missing_ranks = section_values::numbers(missing);
    view_.hosts = section_values::texts(std::vector<std::string>(hosts.begin(), hosts.end()));
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
    view_.graphs.present = true;
    std::size_t number = 0;
    for (const auto& key : order) {
      const auto& members = groups[key];
      view_.graphs.push_back(group_of("g" + std::to_string(++number), members, all_ranks_));
      const ProfileCrossRankGraph& added = view_.graphs.back();
      if (members.size() < ranks_.size())
        for (const auto& [r, m] : members) unmatched_[r].push_back(m.graph);
      std::set<std::string> modes;
      for (const auto& pr : added.ranks)
        if (pr.capture_mode.present()) modes.insert(pr.capture_mode);
      if (modes.size() > 1)
        add_trouble(trouble_, "capture_mode_differs", all_ranks_, json(added.id.str()),
                    "the ranks captured " + graph_name(*members.front().second.graph) + " in different capture modes", "");
    }
  }

  // Graphs some ranks lack, paired by their order among each rank's unmatched graphs.
  void pair_unmatched_graphs() {
    std::size_t most = 0;
    for (const auto& [r, list] : unmatched_) most = std::max(most, list.size());
    for (std::size_t i = 0; i < most; ++i) {
      std::vector<std::pair<int, const ProfileGraph*>> row;  // nullptr: the rank has no i-th unmatched graph
      for (int r : all_ranks_) row.push_back({r, i < unmatched_[r].size() ? unmatched_[r][i] : nullptr});
      std::map<std::multiset<std::string>, std::vector<int>> by_kinds;
      for (const auto& [r, g] : row) by_kinds[g ? collective_kinds(*g) : std::multiset<std::string>{}].push_back(r);
      const std::string detail = unmatched_row_text(row);
      if (by_kinds.size() > 1) {
        // Which ranks ran those collectives outside graphs instead.
        std::string eager;
        for (const auto& [r, g] : row)
          for (const ProfileGraphCollective* c : ranks_[r].eager_collectives)
            eager += (eager.empty() ? "; outside graphs: rank " : ", rank ") + std::to_string(r) + " ran " +
                     std::to_string(static_cast<long long>(c->count.value_or(0))) + " " + c->kind.str() + " kernels";
        add_trouble(trouble_, "collective_on_some_ranks", all_ranks_, nullptr,
                    "a graph with collectives was captured differently across ranks: " + detail + eager, kCollectiveOrderHint);
      } else {
        add_trouble(trouble_, "graph_differs", all_ranks_, nullptr, "a graph differs across ranks: " + detail,
                    "the ranks captured different work: a rank-dependent branch or size in the captured region");
      }
    }
  }

  // "rank 0: graph_3 (12 nodes, allreduce; only here: k x1); rank 1: no such graph".
  static std::string unmatched_row_text(const std::vector<std::pair<int, const ProfileGraph*>>& row) {
    std::string detail;
    for (const auto& [r, g] : row) {
      detail += detail.empty() ? "" : "; ";
      detail += "rank " + std::to_string(r) + ": ";
      if (g == nullptr) {
        detail += "no such graph";
        continue;
      }
      detail += graph_name(*g) + " (" + std::to_string(static_cast<long long>(g->nodes.value_or(0))) + " nodes";
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
      for (const auto& g : rank.graphs) nccl_ = nccl_ || !g.graph->collectives.empty();
    }
    std::vector<int> failed, clean;
    for (const auto& [r, rank] : ranks_) (rank.capture_trouble.empty() ? clean : failed).push_back(r);
    if (failed.empty() || (clean.empty() && !nccl_)) return;
    const ProfileCaptureTrouble& t = *ranks_[failed.front()].capture_trouble.front();
    std::string detail = "capture failed on " + rank_list(failed) + " (first: " + t.api.str() + " returned " + t.error.str() + ")";
    if (!clean.empty()) detail += ", not on " + rank_list(clean);
    add_trouble(trouble_, clean.empty() ? "capture_failed_with_collectives" : "capture_failed_on_some_ranks", failed, nullptr,
                detail, nccl_ ? kCaptureWithNcclHint : "ranks that capture different work replay different graphs");
  }

  // A row per rank: its identity, processes, graph launches and collective time (`totals`: rank ->
  // collective time and wait).
  ProfileList<ProfileRankSummary> rank_rows(std::map<int, std::pair<double, double>>& totals) const {
    ProfileList<ProfileRankSummary> rows;
    rows.present = true;
    for (const auto& [r, rank] : ranks_) {
      const ProfileRankId& id = *rank.identity;
      double launches = 0, gpu = 0;
      for (const auto& g : rank.graphs) {
        launches += g.graph->launches.value_or(0);
        gpu += g.graph->gpu_span ? g.graph->gpu_span->total_ns.value_or(0) : 0;
      }
      ProfileRankSummary& row = rows.emplace_back();
      row.rank = r;
      row.local_rank = copied(id.local_rank);
      row.world_size = copied(id.world_size);
      row.local_world_size = copied(id.local_world_size);
      row.node_rank = copied(id.node_rank);
      row.from = copied(id.from);
      row.host = rank.host;
      row.processes = section_values::numbers(rank.processes);
      row.pids = section_values::numbers(rank.pids);
      row.gpus = rank.gpus;
      row.graph_launches = launches;
      row.graph_gpu_ns = gpu;
      // null without any collective in the job: nothing was measured, not 0 ns
      row.collective_ns = nccl_ ? ProfileNumber(totals[r].first) : ProfileNumber::null();
      row.collective_wait_ns = nccl_ ? ProfileNumber(totals[r].second) : ProfileNumber::null();
    }
    return rows;
  }

  const ProfileList<ProfileProcess>& processes_;
  std::map<int, Rank> ranks_;
  std::set<long long> world_sizes_;
  std::vector<int> all_ranks_;
  std::map<int, std::vector<const ProfileGraph*>> unmatched_;  // rank -> its graphs that some rank lacks
  bool nccl_ = false;                                          // a collective ran somewhere in the job
  ProfileCrossRank view_;
  ProfileList<ProfileRankTrouble> trouble_;
  ProfileList<ProfileText> notes_;
};

}  // namespace

ProfileOptional<ProfileCrossRank> cross_rank_view(const ProfileList<ProfileProcess>& processes) {
  return CrossRankView(processes).build();
}

json cross_rank_view(const json& processes) {
  if (!processes.is_array()) return nullptr;
  const ProfileSection s = profile_section_from_json(json{{"processes", processes}});
  const ProfileOptional<ProfileCrossRank> view = cross_rank_view(s.processes);
  if (!view) return nullptr;
  ProfileSection with_view;
  with_view.cross_rank = view;
  return to_json(with_view).at("cross_rank");
}

}  // namespace gp
