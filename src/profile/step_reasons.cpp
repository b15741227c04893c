// Where in the application's code eager steps differ from graph steps, and the framework's reasons
// joined to the code they name (steps.hpp; docs/profile.md "Steps by kind").
#include <algorithm>
#include <map>
#include <tuple>

#include "api_kinds.hpp"
#include "steps.hpp"

namespace gp::profile_detail {

namespace {

double span_ns(std::uint64_t a, std::uint64_t b) { return b > a ? static_cast<double>(b - a) : 0.0; }

// The Python frames of a call site, "file.py:LINE in fn" (base name), the application's only.
std::vector<std::string> app_frames(const CallSiteRecord& s) {
  std::vector<std::string> out;
  for (const auto& f : s.python) {
    if (library_python(f.file)) continue;
    const std::size_t slash = f.file.rfind('/');
    out.push_back((slash == std::string::npos ? f.file : f.file.substr(slash + 1)) + ":" + std::to_string(f.line) + " in " + f.function);
  }
  return out;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A frame's function against the one a log names: Python 3.11+ frames carry the qualified name
// ("main.<locals>.update_cache"), PyTorch's log the plain one ("update_cache").
bool same_function(const std::string& frame, const std::string& logged) {
  if (logged.empty()) return false;
  return frame == logged || (frame.size() > logged.size() && frame.compare(frame.size() - logged.size(), logged.size(), logged) == 0 &&
                             frame[frame.size() - logged.size() - 1] == '.');
}

}  // namespace

std::string eager_where_of(const SiteRecords& r, const std::vector<Step>& steps) {
  std::string where;
  std::unordered_map<std::uint32_t, const CallSiteRecord*> site_by_id;
  for (const auto& s : r.sites) site_by_id[s.id] = &s;
  auto site_of = [&](std::uint32_t co) -> const CallSiteRecord* {
    const auto it = r.site_of_call.find(co);
    if (it == r.site_of_call.end()) return nullptr;
    const auto s = site_by_id.find(it->second);
    return s == site_by_id.end() ? nullptr : s->second;
  };
  std::map<std::string, std::size_t> in_eager, depth;
  std::set<std::string> in_graph;
  std::size_t eager_calls = 0;
  std::map<std::uint32_t, std::size_t> eager_sites;
  for (const Step& s : steps)
    for (std::uint32_t co : s.eager) {
      const CallSiteRecord* site = site_of(co);
      if (site == nullptr) continue;
      const std::vector<std::string> frames = app_frames(*site);
      if (s.startup()) continue;
      if (s.graphs.empty()) {
        ++eager_calls;
        ++eager_sites[site->id];
        for (std::size_t i = 0; i < frames.size(); ++i) {
          ++in_eager[frames[i]];
          depth[frames[i]] = std::max(depth[frames[i]], i);
        }
      } else {
        in_graph.insert(frames.begin(), frames.end());
      }
    }
  std::size_t deepest = 0;
  for (const auto& [frame, n] : in_eager)
    if (n * 2 >= eager_calls && !in_graph.count(frame) && (where.empty() || depth[frame] > deepest))
      where = frame, deepest = depth[frame];
  if (where.empty() && !eager_sites.empty()) {  // no Python frame tells them apart: the commonest site
    const auto top = std::max_element(eager_sites.begin(), eager_sites.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    where = summarize_site(*site_by_id[top->first]).where;
  }
  return where;
}

void join_reasons(const ProcessRecords& p, const SiteInputs& in, const std::vector<Step>& steps,
                  const std::unordered_map<std::uint32_t, double>& eager_gpu, StepKinds& sk) {
  const SiteRecords& r = p.sites;
  std::unordered_map<std::uint32_t, const CallSiteRecord*> site_by_id;
  for (const auto& s : r.sites) site_by_id[s.id] = &s;
  std::map<std::tuple<std::string, std::string, std::string, int, std::string>, std::size_t> seen;
  for (const FrameworkLogEntry& e : p.framework_log) {
    auto [it, fresh] = seen.try_emplace({e.kind, e.reason, e.file, e.line, e.function}, sk.reasons.size());
    if (fresh) sk.reasons.push_back(FrameworkReason{e.kind, e.reason, e.file, e.line, e.function, 0, {}, 0, std::nullopt, 0, 0});
    ++sk.reasons[it->second].count;
  }
  for (FrameworkReason& fr : sk.reasons) {
    if (fr.file.empty()) continue;
    const std::string file = base_name(fr.file);
    std::set<std::uint32_t> matched;
    std::set<std::string> wheres;
    // The code it names: a frame at that file and line; else (the framework ran its own code for a
    // compiled function, so its lines are not on the stack) a frame in that function; else the
    // call of it, the line of the site ("out = update_cache(cache, h)").
    for (int pass = 0; pass < 3 && matched.empty(); ++pass)
      for (const auto& s : r.sites) {
        bool hit = false;
        for (const auto& f : s.python)
          hit = hit || (base_name(f.file) == file && (pass == 0 ? f.line == fr.line : pass == 1 && same_function(f.function, fr.function)));
        if (pass == 2 && !fr.function.empty() && !s.python.empty()) {
          const SiteSummary summary = summarize_site(s);
          hit = summary.from == "python" && summary.source_file == file && summary.source_text.find(fr.function + "(") != std::string::npos;
        }
        if (hit) matched.insert(s.id);
      }
    std::set<std::size_t> in_steps;
    double calls_in_steps = 0;
    for (const auto& [co, site] : r.site_of_call) {
      if (!matched.count(site) || in.captured_calls.count(co)) continue;
      const auto w = r.weight_of_call.find(co);
      const double weight = w == r.weight_of_call.end() ? 1.0 : w->second;
      const auto a = in.api_by_correlation.find(co);
      if (a == in.api_by_correlation.end() || api_kinds::is_graph_launch(*a->second)) continue;
      fr.host_ns += weight * span_ns(a->second->start_ns, a->second->end_ns);
      if (auto g = eager_gpu.find(co); g != eager_gpu.end()) fr.gpu_ns += weight * g->second;
      wheres.insert(summarize_site(*site_by_id.at(site)).where);
      const std::uint64_t t = a->second->start_ns;
      auto st = std::lower_bound(steps.begin(), steps.end(), t, [](const Step& s, std::uint64_t x) { return s.end < x; });
      if (st != steps.end() && t > st->start) {
        in_steps.insert(static_cast<std::size_t>(st - steps.begin()));
        calls_in_steps += weight;
      }
    }
    fr.sites.assign(wheres.begin(), wheres.end());
    fr.steps = in_steps.size();
    if (!steps.empty() && !matched.empty()) fr.calls_per_step = calls_in_steps / static_cast<double>(steps.size());
  }
}

}  // namespace gp::profile_detail
