// The DOT reader (dot_reader.hpp): a recursive-descent parser over the tokens of dot_lexer.hpp.
// Where the DOT grammar leaves room, it does what Graphviz's cgraph 2.42 does, so that a dump
// reads as it did when cgraph loaded it: node numbering by first appearance, defaults taken from
// the subgraph where an object is created (a later default does not change existing objects),
// "\"" as the only escape a quoted string loses, a backslash-newline joining lines, parallel edges
// kept (except in strict graphs or with the same "key"), subgraph edge ends expanded in node order.
#include "dot_reader.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "dot_lexer.hpp"
#include "node_label.hpp"

namespace gp::detail {

DotSyntaxError::DotSyntaxError(int line, const std::string& message)
    : std::runtime_error("line " + std::to_string(line) + ": " + message), line_(line) {}

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// Edges beyond one per byte of text: what subgraph edge ends may add ({a b} -> {c d} makes four
// edges). A file that writes its edges out has fewer edges than bytes; without a bound, a small
// hostile file ({20000 nodes} -> {20000 nodes}) asks for hundreds of millions of edges.
constexpr std::size_t kEdgeAllowance = std::size_t{1} << 20;

// Node name -> index, open addressing over the names the DotGraph already holds (a node costs 8
// to 16 bytes here instead of a hash map entry with its own copy of the name).
class NameTable {
 public:
  std::uint32_t find(std::string_view name, std::uint32_t hash, const std::vector<std::string_view>& names) const {
    if (slots_.empty()) return kNone;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const std::uint64_t s = slots_[i];
      if (s == 0) return kNone;
      const auto id = static_cast<std::uint32_t>(s & 0xffffffffu) - 1;
      if (static_cast<std::uint32_t>(s >> 32) == hash && names[id] == name) return id;
    }
  }

  void insert(std::uint32_t hash, std::uint32_t id) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    place(hash, id);
    ++used_;
  }

  static std::uint32_t hash_of(std::string_view name) {
    const std::size_t h = std::hash<std::string_view>{}(name);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }

 private:
  void place(std::uint32_t hash, std::uint32_t id) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = (static_cast<std::uint64_t>(hash) << 32) | (static_cast<std::uint64_t>(id) + 1);
  }

  void grow() {
    std::vector<std::uint64_t> old;
    old.swap(slots_);
    slots_.assign(std::max<std::size_t>(64, old.size() * 2), 0);
    for (const std::uint64_t s : old)
      if (s != 0) place(static_cast<std::uint32_t>(s >> 32), static_cast<std::uint32_t>(s & 0xffffffffu) - 1);
  }

  std::vector<std::uint64_t> slots_;
  std::size_t used_ = 0;
};

// A subgraph (index 0: the graph itself): its own defaults and the nodes named inside it.
struct Subgraph {
  std::uint32_t parent = kNone;
  std::vector<std::optional<std::string_view>> node_defaults, edge_defaults;  // per kept attribute
  std::vector<std::uint32_t> members;  // nodes named directly inside it, maybe repeated
  std::vector<std::uint32_t> children;
};

// An edge end: a node or a subgraph (all of its nodes).
struct Operand {
  bool subgraph = false;
  std::uint32_t index = 0;
};

class Parser {
 public:
  Parser(std::string_view text, const std::vector<std::string>& node_attrs, const std::vector<std::string>& edge_attrs,
         DotGraph& out)
      : lex_(text, out.storage),
        node_attrs_(node_attrs),
        edge_attrs_(edge_attrs),
        out_(out),
        max_edges_(std::min<std::size_t>(kNone - 1, text.size() + kEdgeAllowance)) {}

