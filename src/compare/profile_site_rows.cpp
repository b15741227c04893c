// The graph-health view's rows by call site (docs/compare.md, "Two profiles: by call site"): from
// every run of each side, per site of the application,
// - eager kernel launches per step (sections.profile.processes[].eager_sites): a site whose
//   launches per step grew past the row's threshold fails, and so does a site the baseline never
//   launched from (a new eager site), named;
// - graph memory of the graphs made there (the memory ledger: bytes allocated during their
//   captures, their memory nodes, and the free device memory the driver took at instantiate);
// - graphs made there (captures and re-captures of one site);
// - per allocation site (the memory ledger's `capture_alloc_sites` / `before_capture_alloc_sites`,
//   summed over a process's graphs): bytes allocated in captures (gates: growth, or a new site
//   allocating in capture) and before captures (informational).
// Sites are matched by what they are apart from their line number (file, function, the line's
// text) where both sides carry it, else by their `where`; when only one side knows source lines
// (one profile's modules had debug information, or it predates file:line), by the function
// (`function_where`). An allocation site's Python line is matched the same way.
// A side whose profile has no call sites or no memory ledger (an older graphprof, --call-sites
// off) gives one "not comparable" row per kind, never a failure.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "comparison_internal.hpp"
#include "graphprof/core/profile_fields.hpp"
#include "graphprof/core/stats.hpp"

