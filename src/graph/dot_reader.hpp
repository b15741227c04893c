// graphprof's reader of the DOT language (graphviz.org/doc/info/lang.html), written for the
// dumps of cudaGraphDebugDotPrint (and PyTorch's CUDAGraph.debug_dump, which calls it) but not
// tied to them: quoted strings with escapes and '+' concatenation, HTML strings <...>, the three
// comment forms, subgraphs at any depth, node/edge/graph attribute statements and defaults, edge
// chains (a -> b -> c), subgraphs as edge ends, ports (a:p:ne), strict graphs and edge keys, with
// cgraph's rules for which defaults a node or edge gets. It knows nothing of CUDA: the DOT loader
// (dot_loader.cpp) turns what it returns into the GraphModel. Internal to src/graph; host-only.
//
// One pass over text that stays in memory; values are views into it. No intermediate graph: what
// comes out is the node names, the few attributes asked for, the edges and the subgraph names.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gp::detail {

// A text that is not DOT. what() is one line without the file name: "line 12: ...".
class DotSyntaxError : public std::runtime_error {
 public:
  DotSyntaxError(int line, const std::string& message);
  int line() const { return line_; }

 private:
  int line_;
};

// Nesting limit for subgraphs (braces inside braces). The driver nests one level per child
// graph; deeper text is refused rather than risking the stack of the recursive reader.
inline constexpr int kMaxDotNesting = 256;

struct DotEdge {
  std::uint32_t tail = 0, head = 0;  // indices into DotGraph::node_names
};

// What read_dot keeps of the first graph of a text. Views point into the text or into `storage`
// (values that had escapes or concatenations), so the text must outlive the DotGraph.
struct DotGraph {
  bool directed = true;
  bool strict = false;
  // Every node in order of first appearance, as cgraph numbers them.
  std::vector<std::string_view> node_names;
  // node_attrs.size() values per node (row-major): the attribute as set by the node's
  // statements and the defaults in force where the node was created; "" when never set.
  std::vector<std::string_view> node_values;
  // Every edge in creation order: statement by statement, operand pair by pair.
  std::vector<DotEdge> edges;
  std::vector<std::string_view> edge_values;  // edge_attrs.size() per edge, like node_values
  // The name of every named subgraph, at any depth, once per subgraph (in order of opening).
  std::vector<std::string_view> subgraph_names;
  std::deque<std::string> storage;
};

// Reads the first graph of `text`; keeps the node attributes named in `node_attrs` and the edge
// attributes named in `edge_attrs`. Throws DotSyntaxError for text that is not DOT (truncated,
// unbalanced, a stray character, an edge operator of the wrong kind, text after the graph,
// nesting beyond kMaxDotNesting, more than 2^32 - 2 nodes, more edges than bytes of text
// plus 2^20 (subgraph edge ends multiplying) or 2^32 - 2).
DotGraph read_dot(std::string_view text, const std::vector<std::string>& node_attrs,
                  const std::vector<std::string>& edge_attrs);

}  // namespace gp::detail
