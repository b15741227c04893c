// Node labels of cudaGraphDebugDotPrint dumps. The driver writes two layouts:
//  - default (flags 0): plain text lines, "3\n_Z6tiny_kPfi\n" or "2\nMEMCPY\n(HtoD,4096)\n";
//  - verbose: Graphviz records for kernels, copies, memsets and allocations
//    ("{KERNEL | {ID | 3 (topoId: 3) | _Z6tiny_kPfi\<\<\<4,256,0\>\>\>} | ...}"), text lines for
//    host, event, empty and child-graph nodes, with "(topoId: N)" after the index.
// Conditional nodes are records in both. Everything is keyed on words, not on positions, so an
// extra row from a newer driver does not break the reading.
#include "node_label.hpp"

#include "graphprof/core/error.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <utility>

namespace gp::detail {

namespace {

// The C locale's whitespace, without a library call per character (labels are most of a dump).
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// The decimal digits text[begin, end) as a non-negative int64; false when empty, not all digits
// or too large (never wraps).
bool read_number(const std::string& text, std::size_t begin, std::size_t end, std::int64_t& out) {
  if (begin >= end) return false;
  std::int64_t v = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    if (v > (INT64_MAX - (c - '0')) / 10) return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

bool parse_u64(const std::string& text, std::uint64_t& out) {
  const std::string t = trim(text);
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
  if (end == nullptr || *end != '\0' || errno == ERANGE) return false;
  out = v;
  return true;
}

bool is_graph_ref(const std::string& text, GraphId& id) {
  if (text.rfind("graph_", 0) != 0 || text.size() == 6) return false;
  for (std::size_t i = 6; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  return read_number(text, 6, text.size(), id);
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Every "graph_<k>" token in `text` ("True | graph_6", "child: graph_4"), but not node names
// (graph_4_node_0); each id once, in order.
void collect_graph_refs(const std::string& text, std::vector<GraphId>& out) {
  for (std::size_t p = text.find("graph_"); p != std::string::npos; p = text.find("graph_", p + 1)) {
    if (p > 0 && is_word_char(text[p - 1])) continue;
    std::size_t e = p + 6;
    while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
    if (e == p + 6 || (e < text.size() && is_word_char(text[e]))) continue;
    GraphId id = 0;
    if (!read_number(text, p + 6, e, id)) continue;  // too large for any graph in the file
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
}

// "3 (topoId: 5)" -> 5; -1 when absent.
int topo_id_in(const std::string& text) {
  const auto p = text.find("topoId:");
  if (p == std::string::npos) return -1;
  std::size_t i = p + 7;
  while (i < text.size() && text[i] == ' ') ++i;
  std::size_t e = i;
  while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
  std::int64_t t = 0;
  if (e == i || !read_number(text, i, e, t) || t > INT32_MAX) return -1;
  return static_cast<int>(t);
}

// The driver's type words. Unknown all-caps words become kOther with the word kept.
bool kind_of_word(const std::string& w, NodeKind& kind) {
  static const std::map<std::string, NodeKind> kWords = {
      {"KERNEL", NodeKind::kKernel},           {"MEMCPY", NodeKind::kMemcpy},
      {"MEMSET", NodeKind::kMemset},           {"HOST", NodeKind::kHost},
      {"EVENT_RECORD", NodeKind::kEventRecord}, {"EVENT_WAIT", NodeKind::kEventWait},
      {"WAIT_EVENT", NodeKind::kEventWait},    {"MEM_ALLOC", NodeKind::kMemAlloc},
      {"MEM_FREE", NodeKind::kMemFree},        {"EMPTY", NodeKind::kEmpty},
      {"CHILD_GRAPH", NodeKind::kChildGraph},  {"GRAPH", NodeKind::kChildGraph},
      {"CONDITIONAL", NodeKind::kConditional}, {"EXT_SEMAS_SIGNAL", NodeKind::kExtSemSignal},
      {"EXT_SEMAS_WAIT", NodeKind::kExtSemWait}, {"BATCH_MEM_OP", NodeKind::kBatchMemOp},
      {"MEM_OP", NodeKind::kBatchMemOp},
  };
  const auto it = kWords.find(w);
  if (it != kWords.end()) {
    kind = it->second;
    return true;
  }
  return false;
}

bool is_type_word(const std::string& w) {
  if (w.size() < 3) return false;
  for (char c : w)
    if (!(std::isupper(static_cast<unsigned char>(c)) || c == '_' || std::isdigit(static_cast<unsigned char>(c))))
      return false;
  return true;
}

// "_Z6tiny_kPfi<<<4,256,0>>>" -> name and launch configuration.
void read_kernel_text(const std::string& text, GraphNode& node) {
  const auto open = text.find("<<<");
  std::string name = trim(open == std::string::npos ? text : text.substr(0, open));
  if (open != std::string::npos) {
    const auto close = text.find(">>>", open);
    const std::string cfg = text.substr(open + 3, close == std::string::npos ? std::string::npos : close - open - 3);
    node.launch = parse_launch_config(cfg);
  }
  if (!name.empty()) {
    // A big graph launches a few dozen distinct kernels thousands of times: demangle each once
    // (per loader thread; bounded for dumps where every name differs).
    struct Names {
      SharedText mangled, demangled, short_name;
    };
    thread_local std::unordered_map<std::string, Names> names;
    auto it = names.find(name);
    if (it == names.end()) {
      if (names.size() >= 4096) names.clear();
      const std::string demangled = demangle_kernel_name(name);
      it = names.emplace(name, Names{SharedText(name), SharedText(demangled), SharedText(kernel_base_name(demangled))})
               .first;
    }
    node.mangled = it->second.mangled;
    node.demangled = it->second.demangled;
    node.short_name = it->second.short_name;
  }
}

// "(HtoD,4096)" or "(0,4096)" -> the two parts.
bool split_pair(const std::string& line, std::string& a, std::string& b) {
  const std::string t = trim(line);
  if (t.size() < 3 || t.front() != '(' || t.back() != ')') return false;
  const auto comma = t.find(',');
  if (comma == std::string::npos) return false;
  a = trim(t.substr(1, comma - 1));
  b = trim(t.substr(comma + 1, t.size() - comma - 2));
  return true;
}

void collect_leaves(const RecordField& f, std::vector<const RecordField*>& out) {
  if (!f.group) {
    out.push_back(&f);
    return;
  }
  for (const auto& k : f.fields) collect_leaves(k, out);
}

// Key/value rows of a record: {key | value}, {{k1 | k2} | {v1 | v2}}. First occurrence wins.
void collect_pairs(const RecordField& f, std::map<std::string, std::string>& kv) {
  if (!f.group) return;
  const auto& k = f.fields;
  if (k.size() == 2 && k[0].group && k[1].group && k[0].fields.size() == k[1].fields.size()) {
    for (std::size_t i = 0; i < k[0].fields.size(); ++i) {
      const auto& a = k[0].fields[i];
      const auto& b = k[1].fields[i];
      if (!a.group && !b.group) kv.emplace(a.text, b.text);
    }
  }
  if (k.size() >= 2 && !k[0].group && !k[1].group) kv.emplace(k[0].text, k[1].text);
  for (const auto& c : k) collect_pairs(c, kv);
}

// The {ID | i (topoId: t) | name<<<...>>>} row of a verbose kernel.
const RecordField* find_id_row(const RecordField& f) {
  if (!f.group) return nullptr;
  if (f.fields.size() >= 3 && !f.fields[0].group && f.fields[0].text == "ID") return &f;
  for (const auto& c : f.fields)
    if (const RecordField* r = find_id_row(c)) return r;
  return nullptr;
}

std::uint64_t value_or(const std::map<std::string, std::string>& kv, const char* key, std::uint64_t dflt,
                       bool& found) {
  const auto it = kv.find(key);
  std::uint64_t v = 0;
  if (it != kv.end() && parse_u64(it->second, v)) {
    found = true;
    return v;
  }
  return dflt;
}

// Verbose kernels are most of a big dump and always start the same way:
//   {KERNEL\n| {ID | 3 (topoId: 3) | _Z6tiny_kPfi\<\<\<4,256,0\>\>\>}\n| ...
// Read that row directly; anything unexpected falls back to the full record parser.
bool read_kernel_record_fast(const std::string& raw, GraphNode& node) {
  std::size_t i = 0;
  auto skip = [&] {
    while (i < raw.size() && is_space(raw[i])) ++i;
  };
  auto expect = [&](const char* word) {
    skip();
    const std::size_t n = std::char_traits<char>::length(word);
    if (raw.compare(i, n, word) != 0) return false;
    i += n;
    return true;
  };
  if (!expect("{") || !expect("KERNEL") || !expect("|") || !expect("{") || !expect("ID") || !expect("|")) return false;
  std::string fields[2];
  for (int f = 0; f < 2; ++f) {
    std::string& t = fields[f];
    while (i < raw.size()) {
      const char c = raw[i];
      if (c == '\\' && i + 1 < raw.size()) {
        t += raw[i + 1];
        i += 2;
        continue;
      }
      if (c == '{') return false;
      if (c == '|' || c == '}') break;
      t += c;
      ++i;
    }
    if (i >= raw.size() || raw[i] != (f == 0 ? '|' : '}')) return false;
    ++i;
  }
  node.kind = NodeKind::kKernel;
  node.type_text = "KERNEL";
  node.topo_id = topo_id_in(fields[0]);
  read_kernel_text(trim(fields[1]), node);
  return !node.mangled.empty();
}

bool read_record(const std::string& raw, GraphNode& node) {
  if (read_kernel_record_fast(raw, node)) return true;
  const RecordField root = parse_record_label(raw);
  std::vector<const RecordField*> leaves;
  collect_leaves(root, leaves);
  std::map<std::string, std::string> kv;
  collect_pairs(root, kv);

  bool known = false;
  for (const RecordField* l : leaves) {
    if (kind_of_word(l->text, node.kind)) {
      node.type_text = l->text;
      known = true;
      break;
    }
    if (is_type_word(l->text)) {  // a type from a newer driver: keep the word
      node.type_text = l->text;
      node.kind = NodeKind::kOther;
      break;
    }
  }
  for (const RecordField* l : leaves) {
    const int t = topo_id_in(l->text);
    if (t >= 0) {
      node.topo_id = t;
      break;
    }
  }
  if (node.kind == NodeKind::kChildGraph || node.kind == NodeKind::kConditional || node.kind == NodeKind::kOther)
    for (const RecordField* l : leaves) collect_graph_refs(l->text, node.child_graphs);

  switch (node.kind) {
    case NodeKind::kKernel: {
      const RecordField* id = find_id_row(root);
      if (id != nullptr && !id->fields[2].group) {
        read_kernel_text(id->fields[2].text, node);
      } else {
        for (const RecordField* l : leaves)
          if (l->text.find("<<<") != std::string::npos) read_kernel_text(l->text, node);
      }
      break;
    }
    case NodeKind::kMemcpy: {
      const auto it = kv.find("kind");
      if (it != kv.end()) node.copy_direction = it->second.substr(0, it->second.find(' '));
      bool w = false, h = false, d = false;
      const std::uint64_t width = value_or(kv, "Width", 0, w);
      const std::uint64_t height = value_or(kv, "Height", 1, h);
      const std::uint64_t depth = value_or(kv, "Depth", 1, d);
      if (w) node.bytes = width * height * depth;
      break;
    }
    case NodeKind::kMemset: {
      bool w = false, e = false, h = false, v = false;
      const std::uint64_t width = value_or(kv, "width", 0, w);
      const std::uint64_t elem = value_or(kv, "elementSize", 1, e);
      const std::uint64_t height = value_or(kv, "height", 1, h);
      const std::uint64_t value = value_or(kv, "value", 0, v);
      if (w) node.bytes = width * elem * height;
      if (v) node.memset_value = value;
      break;
    }
    case NodeKind::kMemAlloc: {
      bool b = false;
      const std::uint64_t bytes = value_or(kv, "bytesize", 0, b);
      if (b) node.bytes = bytes;
      break;
    }
    case NodeKind::kConditional: {
      for (const char* key : {"Conditional Type", "Conditional type", "type"}) {
        const auto it = kv.find(key);
        if (it != kv.end()) {
          node.conditional_type = it->second;
          break;
        }
      }
      break;
    }
    default: break;
  }
  return known || !node.type_text.empty();
}

std::vector<std::string> label_lines(const std::string& raw) {
  const std::string text = unescape_label(raw);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    const std::string line = trim(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (!line.empty()) lines.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

bool read_text_label(const std::string& raw, const std::string& shape, const std::string& style, GraphNode& node) {
  const std::vector<std::string> lines = label_lines(raw);
  if (lines.empty()) return false;
  std::size_t first = 0;
  // Line 0 is "i" or "i (topoId: t)"; skip it when it starts with the node's index.
  if (std::isdigit(static_cast<unsigned char>(lines[0][0]))) {
    node.topo_id = topo_id_in(lines[0]);
    first = 1;
  }
  if (first >= lines.size()) return false;
  const std::string& word = lines[first];
  GraphId child = 0;
  auto graph_refs = [&] {
    for (std::size_t i = first; i < lines.size(); ++i) collect_graph_refs(lines[i], node.child_graphs);
  };

  if (kind_of_word(word, node.kind)) {
    node.type_text = word;
  } else if (is_graph_ref(word, child)) {
    node.kind = NodeKind::kChildGraph;
    node.type_text = "CHILD_GRAPH";
  } else if (shape == "octagon" || style == "bold" || !is_type_word(word)) {
    // Default-form kernels print only the (mangled) name, in a bold octagon.
    node.kind = NodeKind::kKernel;
    node.type_text = "KERNEL";
    read_kernel_text(word, node);
    for (std::size_t i = first + 1; i < lines.size(); ++i)
      if (lines[i].find("<<<") != std::string::npos && !node.launch) read_kernel_text(word + lines[i], node);
    return true;
  } else {
    node.kind = NodeKind::kOther;
    node.type_text = word;
    graph_refs();
    return true;
  }
  if (node.kind == NodeKind::kChildGraph || node.kind == NodeKind::kConditional) graph_refs();

  std::string a, b;
  std::uint64_t n = 0;
  for (std::size_t i = first + 1; i < lines.size(); ++i) {
    if (!split_pair(lines[i], a, b)) continue;
    if (node.kind == NodeKind::kMemcpy) {
      node.copy_direction = a;
      if (parse_u64(b, n)) node.bytes = n;
    } else if (node.kind == NodeKind::kMemset) {
      if (parse_u64(a, n)) node.memset_value = n;
      if (parse_u64(b, n)) node.bytes = n;
    }
    break;
  }
  return true;
}

struct RecordParser {
  const std::string& s;
  std::size_t i = 0;

  // Reads fields separated by '|' until '}' or the end; consumes the closing brace. Recursive,
  // so the nesting is bounded: a hostile label 50 000 braces deep would overflow the stack.
  void fields(RecordField& group, int depth = 0) {
    if (depth > kMaxRecordDepth)
      throw input_error("record label nested more than " + std::to_string(kMaxRecordDepth) +
                        " braces deep (the driver nests 4)");
    group.group = true;
    std::string text;
    bool have_text = false;
    auto flush_text = [&] {
      RecordField f;
      f.text = trim(unescape_label(text));
      group.fields.push_back(std::move(f));
      text.clear();
      have_text = false;
    };
    bool last_was_group = false;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '\\' && i + 1 < s.size()) {
        text += s.substr(i, 2);
        have_text = true;
        i += 2;
        continue;
      }
      if (c == '{') {
        ++i;
        RecordField g;
        fields(g, depth + 1);
        group.fields.push_back(std::move(g));
        last_was_group = true;
        text.clear();
        have_text = false;
        continue;
      }
      if (c == '|') {
        if (!last_was_group || have_text) flush_text();
        last_was_group = false;
        ++i;
        continue;
      }
      if (c == '}') {
        ++i;
        if (!last_was_group || have_text) flush_text();
        return;
      }
      text += c;
      if (!is_space(c)) have_text = true;
      ++i;
    }
    if (!last_was_group || have_text) flush_text();
  }
};

// Drop empty text fields that only come from whitespace between groups, and unwrap
// single-child groups, so "{ {a|b} }" and "{a|b}" read the same.
void normalise(RecordField& f) {
  if (!f.group) return;
  std::vector<RecordField> kept;
  for (auto& c : f.fields) {
    normalise(c);
    if (!c.group && c.text.empty()) continue;
    kept.push_back(std::move(c));
  }
  f.fields = std::move(kept);
  while (f.fields.size() == 1 && f.fields[0].group) {
    RecordField inner = std::move(f.fields[0]);
    f = std::move(inner);
  }
}

}  // namespace

std::string unescape_label(const std::string& raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size()) {
      const char n = raw[++i];
      out += (n == 'n' || n == 'l' || n == 'r') ? '\n' : n;
    } else {
      out += raw[i];
    }
  }
  return out;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto cont = [&](std::size_t k) { return k < n && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80; };
  while (i < n) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t len = 0;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) len = 3;
    else if (c >= 0xF0 && c <= 0xF4) len = 4;
    bool ok = len > 0;
    for (std::size_t k = 1; ok && k < len; ++k) ok = cont(i + k);
    if (ok && len >= 3) {
      // No overlong forms, no surrogates, nothing above U+10FFFF.
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      if (c == 0xE0 && c1 < 0xA0) ok = false;
      if (c == 0xED && c1 > 0x9F) ok = false;
      if (c == 0xF0 && c1 < 0x90) ok = false;
      if (c == 0xF4 && c1 > 0x8F) ok = false;
    }
    if (ok) {
      if (out.empty() && len == 1 && i == 0) {
        // Fast path: most labels are ASCII; copy up to the first byte that is not.
        std::size_t j = 0;
        while (j < n && static_cast<unsigned char>(text[j]) < 0x80) ++j;
        if (j == n) return std::string(text);
        out.assign(text, 0, j);
        i = j;
        continue;
      }
      out.append(text, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    }
  }
  return out;
}

RecordField parse_record_label(const std::string& raw) {
  RecordParser p{raw};
  RecordField root;
  p.fields(root);
  // Text after an early closing brace (malformed input) is read as more top-level fields.
  while (p.i < raw.size()) {
    RecordField more;
    p.fields(more);
    for (auto& f : more.fields) root.fields.push_back(std::move(f));
  }
  normalise(root);
  return root;
}

bool parse_node_name(const std::string& name, GraphId& graph_id, std::int64_t& index) {
  // graph_<digits>_node_<digits>
  if (name.rfind("graph_", 0) != 0) return false;
  std::size_t i = 6;
  const std::size_t g0 = i;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == g0 || name.compare(i, 6, "_node_") != 0) return false;
  const std::size_t n0 = i + 6;
  std::size_t j = n0;
  while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) ++j;
  if (j == n0 || j != name.size()) return false;
  return read_number(name, g0, i, graph_id) && read_number(name, n0, j, index);
}

bool read_node_label(const std::string& raw_label, const std::string& shape, const std::string& style,
                     GraphNode& node) {
  node.shape = shape;
  node.style = style;
  // Records start with '{' (possibly after whitespace); text labels start with the index.
  const std::string t = trim(raw_label);
  if (shape == "record" || (!t.empty() && t.front() == '{')) return read_record(raw_label, node);
  return read_text_label(raw_label, shape, style, node);
}

}  // namespace gp::detail