namespace gp::compare_detail {

namespace {

using nlohmann::json;

// A site's name and key in one side: `where`, or its function when source lines are not used.
struct SiteName {
  std::string key, label;
};

// A site's identity apart from its line number: "file | function | text of the line" ("" without).
std::string source_key(const ProfileSite& site) {
  if (!site.source || site.source->text.empty()) return {};
  return site.source->file + " | " + site.source->function + " | " + site.source->text;
}

SiteName site_name(const ProfileSite& site, std::size_t process, bool several, SiteMatch how) {
  const std::string& where = site.where;
  const std::string& function = site.function_where;
  const std::string prefix = several ? "p" + std::to_string(process) + " " : "";
  std::string key = where;
  if (how == SiteMatch::kFunction && !function.empty()) key = function;
  if (how == SiteMatch::kSource)
    if (std::string k = source_key(site); !k.empty()) key = std::move(k);
  return SiteName{prefix + key, prefix + where};
}

// A graph's site (where it was captured, else instantiated), or nullptr.
const ProfileSite* graph_site_of(const ProfileGraph& g) {
  for (const auto* s : {&g.capture_site, &g.instantiate_site})
    if (*s && !(*s)->where.empty()) return &**s;
  return nullptr;
}

bool has_line(const ProfileSite& site) {
  const std::string& f = site.function_where;
  return !f.empty() && site.from == "native" && site.where != f;
}

// An eager site's call site (an older report's `where` string read as one).
ProfileSite eager_site(const ProfileEagerSite& e) { return profile_fields::site_of(e.site, e.extra, "site"); }

// Whether a side's sites carry source lines (a native `where` other than its function's name).
bool has_source_lines(const std::vector<const ProfileAppRun*>& runs) {
  for (const ProfileAppRun* run : runs)
    for (const auto& p : run->processes) {
      for (const auto& e : p.eager_sites)
        if (has_line(eager_site(e))) return true;
      for (const auto& g : p.graphs)
        if (const ProfileSite* s = graph_site_of(g); s != nullptr && has_line(*s)) return true;
    }
  return false;
}

// Whether a side's sites carry the text of their source line (reports since schema 1.12).
bool has_source_text(const std::vector<const ProfileAppRun*>& runs) {
  for (const ProfileAppRun* run : runs)
    for (const auto& p : run->processes) {
      for (const auto& e : p.eager_sites)
        if (!source_key(eager_site(e)).empty()) return true;
      for (const auto& g : p.graphs)
        if (const ProfileSite* s = graph_site_of(g); s != nullptr && !source_key(*s).empty()) return true;
    }
  return false;
}

// An allocation's Python line as a call site, so that it is keyed as every other site is.
ProfileSite python_site(const ProfilePythonStack& py) {
  ProfileSite s;
  s.where = py.where;
  s.function_where = py.where;
  s.from = "python";
  s.source = py.source;
  return s;
}

// Whether a side's allocation sites carry Python lines (records of a graphprof that joins them);
// with `text`, the text of those lines (reports since schema 1.13).
bool has_allocation_python(const std::vector<const ProfileAppRun*>& runs, bool text = false) {
  for (const ProfileAppRun* run : runs)
    for (const auto& p : run->processes)
      for (const auto& g : p.graphs) {
        if (!g.memory) continue;
        for (const auto* sites : {&g.memory->capture_alloc_sites, &g.memory->before_capture_alloc_sites})
          for (const auto& a : *sites)
            if (a.python && (!text || !source_key(python_site(*a.python)).empty())) return true;
      }
  return false;
}

// The sampling variance of a site's estimate `v` (launches per step, or in all): zero when every
// call's stack was taken; else each taken call stood for M calls, so the count's variance is about
// calls * (M - 1) (each taken call adds M(M - 1)), scaled to `v`. M is taken as the largest the
// process used (`every`: the sampler raises it where taking stacks costs a thread too much, up to
// 65536), or calls / taken where that is more: an overestimate, so that a difference inside it is
// never called a change.
double sampled_variance(const ProfileEagerSite& e, double v, double every) {
  const double calls = e.calls.value_or(0), taken = e.taken.value_or(0);
  if (!(calls > 0) || !(taken > 0) || taken >= calls || !std::isfinite(v)) return 0;
  const double m = std::max(calls / taken, std::isfinite(every) ? every : 1.0);
  const double scale = v / calls;
  return calls * (m - 1) * scale * scale;
}

// What a site is, for matching it across an edit when its key differs: its file and line text
// (a renamed function), its function and line text (a renamed file), the kernels it launched.
struct SiteIdentity {
  std::string file_text, function_text, kernels;
};

SiteIdentity identity_of(const ProfileSite& site, const ProfileEagerSite* eager) {
  SiteIdentity id;
  if (site.source && !site.source->text.empty()) {
    id.file_text = site.source->file + " | " + site.source->text;
    id.function_text = site.source->function + " | " + site.source->text;
  }
  if (eager != nullptr)
    for (const auto& k : eager->kernels) id.kernels += (id.kernels.empty() ? "" : ",") + k.name;
  return id;
}

// One run's figures by site.
struct RunSites {
  std::map<std::string, SiteIdentity> identity;
  bool sites = false, ledgers = false, allocation_sites = false;
  std::map<std::string, double> launches_per_step, memory, graphs, capture_alloc, before_alloc;
  // The sampling variance of launches_per_step (0 where every call's stack was taken).
  std::map<std::string, double> per_step_variance;
  std::map<std::string, std::string> label;
};

// How allocation sites are keyed: their native frame as every site (`native`), and their Python
// line when both sides have Python lines for allocations (`python`), itself keyed by what it is
// apart from its line number where both sides carry that (kSource), else by its `where`.
struct AllocationMatch {
  SiteMatch native = SiteMatch::kWhere;
  bool python = false;
  SiteMatch python_how = SiteMatch::kWhere;
};

// A graph's allocation sites, summed into `to` by site: the Python line beside the native frame
// when both sides have Python lines, else the native frame alone. The label shows `where`s (the
// lines of this side); the key is the sites' identities, and `identity` what else the Python line
// is (its file or function with its text) for rekey_moved_sites: a renamed function or file.
void add_allocation_sites(const ProfileList<ProfileAllocSite>& sites, std::size_t process, bool several, const AllocationMatch& how,
                          std::map<std::string, double>& to, std::map<std::string, std::string>& label,
                          std::map<std::string, SiteIdentity>& identity) {
  const std::string prefix = several ? "p" + std::to_string(process) + " " : "";
  for (const auto& a : sites) {
    SiteName n = site_name(profile_fields::site_of(a.site, a.extra, "site"), process, false, how.native);
    if (how.python && a.python && !a.python->where.str().empty()) {
      const ProfileSite python = python_site(*a.python);
      const SiteName line = site_name(python, process, false, how.python_how);
      const std::string native = n.key;
      n = SiteName{native + " | " + line.key, line.label + " (" + n.label + ")"};
      if (how.python_how == SiteMatch::kSource) {
        SiteIdentity id = identity_of(python, nullptr);
        if (!id.file_text.empty()) {
          id.file_text = "allocation " + prefix + native + " || " + id.file_text;
          id.function_text = "allocation " + prefix + native + " || " + id.function_text;
          identity.emplace(prefix + n.key, std::move(id));
        }
      }
    }
    to[prefix + n.key] += a.bytes.value_or(0);
    label.emplace(prefix + n.key, prefix + n.label);
  }
}

RunSites sites_of_run(const ProfileAppRun& run, bool several, SiteMatch how, const AllocationMatch& alloc) {
  RunSites out;
  for (const auto& p : run.processes) {
    const std::size_t process = static_cast<std::size_t>(p.process.value_or(1));
    if (p.call_sites_recorded.value_or(false)) out.sites = true;
    if (p.ledgers_recorded.value_or(false)) out.ledgers = true;
    for (const auto& g : p.graphs) {
      if (!g.memory || !(g.memory->capture_alloc_sites.present || g.memory->extra.contains("capture_alloc_sites"))) continue;
      out.allocation_sites = out.sites;  // the field is there (schema 1.8+), and sites were taken
      add_allocation_sites(g.memory->capture_alloc_sites, process, several, alloc, out.capture_alloc, out.label, out.identity);
      add_allocation_sites(g.memory->before_capture_alloc_sites, process, several, alloc, out.before_alloc, out.label, out.identity);
    }
    const ProfileCallSiteCost cost = p.call_site_cost.value_or(ProfileCallSiteCost{});
    const double every = std::max(cost.sample_every.value_or(1), cost.sample_every_max.value_or(1));
    for (const auto& e : p.eager_sites) {
      if (e.kind != "kernel launch") continue;
      const ProfileSite site = eager_site(e);
      const SiteName n = site_name(site, process, several, how);
      out.identity.emplace(n.key, identity_of(site, &e));
      double v = e.per_step;
      if (!std::isfinite(v)) v = e.calls.value_or(0);  // no step: launches in all
      out.launches_per_step[n.key] += v;
      out.per_step_variance[n.key] += sampled_variance(e, v, every);
      out.label.emplace(n.key, n.label);
    }
    for (const auto& g : p.graphs) {
      const ProfileSite* site = graph_site_of(g);
      if (site == nullptr) continue;
      const SiteName n = site_name(*site, process, several, how);
      out.label.emplace(n.key, n.label);
      out.identity.emplace(n.key, identity_of(*site, nullptr));
      out.graphs[n.key] += 1;
      const double own = profile_fields::graph_memory_bytes(g);
      const double at_instantiate = g.memory ? g.memory->instantiate_free_delta_bytes.value_or(0) : 0;
      out.memory[n.key] += (std::isfinite(own) ? own : 0) + (at_instantiate > 0 ? at_instantiate : 0);
    }
  }
  return out;
}

// A row from sampled estimates changes only where the two sides' sampling intervals (each run's
// estimate +- 3 sd, 99.7 %) do not overlap: a difference inside them is the sample's, not the
// program's. Exact figures (variance 0) are left as decided. A sampled row's ratio is the sample's
// too: it is marked, and the geomeans leave it out.
void within_sampling(MetricComparison& r, const std::vector<double>& bv, const std::vector<double>& bvar, const std::vector<double>& cv,
                     const std::vector<double>& cvar) {
  r.sampled = std::any_of(bvar.begin(), bvar.end(), [](double v) { return v > 0; }) ||
              std::any_of(cvar.begin(), cvar.end(), [](double v) { return v > 0; });
  if (!r.sampled) return;
  if (r.verdict != Verdict::kRegression && r.verdict != Verdict::kImprovement && r.verdict != Verdict::kInconclusive &&
      r.verdict != Verdict::kMinor)
    return;
  auto bounds = [](const std::vector<double>& v, const std::vector<double>& var) {
    double lo = INFINITY, hi = -INFINITY;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double sd = i < var.size() ? std::sqrt(var[i]) : 0;
      lo = std::min(lo, v[i] - 3 * sd);
      hi = std::max(hi, v[i] + 3 * sd);
    }
    return std::pair<double, double>(lo, hi);
  };
  const auto [blo, bhi] = bounds(bv, bvar);
  const auto [clo, chi] = bounds(cv, cvar);
  if (clo > bhi || chi < blo) return;  // apart even with the sampling: the program's change
  r.verdict = Verdict::kSame;
  r.likely_regression = false;
  r.not_enough_runs = false;
  r.reason = "inside the sampling: " + strf("%.3g", median_or(bv, 0)) + " -> " + strf("%.3g", median_or(cv, 0)) +
             " per step, estimated from sampled call stacks whose 99.7 % intervals overlap (" + strf("%.3g-%.3g", std::max(0.0, blo), bhi) +
             " vs " + strf("%.3g-%.3g", std::max(0.0, clo), chi) + "); the exact eager launches per step decide";
}

MetricComparison site_row(const std::string& program, const std::string& site, const std::string& metric, const std::string& unit) {
  MetricComparison r = row(program, "", metric, unit, Direction::kLowerIsBetter);
  if (!site.empty()) r.params = {{"site", site}};
  return r;
}

}  // namespace

