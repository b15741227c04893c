// Writes dumps the way the CUDA 13 driver does (see tests/data/dot for real ones).
#include "dot_generator.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gp::bench {

namespace {

enum class Op { kMemset, kKernel, kMemcpy };

struct Node {
  Op op;
  std::string mangled;  // kernels
  int grid = 0, block = 0;
};

struct Writer {
  bool verbose;
  int graph_id;
  std::vector<Node> nodes;
  std::vector<std::pair<std::size_t, std::size_t>> edges;

  std::string name(std::size_t i) const {
    return "graph_" + std::to_string(graph_id) + "_node_" + std::to_string(i);
  }

  std::string text() const {
    std::vector<int> port(nodes.size(), 0);
    std::string s;
    s.reserve(nodes.size() * (verbose ? 520 : 90));
    s += "digraph dot {\nsubgraph cluster_" + std::to_string(graph_id) + " {\nlabel=\"graph_" +
         std::to_string(graph_id) + "\" graph[style=\"dashed\"];\n";
    const std::size_t n = nodes.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Node& x = nodes[i];
      const std::string id = std::to_string(i);
      const std::string topo = std::to_string(n - 1 - i);  // creation order is topological here
      s += "\"" + name(i) + "\"";
      if (x.op == Op::kKernel) {
        if (verbose) {
          s += "[style=\"bold\" shape=\"record\" label=\"{KERNEL\n| {ID | " + id + " (topoId: " + topo + ") | " +
               x.mangled + "\\<\\<\\<" + std::to_string(x.grid) + "," + std::to_string(x.block) +
               ",0\\>\\>\\>}\n| {{node handle | func handle} | {0x00005613888A5158 | 0x000056138886CEA0}}\n"
               "| {accessPolicyWindow | {base_ptr | num_bytes | hitRatio | hitProp | missProp} | "
               "{0x0000000000000000 | 0 | 0.000000 | N | N}}\n| {cooperative | 0}\n| {priority | 0}\n}\"];\n\n";
        } else {
          s += "[style=\"bold\" shape=\"octagon\" label=\"" + id + "\n" + x.mangled + "\n\"];\n\n";
        }
      } else if (x.op == Op::kMemset) {
        if (verbose) {
          s += "[style=\"solid\" style=\"solid\" shape=\"record\" label=\"{MEMSET\n| {{ID | node handle | dptr | "
               "pitch | value | elementSize | width | height} | {" + id + " (topoId: " + topo +
               ") | 0x00005613888A1618 | 0x0000000302000000 | 0 | 0 | 1 | 65536 | 1}}}\"];\n\n";
        } else {
          s += "[style=\"solid\" shape=\"invtrapezium\"label=\"" + id + "\nMEMSET\n(0,65536)\n\"];\n\n";
        }
      } else {
        if (verbose) {
          s += "[style=\"solid\" shape=\"record\" label=\"{\nMEMCPY\n| {{ID | node handle} | {" + id +
               " (topoId: " + topo + ") | 0x00005613888A1D80}}\n| {kind | DtoD (DEVICE to DEVICE)}\n"
               "| {{srcPtr | dstPtr} | {pitch | ptr | xsize | ysize | pitch | ptr | xsize | ysize} | {0 | "
               "0x0000000302000000 | 0 | 0 | 0 | 0x0000000302100000 | 0 | 0}}\n| {{srcPos | {{x | 0} | {y | 0} | "
               "{z | 0}}} | {dstPos | {{x | 0} | {y | 0} | {z | 0}}} | {Extent | {{Width | 65536} | {Height | 1} | "
               "{Depth | 1}}}}\n}\"];\n\n";
        } else {
          s += "[style=\"solid\" shape=\"trapezium\"label=\"" + id + "\nMEMCPY\n(DtoD,65536)\n\"];\n\n";
        }
      }
    }
    for (const auto& [a, b] : edges) {
      s += "\"" + name(a) + "\" -> \"" + name(b) + "\"";
      if (verbose) s += " [headlabel=" + std::to_string(port[b]++) + "]";
      s += ";\n";
    }
    s += "}\n}\n";
    return s;
  }
};

