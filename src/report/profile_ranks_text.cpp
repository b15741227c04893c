// Console text of a multi-rank profile: the ranks, the same graph on every rank with its slowest
// rank and skew, collectives and the estimated wait, and trouble seen across ranks. Read from
// sections.profile.cross_rank only (graphprof/profile/profile_ranks.hpp describes it).
#include <cmath>
#include <map>
#include <sstream>

#include "graphprof/profile/profile_ranks.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

using nlohmann::json;

namespace {

std::string text(const ProfileText& t) { return one_line(t); }

std::string time_or_dash(double ns) { return std::isfinite(ns) ? format_ns(ns) : "-"; }

std::string integer(const ProfileNumber& n) {
  const double v = n;
  return std::isfinite(v) ? strf("%.0f", v) : "-";
}

std::string gpus_text(const ProfileList<ProfileGpu>& gpus) {
  std::string s;
  for (const auto& g : gpus) {
    s += s.empty() ? "" : ", ";
    s += integer(g.ordinal);
    const std::string bus = text(g.pci_bus_id);
    if (!bus.empty()) s += " " + bus;
  }
  return s.empty() ? "-" : s;
}

std::string ints_text(const ProfileList<ProfileNumber>& list) {
  std::string s;
  for (const auto& v : list)
    if (v.is_number()) s += (s.empty() ? "" : ",") + strf("%.0f", v.value());
  return s.empty() ? "-" : s;
}

std::string collectives_text(const ProfileCrossRankGraph& graph) {
  std::string s;
  for (const auto& c : graph.collectives) {
    s += s.empty() ? "" : ", ";
    s += text(c.kind);
    const double per = c.per_launch;
    if (std::isfinite(per)) s += strf(" x%g", per);
  }
  return s.empty() ? "-" : s;
}

// "5.82 µs (rank 1)"
std::string at_rank(const ProfileCrossRankGraph& graph, const ProfileNumber& r) {
  if (!r.is_number()) return "-";
  for (const auto& pr : graph.ranks)
    if (pr.rank.is_number() && pr.rank.value() == r.value())
      return time_or_dash(pr.gpu_per_launch_ns) + " (rank " + strf("%.0f", r.value()) + ")";
  return "-";
}

// Whether a list is there as a list (read whole, or kept in `extra` with elements of other types).
template <class T>
bool is_list(const ProfileList<T>& list, const json& extra, const char* key) {
  const auto it = extra.find(key);
  return list.present || (it != extra.end() && it->is_array());
}

}  // namespace

std::string format_cross_rank_summary(const ProfileCrossRank& view, bool verbose) {
  const auto& ranks = view.ranks;
  const auto& trouble = view.trouble;
  if (!is_list(ranks, view.extra, "ranks") || (ranks.size() < 2 && trouble.empty())) return {};
  std::ostringstream out;
  out << "\ncross-rank view: " << ranks.size() << " ranks";
  if (view.world_size.is_number()) out << " of world size " << integer(view.world_size);
  out << " on " << plural(view.hosts.size(), "host", "hosts") << "\n";
  TextTable per_rank({"rank", "local", "host", "GPU", "pids", "graph launches", "GPU in graphs", "in collectives", "wait (est.)"});
  for (const auto& r : ranks)
    per_rank.add({integer(r.rank), integer(r.local_rank), text(r.host), gpus_text(r.gpus), ints_text(r.pids), integer(r.graph_launches),
                  time_or_dash(r.graph_gpu_ns), time_or_dash(r.collective_ns), time_or_dash(r.collective_wait_ns)});
  out << per_rank.str();

  const auto& graphs = view.graphs;
  if (!graphs.empty()) {
    out << "\n  the same graph on every rank (GPU time per launch, median; skew = slowest - fastest)\n";
    TextTable rows({"graph", "matched by", "nodes", "on ranks", "fastest", "slowest", "skew", "collectives", "share"});
    std::size_t shown = 0;
    for (const auto& g : graphs) {
      if (++shown > 20 && !verbose) break;
      const std::size_t on = g.ranks.size();
      const double skew = g.skew;
      rows.add({text(g.id), text(g.matched_by), integer(g.nodes), std::to_string(on) + "/" + std::to_string(ranks.size()),
                at_rank(g, g.fastest_rank), at_rank(g, g.slowest_rank),
                std::isfinite(g.skew_ns) ? format_ns(g.skew_ns) + (std::isfinite(skew) ? strf(" (%+.1f %%)", 100.0 * skew) : "")
                                         : "- (" + std::to_string(on) + " rank" + (on == 1 ? ")" : "s)"),
                collectives_text(g), std::isfinite(g.collective_share) ? strf("%.1f %%", 100.0 * g.collective_share) : "-"});
    }
    out << rows.str();
    if (graphs.size() > 20 && !verbose) out << "  ... " << graphs.size() - 20 << " more in the report (--verbose)\n";
    // Per rank, for every graph with collectives (the rest with --verbose).
    bool header = false;
    for (const auto& g : graphs) {
      if (!verbose && g.collectives.empty()) continue;
      if (!header) {
        out << "\n  per rank (wait = a rank's time in collectives minus the fastest rank's: an estimate of waiting for peers)\n";
        header = true;
      }
      TextTable detail({"graph", "rank", "exec", "launches", "GPU/launch", "in collectives", "outside", "wait (est.)", "capture mode"});
      for (const auto& pr : g.ranks)
        detail.add({text(g.id) + " graph_" + integer(pr.graph), integer(pr.rank), integer(pr.exec), integer(pr.launches),
                    time_or_dash(pr.gpu_per_launch_ns), time_or_dash(pr.collective_per_launch_ns),
                    time_or_dash(pr.outside_collectives_per_launch_ns), time_or_dash(pr.wait_per_launch_ns),
                    text(pr.capture_mode).empty() ? "-" : text(pr.capture_mode)});
      out << detail.str();
    }
  }
  if (!trouble.empty()) {
    out << "\n  trouble across ranks\n";
    for (const auto& t : trouble) {
      out << "  - " << text(t.detail) << "\n";
      if (!text(t.hint).empty()) out << "    fix: " << text(t.hint) << "\n";
    }
  }
  for (const auto& n : view.notes) out << "  note: " << one_line(n) << "\n";
  return out.str();
}

std::string format_cross_rank_summary(const json& cross_rank, bool verbose) {
  const ProfileSection s = profile_section_from_json(json{{"cross_rank", cross_rank}});
  return s.cross_rank ? format_cross_rank_summary(*s.cross_rank, verbose) : std::string();
}

std::string rank_label(const ProfileProcess& process) {
  if (!process.rank) return {};
  const ProfileRankId& r = *process.rank;
  std::string s = "rank " + integer(r.rank);
  if (r.world_size.is_number()) s += " of " + integer(r.world_size);
  if (r.local_rank.is_number()) s += ", local " + integer(r.local_rank);
  if (!text(process.host).empty()) s += ", host " + text(process.host);
  std::string gpus;
  for (const auto& g : process.gpus) {
    gpus += gpus.empty() ? "" : ", ";
    gpus += "GPU " + integer(g.ordinal);
    if (!text(g.pci_bus_id).empty()) gpus += " " + text(g.pci_bus_id);
  }
  if (!gpus.empty()) s += ", " + gpus;
  return s;
}

}  // namespace gp
