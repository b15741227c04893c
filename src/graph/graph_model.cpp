// Graph model helpers that need no Graphviz: the shared texts and launch configurations, kind
// names, launch configs.
#include "graphprof/graph/graph_model.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <unordered_map>
#include <unordered_set>

namespace gp {

namespace {

// The pools behind SharedText and SharedLaunch: entries never move and are never freed, so a
// pointer to one stays valid in any copy of any node. Made on first use and never destroyed
// (a node may outlive static destruction).
struct Pools {
  std::mutex mutex;
  std::unordered_set<std::string> texts;
  std::map<std::string, LaunchConfig> launches;  // by text
};

Pools& pools() {
  static Pools* p = new Pools;
  return *p;
}

// Loader threads look up a few distinct texts (and launch configurations) a million times: each
// thread keeps the entries it has seen, keyed by their text, so that the pool's lock is taken once
// per entry and thread. Bounded for hostile dumps where every name differs. `add` puts the entry
// into the pool (under the lock) and returns the pooled key text and entry, both never freed.
constexpr std::size_t kMaxCachedTexts = 4096;

template <typename Entry, typename Add>
const Entry* pooled(std::string_view key, Add add) {
  thread_local std::unordered_map<std::string_view, const Entry*> seen;
  const auto it = seen.find(key);
  if (it != seen.end()) return it->second;
  Pools& p = pools();
  std::pair<std::string_view, const Entry*> entry;
  {
    const std::lock_guard<std::mutex> lock(p.mutex);
    entry = add(p);
  }
  if (seen.size() >= kMaxCachedTexts) seen.clear();
  seen.emplace(entry);
  return entry.second;
}

const std::string* intern(std::string_view text) {
  if (text.empty()) return nullptr;
  return pooled<std::string>(text, [text](Pools& p) {
    const std::string& s = *p.texts.emplace(text).first;
    return std::make_pair(std::string_view(s), &s);
  });
}

}  // namespace

SharedText::SharedText(const char* text) : text_(intern(text == nullptr ? std::string_view() : std::string_view(text))) {}

SharedText::SharedText(std::string_view text) : text_(intern(text)) {}

const std::string& SharedText::str() const {
  static const std::string kEmpty;
  return text_ == nullptr ? kEmpty : *text_;
}

std::ostream& operator<<(std::ostream& out, const SharedText& t) { return out << t.str(); }

SharedLaunch::SharedLaunch(const std::optional<LaunchConfig>& config) {
  if (!config) return;
  config_ = pooled<LaunchConfig>(config->text, [&config](Pools& p) {
    const auto& e = *p.launches.emplace(config->text, *config).first;
    return std::make_pair(std::string_view(e.first), &e.second);
  });
}

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::kKernel: return "kernel";
    case NodeKind::kMemcpy: return "memcpy";
    case NodeKind::kMemset: return "memset";
    case NodeKind::kHost: return "host";
    case NodeKind::kEventRecord: return "event_record";
    case NodeKind::kEventWait: return "event_wait";
    case NodeKind::kMemAlloc: return "mem_alloc";
    case NodeKind::kMemFree: return "mem_free";
    case NodeKind::kEmpty: return "empty";
    case NodeKind::kChildGraph: return "child_graph";
    case NodeKind::kConditional: return "conditional";
    case NodeKind::kExtSemSignal: return "ext_sem_signal";
    case NodeKind::kExtSemWait: return "ext_sem_wait";
    case NodeKind::kBatchMemOp: return "batch_mem_op";
    case NodeKind::kOther: return "other";
  }
  return "other";
}

std::optional<std::size_t> GraphModel::find(const std::string& dot_name) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].dot_name == dot_name) return i;
  return std::nullopt;
}

const GraphCluster* GraphModel::cluster(GraphId graph_id) const {
  // Clusters are sorted by graph id (the loader's order): a binary search, no index to keep. The
  // renderer and the heat map ask once per WHILE or child-graph node, which was quadratic.
  const auto it = std::lower_bound(clusters.begin(), clusters.end(), graph_id,
                                   [](const GraphCluster& c, GraphId id) { return c.graph_id < id; });
  return it != clusters.end() && it->graph_id == graph_id ? &*it : nullptr;
}

namespace {

bool read_u64(const std::string& t, std::uint64_t& v) {
  if (t.empty()) return false;
  std::uint64_t x = 0;
  for (char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (x > (UINT64_MAX - d) / 10) return false;  // does not fit: not a size the driver printed
    x = x * 10 + d;
  }
  v = x;
  return true;
}

// Without spaces, and with the braces that CUDA 13 prints around a dim3 ("{16,16},{16,16},0")
// read as parentheses.
std::string strip_spaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    out += c == '{' ? '(' : c == '}' ? ')' : c;
  }
  return out;
}

// "4" or "(4,2,1)" or "(4,2)"
bool read_dim(const std::string& t, Dim3& d) {
  if (t.empty()) return false;
  if (t.front() != '(') return read_u64(t, d.x);
  if (t.back() != ')') return false;
  std::uint64_t v[3] = {1, 1, 1};
  std::size_t start = 1;
  for (int k = 0; k < 3; ++k) {
    const std::size_t comma = t.find(',', start);
    const std::size_t end = comma == std::string::npos ? t.size() - 1 : comma;
    if (!read_u64(t.substr(start, end - start), v[k])) return false;
    if (comma == std::string::npos) break;
    start = comma + 1;
    if (k == 2) return false;
  }
  d = Dim3{v[0], v[1], v[2]};
  return true;
}

}  // namespace

std::optional<LaunchConfig> parse_launch_config(const std::string& text) {
  const std::string t = strip_spaces(text);
  std::vector<std::string> parts;
  int paren = 0;
  std::string cur;
  for (char c : t) {
    if (c == '(') ++paren;
    if (c == ')') --paren;
    if (c == ',' && paren == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  if (parts.size() != 2 && parts.size() != 3) return std::nullopt;
  LaunchConfig cfg;
  if (!read_dim(parts[0], cfg.grid) || !read_dim(parts[1], cfg.block)) return std::nullopt;
  if (parts.size() == 3 && !read_u64(parts[2], cfg.shared_bytes)) return std::nullopt;
  cfg.text = t;
  return cfg;
}

}  // namespace gp
