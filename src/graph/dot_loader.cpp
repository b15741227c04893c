// Loading cudaGraphDebugDotPrint dumps with Graphviz cgraph. This is the only file that includes
// cgraph.h: the DOT syntax (escapes, duplicated attributes, missing spaces, nested clusters) is
// cgraph's job, and what comes out of here is the plain GraphModel.
#include <graphviz/cgraph.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <memory>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include "graphprof/atomic_file.hpp"
#include "graphprof/error.hpp"
#include "graphprof/graph_model.hpp"
#include "graphviz_messages.hpp"
#include "node_label.hpp"

namespace gp {

namespace {

// Hands the text to cgraph's lexer in large chunks (agmemread feeds it one line at a time).
struct TextChannel {
  const char* next;
  std::size_t left;
};

int read_chunk(void* chan, char* buf, int bufsize) {
  auto* c = static_cast<TextChannel*>(chan);
  const std::size_t n = std::min(c->left, static_cast<std::size_t>(std::max(bufsize, 0)));
  std::memcpy(buf, c->next, n);
  c->next += n;
  c->left -= n;
  return static_cast<int>(n);
}

// A graph read by cgraph, closed once the model has what it needs. cgraph's own memory
// discipline (malloc/free per object): an earlier arena discipline was no faster on 1,000,000
// nodes, leaked the dictionaries that libcdt malloc'ed itself (agclose() with a discipline
// that has a close function skips them), and without that close function cgraph's parser
// freed arena memory with free() when it closed a half-read graph on a syntax error (found
// by fuzz_graph_analysis).
class OwnedGraph {
 public:
  explicit OwnedGraph(Agraph_t* g) : g_(g) {}
  OwnedGraph(const OwnedGraph&) = delete;
  OwnedGraph& operator=(const OwnedGraph&) = delete;
  ~OwnedGraph() { reset(); }
  void reset() {
    if (g_ != nullptr) agclose(g_);
    g_ = nullptr;
  }
  Agraph_t* get() const { return g_; }
  explicit operator bool() const { return g_ != nullptr; }

