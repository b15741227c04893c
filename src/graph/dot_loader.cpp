// Loading cudaGraphDebugDotPrint dumps into the GraphModel. graphprof's own DOT reader
// (dot_reader.hpp) parses the text, node_label.cpp reads each node's label, and this file checks
// that what was read is a CUDA graph dump and builds the model. No Graphviz here: cgraph's parsed
// graph cost about 450 bytes per node and edge on top of the model.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

#include "dot_reader.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_model.hpp"
#include "node_label.hpp"

namespace gp {

namespace {

// The attributes the loader reads; their values come in this order per node / edge.
const std::vector<std::string> kNodeAttrs = {"label", "shape", "style"};
const std::vector<std::string> kEdgeAttrs = {"headlabel"};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A decimal number of a dump (a graph id, a port) as int64; a bad input when it does not fit.
std::int64_t dump_number(std::string_view digits, const std::string& source, const std::string& what) {
  std::int64_t v = 0;
  for (char c : digits) {
    if (v > (INT64_MAX - (c - '0')) / 10)
      throw input_error(source + ": " + what + ": the number " + std::string(digits.substr(0, 40)) +
                        (digits.size() > 40 ? "..." : "") + " is too large");
    v = v * 10 + (c - '0');
  }
  return v;
}

// Graph ids of the cluster subgraphs, at any depth ("cluster_<G>", label "graph_<G>").
std::set<GraphId> cluster_ids(const detail::DotGraph& g, const std::string& source) {
  std::set<GraphId> ids;
  for (const std::string_view name : g.subgraph_names)
    if (name.rfind("cluster_", 0) == 0 && all_digits(name.substr(8)))
      ids.insert(dump_number(name.substr(8), source,
                             "subgraph " + detail::valid_utf8(name.substr(0, 60))));
  return ids;
}

bool is_blank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

// Kahn's algorithm over the edges, which are grouped by tail; returns the name of a node on a
// cycle, or empty when there is none.
std::string find_cycle(const GraphModel& m) {
  const std::size_t n = m.nodes.size();
  std::vector<std::size_t> first_out(n + 1, 0);
  std::vector<std::uint32_t> indeg(n, 0);
  for (const auto& e : m.edges) {
    ++first_out[e.from + 1];
    ++indeg[e.to];
  }
  for (std::size_t i = 0; i < n; ++i) first_out[i + 1] += first_out[i];
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push_back(i);
  std::size_t seen = 0;
  while (!ready.empty()) {
    const std::size_t v = ready.back();
    ready.pop_back();
    ++seen;
    for (std::size_t k = first_out[v]; k < first_out[v + 1]; ++k)
      if (--indeg[m.edges[k].to] == 0) ready.push_back(m.edges[k].to);
  }
  if (seen == n) return {};
  for (std::size_t i = 0; i < n; ++i)
    if (indeg[i] > 0) return m.nodes[i].dot_name;
  return {};
}

// An edge whose ends lie in two graphs, as "TAIL -> HEAD", or empty. The driver links a child
// graph or a conditional body through its node's label, never by an edge; the analysis works
// graph by graph and would drop such an edge without a word.
std::string find_edge_across_graphs(const GraphModel& m) {
  for (const auto& e : m.edges)
    if (m.nodes[e.from].graph_id != m.nodes[e.to].graph_id)
      return m.nodes[e.from].dot_name + " -> " + m.nodes[e.to].dot_name;
  return {};
}

// Reads the labels of nodes [begin, end); `unknown[i]` marks labels that said nothing usable.
// Bytes that are not UTF-8 (a label written in Latin-1) become U+FFFD, so every name can go
// into JSON.
void read_labels(std::vector<GraphNode>& nodes, const std::vector<std::string_view>& values,
                 std::vector<char>& unknown, std::size_t begin, std::size_t end, const std::string& source) {
  const std::size_t stride = kNodeAttrs.size();
  for (std::size_t i = begin; i < end; ++i) {
    const std::string label = detail::valid_utf8(values[i * stride]);
    // An undeclared label reads as Graphviz's default "\N" (the node's name).
    try {
      unknown[i] = label.empty() || label == "\\N" ||
                   !detail::read_node_label(label, detail::valid_utf8(values[i * stride + 1]),
                                            detail::valid_utf8(values[i * stride + 2]), nodes[i]);
    } catch (const Error& e) {
      throw Error(e.code(), source + ": node " + nodes[i].dot_name + ": " + e.what());
    }
  }
}

// Big dumps are mostly label text; reading it is independent per node, so it is spread over
// a few threads.
void read_all_labels(std::vector<GraphNode>& nodes, const std::vector<std::string_view>& values,
                     std::vector<char>& unknown, const std::string& source) {
  constexpr std::size_t kPerThread = 20000;
  const std::size_t n = nodes.size();
  const std::size_t threads =
      std::min<std::size_t>({n / kPerThread, std::max(1u, std::thread::hardware_concurrency()), 8});
  if (threads <= 1) {
    read_labels(nodes, values, unknown, 0, n, source);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  const std::size_t chunk = (n + threads - 1) / threads;
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        read_labels(nodes, values, unknown, t * chunk, std::min(n, (t + 1) * chunk), source);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

template <typename T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// The nodes, in the reader's order (first appearance), with their labels read.
void add_nodes(GraphModel& m, detail::DotGraph& g, const std::string& source) {
  m.nodes.reserve(g.node_names.size());
  for (const std::string_view name : g.node_names) {
    GraphNode node;
    node.dot_name = std::string(name);
    if (!detail::parse_node_name(node.dot_name, node.graph_id, node.index))
      throw input_error(source + ": not a CUDA graph dump: node '" + detail::valid_utf8(node.dot_name.substr(0, 80)) +
                        "' is not named graph_<G>_node_<i> (G and i below 2^63) as cudaGraphDebugDotPrint names nodes");
    m.nodes.push_back(std::move(node));
  }
  release(g.node_names);
  std::vector<char> unknown(m.nodes.size(), 0);
  read_all_labels(m.nodes, g.node_values, unknown, source);
  release(g.node_values);
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (unknown[i]) m.warnings.push_back(m.nodes[i].dot_name + " has no label the loader understands; its kind is 'other'");
}

// The edges grouped by tail node, and by head node within a tail (parallel edges in the order
// they were written): the order in which Graphviz listed them when it loaded dumps, so that
// everything downstream (ports, pictures, goldens) sees the same sequence.
void add_edges(GraphModel& m, detail::DotGraph& g, const std::string& source) {
  const std::size_t n = m.nodes.size();
  std::vector<std::size_t> slot(n + 1, 0);
  for (const auto& e : g.edges) ++slot[e.tail + 1];
  for (std::size_t i = 0; i < n; ++i) slot[i + 1] += slot[i];
  m.edges.resize(g.edges.size());
  for (std::size_t k = 0; k < g.edges.size(); ++k) {
    GraphEdge edge;
    edge.from = g.edges[k].tail;
    edge.to = g.edges[k].head;
    const std::string_view port = g.edge_values[k];
    if (all_digits(port)) {
      const std::string what = "headlabel of an edge into " + m.nodes[edge.to].dot_name;
      const std::int64_t p = dump_number(port, source, what);
      if (p > INT32_MAX) throw input_error(source + ": " + what + ": port " + std::string(port) + " is too large");
      edge.port = static_cast<int>(p);
    }
    m.edges[slot[edge.from]++] = edge;
  }
  release(g.edges);
  release(g.edge_values);
  auto by_head = [](const GraphEdge& a, const GraphEdge& b) { return a.to < b.to; };
  for (std::size_t b = 0; b < m.edges.size();) {
    std::size_t e = b + 1;
    while (e < m.edges.size() && m.edges[e].from == m.edges[b].from) ++e;
    const auto first = m.edges.begin() + static_cast<std::ptrdiff_t>(b), last = m.edges.begin() + static_cast<std::ptrdiff_t>(e);
    if (!std::is_sorted(first, last, by_head)) std::stable_sort(first, last, by_head);
    b = e;
  }
}

void build_clusters(GraphModel& m, const std::set<GraphId>& declared) {
  std::map<GraphId, GraphCluster> by_id;
  for (GraphId id : declared) by_id[id].graph_id = id;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    GraphCluster& c = by_id[m.nodes[i].graph_id];
    c.graph_id = m.nodes[i].graph_id;
    c.nodes.push_back(i);
  }
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    for (GraphId child : m.nodes[i].child_graphs) {
      auto it = by_id.find(child);
      if (it == by_id.end()) {
        m.warnings.push_back(m.nodes[i].dot_name + " runs graph_" + std::to_string(child) +
                             ", which is not in the file");
        continue;
      }
      if (child == m.nodes[i].graph_id) continue;  // a label that names its own graph is no link
      it->second.parent_node = i;
    }
  }
  for (auto& [id, c] : by_id) m.clusters.push_back(std::move(c));
}

// `text` is consumed: it is released as soon as the model has what it needs from it.
GraphModel load_dot_owned(std::string text, const std::string& source) {
  if (is_blank(text)) throw input_error(source + ": file is empty; expected a cudaGraphDebugDotPrint dump");
  if (text.find('\0') != std::string::npos)
    throw input_error(source + ": not DOT text (binary data); expected a cudaGraphDebugDotPrint dump");
  detail::DotGraph g;
  try {
    g = detail::read_dot(text, kNodeAttrs, kEdgeAttrs);
  } catch (const detail::DotSyntaxError& e) {
    throw input_error(source + ": not valid DOT: " + e.what());
  }
  if (!g.directed)
    throw input_error(source + ": not a CUDA graph dump: it is an undirected 'graph', dumps are 'digraph'");

  GraphModel m;
  m.source = source;
  add_nodes(m, g, source);
  add_edges(m, g, source);
  const std::set<GraphId> declared = cluster_ids(g, source);
  g = detail::DotGraph();
  std::string().swap(text);  // the model has everything; the rest of the work needs no text
  if (m.nodes.empty()) {
    if (declared.empty())
      throw input_error(source + ": not a CUDA graph dump: no nodes and no graph_<G> clusters");
    throw input_error(source + ": the dumped CUDA graph has no nodes; nothing to analyze");
  }
  const std::string on_cycle = find_cycle(m);
  if (!on_cycle.empty())
    throw input_error(source + ": not a CUDA graph dump: the edges form a cycle through " + on_cycle);
  const std::string across = find_edge_across_graphs(m);
  if (!across.empty())
    throw input_error(source + ": not a CUDA graph dump: the edge " + across +
                      " joins two graphs (dumps link a child graph through its node's label, never by an edge)");
  build_clusters(m, declared);
  for (const auto& n : m.nodes) {
    const bool record_kind = n.kind == NodeKind::kKernel || n.kind == NodeKind::kMemcpy ||
                             n.kind == NodeKind::kMemset || n.kind == NodeKind::kMemAlloc;
    if (record_kind && n.shape == "record") {
      m.verbose = true;
      break;
    }
  }
  return m;
}

}  // namespace

GraphModel load_dot_text(const std::string& text, const std::string& source) { return load_dot_owned(text, source); }

GraphModel load_dot(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw input_error(path + ": is a folder, not a DOT file");
  return load_dot_owned(read_file(path), path);
}

}  // namespace gp