  void graph() {
    Token t = take();
    if (t.kind == Tok::kStrict) {
      out_.strict = true;
      t = take();
    }
    if (t.kind != Tok::kDigraph && t.kind != Tok::kGraph) fail(t, "expected 'digraph' or 'graph'");
    out_.directed = t.kind == Tok::kDigraph;
    if (peek().kind == Tok::kId) take();  // the graph's name
    expect(Tok::kLBrace, "'{' to open the graph");
    subgraphs_.emplace_back();
    subgraphs_.back().node_defaults.resize(node_attrs_.size());
    subgraphs_.back().edge_defaults.resize(edge_attrs_.size());
    statements(0, 0);
    const Token rest = take();
    if (rest.kind != Tok::kEnd) fail(rest, "text after the end of the graph (one graph per file)");
  }

 private:
  const Token& peek() {
    if (!peeked_) {
      peek_ = lex_.next();
      peeked_ = true;
    }
    return peek_;
  }

  Token take() {
    if (peeked_) {
      peeked_ = false;
      return peek_;
    }
    return lex_.next();
  }

  [[noreturn]] void fail(const Token& t, const std::string& what) {
    if (t.kind == Tok::kEnd) throw DotSyntaxError(t.line, what + ", but the text ends (truncated file?)");
    throw DotSyntaxError(t.line, what + ", found '" + shown(t.text) + "'");
  }

  void expect(Tok kind, const char* what) {
    const Token t = take();
    if (t.kind != kind) fail(t, std::string("expected ") + what);
  }

  // Statements up to and including the '}' that closes subgraph `sg`.
  void statements(std::uint32_t sg, int depth) {
    for (;;) {
      const Token t = take();
      switch (t.kind) {
        case Tok::kRBrace: return;
        case Tok::kSemi: continue;
        case Tok::kEnd: fail(t, "expected '}' to close the graph");
        case Tok::kGraph:
        case Tok::kNode:
        case Tok::kEdge: defaults(sg, t); continue;
        case Tok::kSubgraph:
        case Tok::kLBrace: {
          const Operand first{true, subgraph(sg, t, depth)};
          if (peek().kind == Tok::kArrow || peek().kind == Tok::kDash) edges(sg, first, depth);
          continue;
        }
        case Tok::kId: {
          if (peek().kind == Tok::kEq) {  // a graph attribute (ID = ID): nothing the loader keeps
            take();
            const Token v = take();
            if (v.kind != Tok::kId) fail(v, "expected a value after '='");
            continue;
          }
          const Operand first{false, node(sg, t)};
          if (peek().kind == Tok::kArrow || peek().kind == Tok::kDash) {
            edges(sg, first, depth);
          } else {
            attr_lists();
            set_values(out_.node_values, node_attrs_, first.index);
          }
          continue;
        }
        default: fail(t, "expected a statement (a node, an edge, a subgraph or attributes)");
      }
    }
  }

  // "[a=b, c=d; ...]" lists (any number) into attrs_.
  void attr_lists() {
    attrs_.clear();
    while (peek().kind == Tok::kLBracket) {
      take();
      for (;;) {
        const Token name = take();
        if (name.kind == Tok::kRBracket) break;
        if (name.kind != Tok::kId) fail(name, "expected an attribute name or ']'");
        expect(Tok::kEq, "'=' after the attribute name");
        const Token value = take();
        if (value.kind != Tok::kId) fail(value, "expected a value after '='");
        attrs_.emplace_back(name.text, value.text);
        if (peek().kind == Tok::kComma || peek().kind == Tok::kSemi) take();
      }
    }
  }

  static std::size_t attr_index(const std::vector<std::string>& kept, std::string_view name) {
    for (std::size_t k = 0; k < kept.size(); ++k)
      if (kept[k] == name) return k;
    return kept.size();
  }

  // The values of attrs_ that are kept, onto row `row` of `values`.
  void set_values(std::vector<std::string_view>& values, const std::vector<std::string>& kept, std::size_t row) {
    for (const auto& [name, value] : attrs_) {
      const std::size_t k = attr_index(kept, name);
      if (k < kept.size()) values[row * kept.size() + k] = value;
    }
  }