 private:
  Agraph_t* g_;
};

std::string attr(void* obj, Agsym_t* sym) {
  if (sym == nullptr) return {};
  const char* v = agxget(obj, sym);
  return v == nullptr ? std::string() : std::string(v);
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A decimal number of a dump (a graph id, a port) as int64; a bad input when it does not fit.
std::int64_t dump_number(const std::string& digits, const std::string& source, const std::string& what) {
  std::int64_t v = 0;
  for (char c : digits) {
    if (v > (INT64_MAX - (c - '0')) / 10)
      throw input_error(source + ": " + what + ": the number " + digits.substr(0, 40) +
                        (digits.size() > 40 ? "..." : "") + " is too large");
    v = v * 10 + (c - '0');
  }
  return v;
}

// Graph ids of the cluster subgraphs, at any depth ("cluster_<G>", label "graph_<G>"). Walked
// with an explicit stack: subgraphs may nest as deep as cgraph's parser allows.
void collect_cluster_ids(Agraph_t* root, const std::string& source, std::set<GraphId>& ids) {
  std::vector<Agraph_t*> todo{root};
  while (!todo.empty()) {
    Agraph_t* g = todo.back();
    todo.pop_back();
    for (Agraph_t* sg = agfstsubg(g); sg != nullptr; sg = agnxtsubg(sg)) {
      const std::string name = agnameof(sg);
      if (name.rfind("cluster_", 0) == 0 && all_digits(name.substr(8)))
        ids.insert(dump_number(name.substr(8), source, "subgraph " + name.substr(0, 60)));
      todo.push_back(sg);
    }
  }
}

bool is_blank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

// Kahn's algorithm; returns the name of a node on a cycle, or empty when there is none.
std::string find_cycle(const GraphModel& m) {
  std::vector<std::vector<std::size_t>> out(m.nodes.size());
  std::vector<std::size_t> indeg(m.nodes.size(), 0);
  for (const auto& e : m.edges) {
    out[e.from].push_back(e.to);
    ++indeg[e.to];
  }
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < indeg.size(); ++i)
    if (indeg[i] == 0) ready.push_back(i);
  std::size_t seen = 0;
  while (!ready.empty()) {
    const std::size_t n = ready.back();
    ready.pop_back();
    ++seen;
    for (std::size_t t : out[n])
      if (--indeg[t] == 0) ready.push_back(t);
  }
  if (seen == m.nodes.size()) return {};
  for (std::size_t i = 0; i < indeg.size(); ++i)
    if (indeg[i] > 0) return m.nodes[i].dot_name;
  return {};
}

const char* attr_cstr(void* obj, Agsym_t* sym) {
  if (sym == nullptr) return "";
  const char* v = agxget(obj, sym);
  return v == nullptr ? "" : v;
}

// Reads the labels of nodes [begin, end); `unknown[i]` marks labels that said nothing usable.
// The label texts belong to cgraph and stay valid until the graph is closed. Bytes that are not
// UTF-8 (a label written in Latin-1) become U+FFFD, so every name can go into JSON.
void read_labels(std::vector<GraphNode>& nodes, const std::vector<std::array<const char*, 3>>& raw,
                 std::vector<char>& unknown, std::size_t begin, std::size_t end, const std::string& source) {
  for (std::size_t i = begin; i < end; ++i) {
    const std::string label = detail::valid_utf8(raw[i][0]);
    // An undeclared label reads as Graphviz's default "\N" (the node's name).
    try {
      unknown[i] = label.empty() || label == "\\N" ||
                   !detail::read_node_label(label, detail::valid_utf8(raw[i][1]), detail::valid_utf8(raw[i][2]), nodes[i]);
    } catch (const Error& e) {
      throw Error(e.code(), source + ": node " + nodes[i].dot_name + ": " + e.what());
    }
  }
}

// Big dumps are mostly label text; reading it is independent per node, so it is spread over
// a few threads (cgraph's own parse, before it, is single-threaded).
void read_all_labels(std::vector<GraphNode>& nodes, const std::vector<std::array<const char*, 3>>& raw,
                     std::vector<char>& unknown, const std::string& source) {
  constexpr std::size_t kPerThread = 20000;
  const std::size_t n = nodes.size();
  const std::size_t threads =
      std::min<std::size_t>({n / kPerThread, std::max(1u, std::thread::hardware_concurrency()), 8});
  if (threads <= 1) {
    read_labels(nodes, raw, unknown, 0, n, source);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  const std::size_t chunk = (n + threads - 1) / threads;
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        read_labels(nodes, raw, unknown, t * chunk, std::min(n, (t + 1) * chunk), source);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

GraphModel model_from_cgraph(Agraph_t* g, const std::string& source) {
  GraphModel m;
  m.source = source;
  Agsym_t* label = agattr(g, AGNODE, const_cast<char*>("label"), nullptr);
  Agsym_t* shape = agattr(g, AGNODE, const_cast<char*>("shape"), nullptr);
  Agsym_t* style = agattr(g, AGNODE, const_cast<char*>("style"), nullptr);
  Agsym_t* headlabel = agattr(g, AGEDGE, const_cast<char*>("headlabel"), nullptr);

  // Node index by cgraph's sequence number (dense, in creation order): a vector, not a hash
  // map, because a 1,000,000-node dump must load in a few times its size.
  std::vector<std::size_t> index_of;
  const auto count = static_cast<std::size_t>(std::max(0, agnnodes(g)));
  m.nodes.reserve(count);
  index_of.assign(count + 1, SIZE_MAX);
  std::vector<std::array<const char*, 3>> raw;
  raw.reserve(count);
  for (Agnode_t* n = agfstnode(g); n != nullptr; n = agnxtnode(g, n)) {
    GraphNode node;
    node.dot_name = agnameof(n);
    if (!detail::parse_node_name(node.dot_name, node.graph_id, node.index))
      throw input_error(source + ": not a CUDA graph dump: node '" + detail::valid_utf8(node.dot_name.substr(0, 80)) +
                        "' is not named graph_<G>_node_<i> (G and i below 2^63) as cudaGraphDebugDotPrint names nodes");
    raw.push_back({attr_cstr(n, label), attr_cstr(n, shape), attr_cstr(n, style)});
    const auto seq = static_cast<std::size_t>(AGSEQ(n));
    if (seq >= index_of.size()) index_of.resize(seq + 1, SIZE_MAX);
    index_of[seq] = m.nodes.size();
    m.nodes.push_back(std::move(node));
  }
  std::vector<char> unknown(m.nodes.size(), 0);
  read_all_labels(m.nodes, raw, unknown, source);
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (unknown[i]) m.warnings.push_back(m.nodes[i].dot_name + " has no label the loader understands; its kind is 'other'");

  for (Agnode_t* n = agfstnode(g); n != nullptr; n = agnxtnode(g, n)) {
    for (Agedge_t* e = agfstout(g, n); e != nullptr; e = agnxtout(g, e)) {
      GraphEdge edge;
      edge.from = index_of.at(static_cast<std::size_t>(AGSEQ(agtail(e))));
      edge.to = index_of.at(static_cast<std::size_t>(AGSEQ(aghead(e))));
      if (edge.from >= m.nodes.size() || edge.to >= m.nodes.size())
        throw internal_error(source + ": cgraph returned an edge to an unknown node");
      const std::string port = attr(e, headlabel);
      if (all_digits(port)) {
        const std::int64_t p = dump_number(port, source, "headlabel of an edge into " + m.nodes[edge.to].dot_name);
        if (p > INT32_MAX)
          throw input_error(source + ": headlabel of an edge into " + m.nodes[edge.to].dot_name + ": port " + port +
                            " is too large");
        edge.port = static_cast<int>(p);
      }
      m.edges.push_back(edge);
    }
  }
  return m;
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

}  // namespace

namespace detail {

namespace {
std::string g_messages;  // what Graphviz reported while a GraphvizMessages was alive

int collect_message(char* msg) {
  if (msg != nullptr) g_messages += msg;
  return 0;
}
}  // namespace

GraphvizMessages::GraphvizMessages() : previous_(agseterrf(collect_message)) { g_messages.clear(); }

GraphvizMessages::~GraphvizMessages() { agseterrf(previous_); }

std::vector<std::string> GraphvizMessages::lines() const {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < g_messages.size()) {
    const auto nl = g_messages.find('\n', start);
    std::string line = g_messages.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    for (const char* prefix : {"Error: ", "Warning: ", "<stdin>: "})
      if (line.rfind(prefix, 0) == 0) line.erase(0, std::char_traits<char>::length(prefix));
    if (!line.empty()) out.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

bool GraphvizMessages::has_errors() const { return g_messages.find("Error") != std::string::npos; }

}  // namespace detail

namespace {

// `text` is consumed: it is released as soon as cgraph has read it (a big dump's text is a
// third of the peak memory otherwise).
GraphModel load_dot_owned(std::string text, const std::string& source) {
  if (is_blank(text)) throw input_error(source + ": file is empty; expected a cudaGraphDebugDotPrint dump");
  if (text.find('\0') != std::string::npos)
    throw input_error(source + ": not DOT text (binary data); expected a cudaGraphDebugDotPrint dump");
  detail::GraphvizMessages messages;
  Agiodisc_t io = {read_chunk, AgIoDisc.putstr, AgIoDisc.flush};
  Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &io};
  TextChannel channel{text.data(), text.size()};
  OwnedGraph g(agread(&channel, &disc));
  std::string().swap(text);
  if (!g) {
    const auto why = messages.lines();
    throw input_error(source + ": not valid DOT (truncated or not a dump?): " +
                      (why.empty() ? std::string("no graph found") : why.front()));
  }
  // cgraph also reports recoverable problems; a dump from the driver never has any.
  if (messages.has_errors()) throw input_error(source + ": not valid DOT: " + messages.lines().front());
  if (!agisdirected(g.get()))
    throw input_error(source + ": not a CUDA graph dump: it is an undirected 'graph', dumps are 'digraph'");

  GraphModel m = model_from_cgraph(g.get(), source);
  std::set<GraphId> declared;
  collect_cluster_ids(g.get(), source, declared);
  g.reset();  // the model has everything; the rest of the work needs no cgraph memory
  if (m.nodes.empty()) {
    if (declared.empty())
      throw input_error(source + ": not a CUDA graph dump: no nodes and no graph_<G> clusters");
    throw input_error(source + ": the dumped CUDA graph has no nodes; nothing to analyze");
  }
  const std::string on_cycle = find_cycle(m);
  if (!on_cycle.empty())
    throw input_error(source + ": not a CUDA graph dump: the edges form a cycle through " + on_cycle);
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
