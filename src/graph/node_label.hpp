// Reading a node's label as cudaGraphDebugDotPrint writes it. Internal to src/graph: the loader
// hands over the raw attribute text that cgraph returns (escapes intact), and this unit fills
// in the node's kind, names, launch configuration, sizes and child-graph links. Host-only.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "graphprof/graph/graph_model.hpp"

namespace gp::detail {

// One field of a Graphviz record label: either text or a group of fields ({a | {b | c}}).
struct RecordField {
  std::string text;  // unescaped and trimmed; empty for groups
  std::vector<RecordField> fields;
  bool group = false;
};

// Parse a record label. Lenient: unbalanced braces end the group at the end of the text.
// Throws gp::Error(kBadInput) (without the file name) when groups nest deeper than
// kMaxRecordDepth.
inline constexpr int kMaxRecordDepth = 64;
RecordField parse_record_label(const std::string& raw);

// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD, so that names from a
// dump written in another encoding (a Latin-1 byte in a label) can go into JSON and pictures.
std::string valid_utf8(std::string_view text);

// Undo DOT label escapes (\< \> \{ \} \| \\ \") and turn \n, \l, \r into newlines.
std::string unescape_label(const std::string& raw);

// Fill `node` from the raw label, shape and style (dot_name, graph_id and index are set by the
// caller). Returns false when the label says nothing recognisable (the node keeps kind kOther).
bool read_node_label(const std::string& raw_label, const std::string& shape, const std::string& style,
                     GraphNode& node);

// "graph_<G>_node_<i>" -> (G, i); false for other names.
bool parse_node_name(const std::string& name, GraphId& graph_id, std::int64_t& index);

}  // namespace gp::detail
