// Console text of a multi-rank profile: the ranks, the same graph on every rank with its slowest
// rank and skew, collectives and the estimated wait, and trouble seen across ranks. Read from
// sections.profile.cross_rank only (graphprof/profile/profile_ranks.hpp describes it).
#include <cmath>
#include <map>
#include <sstream>

#include "graphprof/core/json_fields.hpp"
#include "graphprof/profile/profile_ranks.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

using nlohmann::json;

namespace {

const json& member(const json& j, const char* key) { return json_fields::field(j, key); }
double num(const json& j, const char* key) { return json_fields::number(j, key); }
std::string text(const json& j, const char* key) { return one_line(json_fields::text(j, key)); }

std::string time_or_dash(double ns) { return std::isfinite(ns) ? format_ns(ns) : "-"; }

std::string integer(const json& j, const char* key) {
  const double v = num(j, key);
  return std::isfinite(v) ? strf("%.0f", v) : "-";
}

std::string gpus_text(const json& rank) {
  std::string s;
  for (const auto& g : member(rank, "gpus")) {
    s += s.empty() ? "" : ", ";
    s += integer(g, "ordinal");
    const std::string bus = text(g, "pci_bus_id");
    if (!bus.empty()) s += " " + bus;
  }
  return s.empty() ? "-" : s;
}

std::string ints_text(const json& list) {
  std::string s;
  if (list.is_array())
    for (const auto& v : list)
      if (v.is_number()) s += (s.empty() ? "" : ",") + strf("%.0f", v.get<double>());
  return s.empty() ? "-" : s;
}

std::string collectives_text(const json& graph) {
  std::string s;
  for (const auto& c : member(graph, "collectives")) {
    s += s.empty() ? "" : ", ";
    s += text(c, "kind");
    const double per = num(c, "per_launch");
    if (std::isfinite(per)) s += strf(" x%g", per);
  }
  return s.empty() ? "-" : s;
}

// "5.82 µs (rank 1)"
std::string at_rank(const json& graph, const char* which) {
  const json& r = member(graph, which);
  if (!r.is_number()) return "-";
  for (const auto& pr : member(graph, "ranks"))
    if (member(pr, "rank") == r) return time_or_dash(num(pr, "gpu_per_launch_ns")) + " (rank " + strf("%.0f", r.get<double>()) + ")";
  return "-";
}

}  // namespace

std::string format_cross_rank_summary(const json& view, bool verbose) {
  const json& ranks = member(view, "ranks");
  const json& trouble = member(view, "trouble");
  if (!ranks.is_array() || (ranks.size() < 2 && (!trouble.is_array() || trouble.empty()))) return {};
  std::ostringstream out;
  const json& hosts = member(view, "hosts");
  out << "\ncross-rank view: " << ranks.size() << " ranks";
  if (member(view, "world_size").is_number()) out << " of world size " << integer(view, "world_size");
  out << " on " << plural(hosts.is_array() ? hosts.size() : 0, "host", "hosts") << "\n";
  TextTable per_rank({"rank", "local", "host", "GPU", "pids", "graph launches", "GPU in graphs", "in collectives", "wait (est.)"});
  for (const auto& r : ranks)
    per_rank.add({integer(r, "rank"), integer(r, "local_rank"), text(r, "host"), gpus_text(r), ints_text(member(r, "pids")),
                  integer(r, "graph_launches"), time_or_dash(num(r, "graph_gpu_ns")), time_or_dash(num(r, "collective_ns")),
                  time_or_dash(num(r, "collective_wait_ns"))});
  out << per_rank.str();

  const json& graphs = member(view, "graphs");
  if (graphs.is_array() && !graphs.empty()) {
    out << "\n  the same graph on every rank (GPU time per launch, median; skew = slowest - fastest)\n";
    TextTable rows({"graph", "matched by", "nodes", "on ranks", "fastest", "slowest", "skew", "collectives", "share"});
    std::size_t shown = 0;
    for (const auto& g : graphs) {
      if (++shown > 20 && !verbose) break;
      const std::size_t on = member(g, "ranks").is_array() ? member(g, "ranks").size() : 0;
      const double skew = num(g, "skew");
      rows.add({text(g, "id"), text(g, "matched_by"), integer(g, "nodes"),
                std::to_string(on) + "/" + std::to_string(ranks.size()), at_rank(g, "fastest_rank"), at_rank(g, "slowest_rank"),
                std::isfinite(num(g, "skew_ns")) ? format_ns(num(g, "skew_ns")) + (std::isfinite(skew) ? strf(" (%+.1f %%)", 100.0 * skew) : "")
                                                 : "- (" + std::to_string(on) + " rank" + (on == 1 ? ")" : "s)"),
                collectives_text(g), std::isfinite(num(g, "collective_share")) ? strf("%.1f %%", 100.0 * num(g, "collective_share")) : "-"});
    }
    out << rows.str();
    if (graphs.size() > 20 && !verbose) out << "  ... " << graphs.size() - 20 << " more in the report (--verbose)\n";
    // Per rank, for every graph with collectives (the rest with --verbose).
    bool header = false;
    for (const auto& g : graphs) {
      if (!verbose && member(g, "collectives").empty()) continue;
      if (!header) {
        out << "\n  per rank (wait = a rank's time in collectives minus the fastest rank's: an estimate of waiting for peers)\n";
        header = true;
      }
      TextTable detail({"graph", "rank", "exec", "launches", "GPU/launch", "in collectives", "outside", "wait (est.)", "capture mode"});
      for (const auto& pr : member(g, "ranks"))
        detail.add({text(g, "id") + " graph_" + integer(pr, "graph"), integer(pr, "rank"), integer(pr, "exec"), integer(pr, "launches"),
                    time_or_dash(num(pr, "gpu_per_launch_ns")), time_or_dash(num(pr, "collective_per_launch_ns")),
                    time_or_dash(num(pr, "outside_collectives_per_launch_ns")), time_or_dash(num(pr, "wait_per_launch_ns")),
                    text(pr, "capture_mode").empty() ? "-" : text(pr, "capture_mode")});
      out << detail.str();
    }
  }
  if (trouble.is_array() && !trouble.empty()) {
    out << "\n  trouble across ranks\n";
    for (const auto& t : trouble) {
      out << "  - " << text(t, "detail") << "\n";
      if (!text(t, "hint").empty()) out << "    fix: " << text(t, "hint") << "\n";
    }
  }
  for (const auto& n : member(view, "notes"))
    if (n.is_string()) out << "  note: " << one_line(n.get<std::string>()) << "\n";
  return out.str();
}

std::string rank_label(const json& process) {
  const json& r = member(process, "rank");
  if (!r.is_object()) return {};
  std::string s = "rank " + integer(r, "rank");
  if (member(r, "world_size").is_number()) s += " of " + integer(r, "world_size");
  if (member(r, "local_rank").is_number()) s += ", local " + integer(r, "local_rank");
  if (!text(process, "host").empty()) s += ", host " + text(process, "host");
  std::string gpus;
  for (const auto& g : member(process, "gpus")) {
    gpus += gpus.empty() ? "" : ", ";
    gpus += "GPU " + integer(g, "ordinal");
    if (!text(g, "pci_bus_id").empty()) gpus += " " + text(g, "pci_bus_id");
  }
  if (!gpus.empty()) s += ", " + gpus;
  return s;
}

}  // namespace gp