SiteMatch site_match(const std::vector<const ProfileAppRun*>& base_runs, const std::vector<const ProfileAppRun*>& cand_runs) {
  if (has_source_text(base_runs) && has_source_text(cand_runs)) return SiteMatch::kSource;
  return has_source_lines(base_runs) != has_source_lines(cand_runs) ? SiteMatch::kFunction : SiteMatch::kWhere;
}

std::string graph_site_key(const ProfileGraph& g, SiteMatch how) {
  if (const ProfileSite* s = graph_site_of(g)) return site_name(*s, 0, false, how).key;
  return profile_fields::graph_site(g);  // an older report's site string, or none
}

std::string graph_site_label(const ProfileGraph& g) {
  if (const ProfileSite* s = graph_site_of(g)) return s->where;
  return profile_fields::graph_site(g);
}

namespace {

// Sites of the candidate whose key the baseline does not have, matched to a baseline site whose key
// the candidate does not have by what else they share — the file and the line's text (its function
// was renamed), the function and the text (its file was renamed), or the kernels it launched — are
// renamed to the baseline's key in every candidate run: a line that moved or a renamed function is
// the same site. Returns "old where -> new where" for each, by key.
std::map<std::string, std::string> rekey_moved_sites(const std::vector<RunSites>& b, std::vector<RunSites>& c) {
  std::map<std::string, SiteIdentity> only_b, only_c;
  std::set<std::string> in_b, in_c;
  for (const auto& r : b)
    for (const auto& [k, id] : r.identity) in_b.insert(k), only_b.emplace(k, id);
  for (const auto& r : c)
    for (const auto& [k, id] : r.identity) in_c.insert(k), only_c.emplace(k, id);
  for (const auto& k : in_c) only_b.erase(k);
  for (const auto& k : in_b) only_c.erase(k);
  std::map<std::string, std::string> renamed;  // candidate key -> baseline key
  for (auto tier : {&SiteIdentity::file_text, &SiteIdentity::function_text, &SiteIdentity::kernels})
    for (auto ci = only_c.begin(); ci != only_c.end();) {
      const std::string& want = ci->second.*tier;
      auto bi = want.empty() ? only_b.end()
                             : std::find_if(only_b.begin(), only_b.end(), [&](const auto& x) { return x.second.*tier == want; });
      // Kernels identify a site only where no other unmatched site launched the same ones.
      if (bi != only_b.end() && tier == &SiteIdentity::kernels &&
          (std::count_if(only_b.begin(), only_b.end(), [&](const auto& x) { return x.second.kernels == want; }) > 1 ||
           std::count_if(only_c.begin(), only_c.end(), [&](const auto& x) { return x.second.kernels == want; }) > 1))
        bi = only_b.end();
      if (bi == only_b.end()) {
        ++ci;
        continue;
      }
      renamed[ci->first] = bi->first;
      only_b.erase(bi);
      ci = only_c.erase(ci);
    }
  std::map<std::string, std::string> moved;
  auto rename = [&renamed](std::map<std::string, double>& m) {
    for (const auto& [from, to] : renamed)
      if (auto it = m.find(from); it != m.end()) {
        m[to] += it->second;
        m.erase(from);
      }
  };
  for (auto& r : c) {
    for (auto* m : {&r.launches_per_step, &r.per_step_variance, &r.memory, &r.graphs, &r.capture_alloc, &r.before_alloc}) rename(*m);
    for (const auto& [from, to] : renamed)
      if (auto it = r.label.find(from); it != r.label.end()) {
        std::string was = to;
        for (const auto& rb : b)
          if (auto l = rb.label.find(to); l != rb.label.end()) was = l->second;
        moved[to] = was + " -> " + it->second;
        r.label[to] = it->second;
      }
  }
  return moved;
}

// Whether every run of one side has `what` (and there is a run).
bool every_run_has(const std::vector<RunSites>& runs, bool RunSites::*what) {
  return !runs.empty() && std::all_of(runs.begin(), runs.end(), [&](const RunSites& r) { return r.*what; });
}

// The per-run values of one figure at `key`; a run that has the figure but not the site: 0.
std::vector<double> site_values(const std::vector<RunSites>& runs, std::map<std::string, double> RunSites::*what, const std::string& key) {
  std::vector<double> v;
  for (const auto& r : runs) {
    const auto it = (r.*what).find(key);
    v.push_back(it == (r.*what).end() ? 0.0 : it->second);
  }
  return v;
}

// The sites of one figure over every run.
std::set<std::string> site_keys(const std::vector<RunSites>& runs, std::map<std::string, double> RunSites::*what) {
  std::set<std::string> k;
  for (const auto& r : runs)
    for (const auto& [key, v] : r.*what) k.insert(key);
  return k;
}

// Both sides' sites, run by run, matched, and how each row by site is added.
struct SiteRows {
  const std::string& program;
  const Thresholds& t;
  Comparison& out;
  std::vector<RunSites> b, c;
  std::map<std::string, std::string> moved;  // key -> "old where -> new where"