  // node [...], edge [...], graph [...]: defaults for what is created later in `sg`.
  void defaults(std::uint32_t sg, const Token& keyword) {
    if (peek().kind != Tok::kLBracket) fail(peek(), "expected '[' after '" + std::string(keyword.text) + "'");
    attr_lists();
    if (keyword.kind == Tok::kGraph) return;
    const bool nodes = keyword.kind == Tok::kNode;
    const std::vector<std::string>& kept = nodes ? node_attrs_ : edge_attrs_;
    auto& slots = nodes ? subgraphs_[sg].node_defaults : subgraphs_[sg].edge_defaults;
    for (const auto& [name, value] : attrs_) {
      const std::size_t k = attr_index(kept, name);
      if (k < kept.size()) slots[k] = value;
    }
  }

  // The default of kept attribute `k` for an object created in `sg`: the innermost setting.
  std::string_view default_of(std::uint32_t sg, std::size_t k, bool node) const {
    for (std::uint32_t s = sg; s != kNone; s = subgraphs_[s].parent) {
      const auto& d = node ? subgraphs_[s].node_defaults[k] : subgraphs_[s].edge_defaults[k];
      if (d) return *d;
    }
    return {};
  }

  // A node ID (and its port, which the loader does not use), found or created in `sg`.
  std::uint32_t node(std::uint32_t sg, const Token& id) {
    const std::uint32_t hash = NameTable::hash_of(id.text);
    std::uint32_t n = names_.find(id.text, hash, out_.node_names);
    if (n == kNone) {
      if (out_.node_names.size() >= kNone - 1) fail(id, "more than 2^32 - 2 nodes");
      n = static_cast<std::uint32_t>(out_.node_names.size());
      out_.node_names.push_back(id.text);
      for (std::size_t k = 0; k < node_attrs_.size(); ++k) out_.node_values.push_back(default_of(sg, k, true));
      last_subgraph_.push_back(0);
      names_.insert(hash, n);
    }
    if (sg != 0 && last_subgraph_[n] != sg) {
      subgraphs_[sg].members.push_back(n);
      last_subgraph_[n] = sg;
    }
    if (peek().kind == Tok::kColon) {  // port, then maybe a compass point
      take();
      const Token port = take();
      if (port.kind != Tok::kId) fail(port, "expected a port name after ':'");
      if (peek().kind == Tok::kColon) {
        take();
        const Token compass = take();
        if (compass.kind != Tok::kId) fail(compass, "expected a compass point after ':'");
      }
    }
    return n;
  }

  // "subgraph [name] { ... }" or "{ ... }"; `first` is the token already taken. A name seen
  // before under the same parent is the same subgraph (cgraph adds to it).
  std::uint32_t subgraph(std::uint32_t parent, const Token& first, int depth) {
    if (depth + 1 > kMaxDotNesting)
      fail(first, "subgraphs nested more than " + std::to_string(kMaxDotNesting) + " deep");
    std::optional<std::string_view> name;
    if (first.kind == Tok::kSubgraph) {
      if (peek().kind == Tok::kId) name = take().text;
      expect(Tok::kLBrace, "'{' to open the subgraph");
    }
    std::uint32_t sg = kNone;
    if (name) {
      const auto it = named_.find({parent, *name});
      if (it != named_.end()) sg = it->second;
    }
    if (sg == kNone) {
      sg = static_cast<std::uint32_t>(subgraphs_.size());
      Subgraph s;
      s.parent = parent;
      s.node_defaults.resize(node_attrs_.size());
      s.edge_defaults.resize(edge_attrs_.size());
      subgraphs_.push_back(std::move(s));
      subgraphs_[parent].children.push_back(sg);
      if (name) {
        named_.emplace(std::make_pair(parent, *name), sg);
        out_.subgraph_names.push_back(*name);
      }
    }
    statements(sg, depth + 1);
    return sg;
  }

