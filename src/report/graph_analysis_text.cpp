// An analysis as text for people (`graphprof analyze`); the JSON form is
// src/graph/graph_analysis_json.cpp.
#include <map>
#include <sstream>

#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/report/graph_analysis_text.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/name_match.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

namespace {

// "1 x3, 2, 1 x2": width per level, run-length encoded so 10 000 levels stay one line.
std::string widths_text(const std::vector<std::size_t>& w) {
  std::string s;
  std::size_t groups = 0;
  for (std::size_t i = 0; i < w.size();) {
    std::size_t j = i;
    while (j < w.size() && w[j] == w[i]) ++j;
    if (groups == 24) {
      s += ", ...";
      break;
    }
    s += (groups ? ", " : "") + std::to_string(w[i]) + (j - i > 1 ? strf(" x%zu", j - i) : std::string());
    ++groups;
    i = j;
  }
  return s;
}

std::string path_text(const std::vector<std::string>& names) {
  if (names.size() <= 6) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? " -> " : "") + names[i];
    return s;
  }
  return names[0] + " -> " + names[1] + " -> ... -> " + names[names.size() - 2] + " -> " + names.back();
}

// Word-wraps `text` to `width` columns; continuation lines start with `indent`.
std::string wrap(const std::string& text, std::size_t width, const std::string& indent) {
  std::istringstream words(text);
  std::string word, out, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + indent;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

}  // namespace

std::string analysis_text(const GraphMetrics& m) {
  std::ostringstream o;
  o << m.source << ": " << plural(m.node_count, "node", "nodes") << ", " << plural(m.edge_count, "edge", "edges")
    << (m.verbose ? " (verbose dump)" : " (default dump: no launch configurations)") << "\n";
  auto kv_line = [&](const char* title, const std::map<std::string, std::size_t>& kv) {
    o << strf("  %-18s", title) << (kv.empty() ? "none" : "");
    bool first = true;
    for (const auto& [k, v] : kv) {
      o << (first ? "" : ", ") << k << " " << group_digits(v);
      first = false;
    }
    o << "\n";
  };
  kv_line("nodes by kind", m.nodes_by_kind);
  kv_line("edges by kind", m.edges_by_kind);
  std::string ids;
  for (GraphId g : m.top_level_graphs) ids += (ids.empty() ? "graph_" : ", graph_") + std::to_string(g);
  o << strf("  %-18s", "top level") << ids << ": depth " << m.depth << ", max parallelism " << m.max_parallelism
    << ", " << plural(m.roots, "root", "roots") << ", " << plural(m.leaves, "leaf", "leaves") << "\n";
  o << strf("  %-18s", "width per level") << widths_text(m.width_per_level) << "\n";
  o << strf("  %-18s", "critical path") << plural(m.critical_path.nodes.size(), "node", "nodes") << ": "
    << path_text(m.critical_path.names) << "\n";
  if (m.timed_critical_path) {
    const CriticalPath& p = *m.timed_critical_path;
    o << strf("  %-18s", "timed crit. path") << format_ns(p.time_ns) << " of " << format_ns(p.serial_time_ns)
      << " node time, " << plural(p.nodes.size(), "node", "nodes") << ": " << path_text(p.names) << "\n";
    o << strf("  %-18s", "times from") << m.times_origin << " (" << plural(m.timed_nodes, "node", "nodes")
      << " timed, " << plural(m.untimed_gpu_nodes, "GPU node", "GPU nodes") << " without a time)\n";
    // The heat map's rule (graph_analysis.hpp), so the text and the picture say the same.
    if (m.time_spread.within_2x) o << strf("  %-18s", "node times") << none_stands_out_text(m.time_spread) << "\n";
  }
  if (m.graphs.size() > 1) {
    o << "\ngraphs in the dump\n" << strf("  %-10s %-22s %8s %8s %6s %6s\n", "graph", "run by", "nodes", "edges", "depth", "width");
    for (const auto& g : m.graphs)
      o << strf("  %-10s %-22s %8zu %8zu %6zu %6zu\n", ("graph_" + std::to_string(g.graph_id)).c_str(),
                g.parent.empty() ? "(top level)" : g.parent.c_str(), g.nodes, g.edges, g.depth, g.max_width);
  }
  if (!m.kernels.empty()) {
    const bool timed = m.timed_critical_path.has_value();
    o << "\nkernels (by count)\n"
      << strf("  %8s  %-40s %s\n", "count", "name", timed ? "time (sum of medians)  launch configs <<<grid,block,smem>>>"
                                                        : "launch configs <<<grid,block,smem>>>");
    std::vector<std::string> names;  // the column, cut so that different kernels stay apart
    for (std::size_t i = 0; i < m.kernels.size() && i < 30; ++i) names.push_back(one_line(m.kernels[i].short_name));
    names = clip_names_apart(names, 40);
    std::size_t shown = 0;
    for (const auto& k : m.kernels) {
      if (++shown > 30) {
        o << strf("  ... %zu more kernel names\n", m.kernels.size() - 30);
        break;
      }
      std::string cfgs;
      std::size_t c = 0;
      for (const auto& [cfg, n] : k.launch_configs) {
        if (++c > 4) {
          cfgs += ", ...";
          break;
        }
        cfgs += (cfgs.empty() ? "" : ", ") + (cfg == "unknown" ? cfg : "<<<" + cfg + ">>>") + strf(" x%zu", n);
      }
      o << strf("  %8zu  ", k.count) << pad_right(names[shown - 1], 40) << ' ';
      if (timed) o << pad_right(k.timed ? format_ns(k.time_ns) : "-", 22) << ' ';  // "µs": pad by columns
      o << cfgs << "\n";
    }
  }
  if (!m.memcpy.empty() || m.memset_count > 0 || m.alloc_count > 0) {
    o << "\ncopies, memsets, allocations\n";
    for (const auto& c : m.memcpy)
      o << strf("  memcpy %-8s %s, %s\n", c.direction.c_str(), plural(c.count, "copy", "copies").c_str(),
                format_bytes(c.bytes).c_str());
    if (m.memset_count > 0)
      o << strf("  memset          %s, %s\n", plural(m.memset_count, "memset", "memsets").c_str(),
                format_bytes(m.memset_bytes).c_str());
    if (m.alloc_count > 0)
      o << strf("  mem alloc       %s%s\n", plural(m.alloc_count, "allocation", "allocations").c_str(),
                m.alloc_bytes > 0 ? (", " + format_bytes(m.alloc_bytes)).c_str() : " (sizes in verbose dumps only)");
  }
  o << "\nfindings\n";
  if (m.findings.empty()) o << "  none: nothing in this graph's shape stands out\n";
  for (const auto& f : m.findings) {
    o << "  [" << f.severity << "] " << f.title << " (" << f.id << ")\n";
    o << "    seen: " << wrap(f.evidence, 96, "          ") << "\n";
    o << "    why:  " << wrap(f.advice, 96, "          ") << "\n";
  }
  return o.str();
}

}  // namespace gp