  void not_comparable(const std::string& metric, const std::string& unit, const std::string& what, bool base_has) const {
    MetricComparison r = site_row(program, "", metric, unit);
    r.method = "profile-runs";
    r.rule.gating = false;
    r.verdict = Verdict::kNotComparable;
    r.reason = std::string(base_has ? "the candidate" : "the baseline") + "'s profile has no " + what +
               " (recorded by an older graphprof, or with call sites or ledgers off)";
    out.rows.push_back(std::move(r));
  }
  std::string label_of(const std::string& key) const {
    for (const auto* side : {&c, &b})
      for (const auto& r : *side)
        if (auto it = r.label.find(key); it != r.label.end()) return it->second;
    return key;
  }
  void add(MetricComparison r, const std::vector<double>& bv, const std::vector<double>& cv, const SeriesRule& rule) const {
    add_judged_row(out, std::move(r), bv, cv, rule, t);
  }
  // A site matched across an edit says where it was: "moved: a.py:45 in f -> a.py:47 in f".
  void note_moved(const std::string& key) const {
    if (auto m = moved.find(key); m != moved.end()) out.rows.back().reason += (out.rows.back().reason.empty() ? "" : "; ") + ("moved: " + m->second);
  }
};

// Every run's sites of each side, keyed as they are matched; a site whose function or file was
// renamed, or whose line moved, keeps the baseline's key, and `moved` says where it was.
void match_sites(SiteRows& x, const std::vector<const ProfileAppRun*>& base_runs, const std::vector<const ProfileAppRun*>& cand_runs,
                 bool several) {
  const SiteMatch how = site_match(base_runs, cand_runs);
  AllocationMatch alloc;
  alloc.native = how;
  alloc.python = has_allocation_python(base_runs) && has_allocation_python(cand_runs);
  if (has_allocation_python(base_runs, true) && has_allocation_python(cand_runs, true)) alloc.python_how = SiteMatch::kSource;
  std::vector<RunSites>& b = x.b;
  std::vector<RunSites>& c = x.c;
  for (const ProfileAppRun* r : base_runs) b.push_back(sites_of_run(*r, several, how, alloc));
  for (const ProfileAppRun* r : cand_runs) c.push_back(sites_of_run(*r, several, how, alloc));
  x.moved = rekey_moved_sites(b, c);
  // Matched by what they are, a site whose line moved keeps its key: its `where` tells it moved.
  for (const auto& rc : c)
    for (const auto& [key, label] : rc.label)
      for (const auto& rb : b)
        if (auto l = rb.label.find(key); l != rb.label.end() && l->second != label) x.moved.emplace(key, l->second + " -> " + label);
}

// Eager kernel launches per step, by site.
void add_eager_site_rows(const SiteRows& x) {
  const std::vector<RunSites>& b = x.b;
  const std::vector<RunSites>& c = x.c;
  const SeriesRule per_step{Kind::kCount, 0.05, false, true};
  const SeriesRule new_site{Kind::kCount, 0.05, true, true};  // any separation from none: a new eager site
  if (!every_run_has(b, &RunSites::sites) || !every_run_has(c, &RunSites::sites)) {
    x.not_comparable("eager_launches_per_step", "per step", "call sites", every_run_has(b, &RunSites::sites));
  } else {
    std::set<std::string> keys = site_keys(b, &RunSites::launches_per_step);
    for (const auto& k : site_keys(c, &RunSites::launches_per_step)) keys.insert(k);
    for (const auto& key : keys) {
      const auto bv = site_values(b, &RunSites::launches_per_step, key), cv = site_values(c, &RunSites::launches_per_step, key);
      if (median_or(bv, 0) < per_step.floor && median_or(cv, 0) < per_step.floor) continue;  // start-up work: no step figure
      const bool fresh = *std::max_element(bv.begin(), bv.end()) == 0;
      MetricComparison r = site_row(x.program, x.label_of(key), "eager_launches_per_step", "per step");
      x.add(r, bv, cv, fresh ? new_site : per_step);
      MetricComparison& done = x.out.rows.back();
      within_sampling(done, bv, site_values(b, &RunSites::per_step_variance, key), cv, site_values(c, &RunSites::per_step_variance, key));
      if (fresh && done.verdict == Verdict::kRegression) done.reason = "new eager call site: " + done.reason;
      x.note_moved(key);
    }
  }
}

// The driver's 2 MiB granularity.
const SeriesRule kSiteMemoryRule{Kind::kCount, 2.0 * 1024 * 1024, false, true};

// Graph memory and graphs made, by site: sites with graphs on both sides (a site that is new or
// gone has its graphs listed as new or no longer captured by the per-graph rows).
void add_graph_site_rows(const SiteRows& x) {
  const std::vector<RunSites>& b = x.b;
  const std::vector<RunSites>& c = x.c;
  const SeriesRule memory = kSiteMemoryRule;
  const SeriesRule graphs{Kind::kCount, 1.0, false, true};
  std::set<std::string> both;
  const auto bk = site_keys(b, &RunSites::graphs), ck = site_keys(c, &RunSites::graphs);
  std::set_intersection(bk.begin(), bk.end(), ck.begin(), ck.end(), std::inserter(both, both.begin()));
  if (!both.empty() && (!every_run_has(b, &RunSites::ledgers) || !every_run_has(c, &RunSites::ledgers))) {
    x.not_comparable("graph_memory", "bytes", "memory ledger", every_run_has(b, &RunSites::ledgers));
  } else {
    for (const auto& key : both)
      x.add(site_row(x.program, x.label_of(key), "graph_memory", "bytes"), site_values(b, &RunSites::memory, key),
            site_values(c, &RunSites::memory, key), memory);
  }
  for (const auto& key : both)
    x.add(site_row(x.program, x.label_of(key), "graphs_made", "count"), site_values(b, &RunSites::graphs, key),
          site_values(c, &RunSites::graphs, key), graphs);
}

// Device memory by allocation site, in captures (gates) and before them (informational: it also
// holds what the thread allocated for itself, a model's weights before its first capture).
void add_allocation_site_rows(const SiteRows& x) {
  const std::vector<RunSites>& b = x.b;
  const std::vector<RunSites>& c = x.c;
  const SeriesRule memory = kSiteMemoryRule;
  const bool b_alloc = every_run_has(b, &RunSites::allocation_sites), c_alloc = every_run_has(c, &RunSites::allocation_sites);
  if (b_alloc != c_alloc) {
    x.not_comparable("capture_alloc_bytes", "bytes", "allocation call sites", b_alloc);
    return;
  }
  if (!b_alloc) return;  // neither side has them: nothing to say
  SeriesRule before = memory;
  before.gating = false;
  for (const auto& [metric, what, rule, fresh_reason] :
       {std::make_tuple("capture_alloc_bytes", &RunSites::capture_alloc, memory, "new allocation site in capture: "),
        std::make_tuple("before_capture_alloc_bytes", &RunSites::before_alloc, before, "new allocation site before capture: ")}) {
    std::set<std::string> keys = site_keys(b, what);
    for (const auto& k : site_keys(c, what)) keys.insert(k);
    for (const auto& key : keys) {
      const auto bv = site_values(b, what, key), cv = site_values(c, what, key);
      if (median_or(bv, 0) < rule.floor && median_or(cv, 0) < rule.floor) continue;  // small on both sides: not worth a row
      x.add(site_row(x.program, x.label_of(key), metric, "bytes"), bv, cv, rule);
      MetricComparison& done = x.out.rows.back();
      if (*std::max_element(bv.begin(), bv.end()) == 0 && done.verdict == Verdict::kRegression) done.reason = fresh_reason + done.reason;
      x.note_moved(key);
    }
  }
}

}  // namespace

void compare_profile_sites(const std::string& program, const std::vector<const ProfileAppRun*>& base_runs,
                           const std::vector<const ProfileAppRun*>& cand_runs, bool several, const Thresholds& t, Comparison& out) {
  SiteRows x{program, t, out, {}, {}, {}};
  match_sites(x, base_runs, cand_runs, several);
  add_eager_site_rows(x);
  add_graph_site_rows(x);
  add_allocation_site_rows(x);
}

}  // namespace gp::compare_detail