  // The nodes of an edge end in cgraph's order (node creation order), into `out`.
  void nodes_of(const Operand& o, std::vector<std::uint32_t>& out) const {
    out.clear();
    if (!o.subgraph) {
      out.push_back(o.index);
      return;
    }
    std::vector<std::uint32_t> todo{o.index};
    while (!todo.empty()) {
      const Subgraph& s = subgraphs_[todo.back()];
      todo.pop_back();
      out.insert(out.end(), s.members.begin(), s.members.end());
      todo.insert(todo.end(), s.children.begin(), s.children.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

  // a -> b -> {c d} ... [attrs]: the edges of every consecutive pair of ends.
  void edges(std::uint32_t sg, const Operand& first, int depth) {
    const std::size_t base = operands_.size();
    operands_.push_back(first);
    while (peek().kind == Tok::kArrow || peek().kind == Tok::kDash) {
      const Token op = take();
      if ((op.kind == Tok::kArrow) != out_.directed)
        fail(op, out_.directed ? "expected '->' between the ends of an edge in a digraph"
                               : "expected '--' between the ends of an edge in an undirected graph");
      const Token t = take();
      if (t.kind == Tok::kId) operands_.push_back(Operand{false, node(sg, t)});
      else if (t.kind == Tok::kSubgraph || t.kind == Tok::kLBrace) operands_.push_back(Operand{true, subgraph(sg, t, depth)});
      else fail(t, "expected a node or a subgraph after '" + std::string(op.text) + "'");
    }
    attr_lists();
    std::string_view key;
    for (const auto& [name, value] : attrs_)
      if (name == "key") key = value;
    for (std::size_t i = base; i + 1 < operands_.size(); ++i) {
      nodes_of(operands_[i], tails_);
      nodes_of(operands_[i + 1], heads_);
      for (const std::uint32_t t : tails_)
        for (const std::uint32_t h : heads_) edge(sg, t, h, key);
    }
    operands_.resize(base);
  }

  void edge(std::uint32_t sg, std::uint32_t tail, std::uint32_t head, std::string_view key) {
    if (out_.strict || !key.empty()) {
      // One edge per (tail, head) in a strict graph, per (tail, head, key) with a key: a repeat
      // only sets attributes.
      const auto [it, added] =
          keyed_.try_emplace(std::make_tuple(tail, head, out_.strict ? std::string_view() : key),
                             static_cast<std::uint32_t>(out_.edges.size()));
      if (!added) {
        set_values(out_.edge_values, edge_attrs_, it->second);
        return;
      }
    }
    if (out_.edges.size() >= max_edges_)
      throw DotSyntaxError(peek().line, "more than " + std::to_string(max_edges_) +
                                            " edges (subgraph edge ends multiply beyond what a file of this size writes)");
    const std::size_t row = out_.edges.size();
    out_.edges.push_back(DotEdge{tail, head});
    for (std::size_t k = 0; k < edge_attrs_.size(); ++k) out_.edge_values.push_back(default_of(sg, k, false));
    set_values(out_.edge_values, edge_attrs_, row);
  }

  Lexer lex_;
  const std::vector<std::string>& node_attrs_;
  const std::vector<std::string>& edge_attrs_;
  DotGraph& out_;
  const std::size_t max_edges_;
  Token peek_;
  bool peeked_ = false;
  std::vector<Subgraph> subgraphs_;
  std::map<std::pair<std::uint32_t, std::string_view>, std::uint32_t> named_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::string_view>, std::uint32_t> keyed_;
  NameTable names_;
  std::vector<std::uint32_t> last_subgraph_;  // per node: the subgraph it was last named in
  std::vector<std::pair<std::string_view, std::string_view>> attrs_;
  std::vector<Operand> operands_;
  std::vector<std::uint32_t> tails_, heads_;
};

}  // namespace

DotGraph read_dot(std::string_view text, const std::vector<std::string>& node_attrs,
                  const std::vector<std::string>& edge_attrs) {
  DotGraph g;
  Parser(text, node_attrs, edge_attrs, g).graph();
  return g;
}

}  // namespace gp::detail