Node kernel(const char* mangled, int grid, int block) { return Node{Op::kKernel, mangled, grid, block}; }

}  // namespace

GeneratedDump layered_dump(std::size_t target, bool verbose, int graph_id) {
  Writer w{verbose, graph_id, {}, {}};
  std::size_t prev = SIZE_MAX;
  auto add = [&](Node n) {
    w.nodes.push_back(std::move(n));
    return w.nodes.size() - 1;
  };
  auto link = [&](std::size_t a, std::size_t b) { w.edges.emplace_back(a, b); };
  while (w.nodes.size() + 10 <= target) {
    const std::size_t ms = add(Node{Op::kMemset, "", 0, 0});
    if (prev != SIZE_MAX) link(prev, ms);
    const std::size_t norm = add(kernel("_ZN5bench6k_normEPKfPfi", 8, 256));
    link(ms, norm);
    std::vector<std::size_t> proj;
    for (int k = 0; k < 4; ++k) {
      proj.push_back(add(kernel("_ZN5bench6k_projILi128EEEvPKfPfi", 64, 256)));
      link(norm, proj.back());
    }
    const std::size_t attn = add(kernel("_ZN5bench6k_attnEPKfS1_S1_Pfi", 32, 128));
    for (std::size_t p : proj) link(p, attn);
    const std::size_t out = add(kernel("_ZN5bench6k_projILi128EEEvPKfPfi", 64, 256));
    link(attn, out);
    const std::size_t cp = add(Node{Op::kMemcpy, "", 0, 0});
    link(out, cp);
    const std::size_t res = add(kernel("_ZN5bench5k_addEPKfPfi", 16, 256));
    link(cp, res);
    prev = res;
  }
  // Top up with a plain tail so the node count is exact.
  while (w.nodes.size() < target) {
    const std::size_t k = add(kernel("_ZN5bench5k_addEPKfPfi", 16, 256));
    if (prev != SIZE_MAX) link(prev, k);
    prev = k;
  }
  return GeneratedDump{w.text(), w.nodes.size(), w.edges.size()};
}

GeneratedDump chain_dump(std::size_t nodes, bool verbose, int graph_id) {
  Writer w{verbose, graph_id, {}, {}};
  for (std::size_t i = 0; i < nodes; ++i) {
    w.nodes.push_back(kernel("_ZN5bench6k_stepEPfi", 16, 256));
    if (i > 0) w.edges.emplace_back(i - 1, i);
  }
  return GeneratedDump{w.text(), w.nodes.size(), w.edges.size()};
}

GeneratedDump dense_dump(std::size_t nodes, std::size_t links_per_node, bool verbose, int graph_id) {
  Writer w{verbose, graph_id, {}, {}};
  if (nodes < 3) nodes = 3;
  w.nodes.push_back(Node{Op::kMemset, "", 0, 0});
  const std::size_t window = 4 * std::max<std::size_t>(1, links_per_node);
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  std::vector<char> has_out(nodes, 0);
  std::vector<std::size_t> picked;
  for (std::size_t i = 1; i + 1 < nodes; ++i) {
    w.nodes.push_back(kernel(i % 2 ? "_ZN5bench6k_leftEPfi" : "_ZN5bench7k_rightEPfi", 4, 128));
    const std::size_t first = i > window ? i - window : 1;
    picked.clear();
    for (std::size_t k = 0; k < links_per_node && first < i; ++k) {
      const std::size_t from = first + static_cast<std::size_t>(next() % (i - first));
      if (std::find(picked.begin(), picked.end(), from) == picked.end()) picked.push_back(from);
    }
    if (picked.empty()) picked.push_back(0);
    for (std::size_t from : picked) {
      w.edges.emplace_back(from, i);
      has_out[from] = 1;
    }
  }
  const std::size_t join = w.nodes.size();
  w.nodes.push_back(Node{Op::kMemcpy, "", 0, 0});
  for (std::size_t i = 1; i < join; ++i)
    if (!has_out[i]) w.edges.emplace_back(i, join);
  return GeneratedDump{w.text(), w.nodes.size(), w.edges.size()};
}

}  // namespace gp::bench
