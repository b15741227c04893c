// `graphprof merge` of the profile reports of one job's nodes: joined by global rank into one
// report with every rank's processes and the cross-rank view over all of them
// (graphprof/profile/profile_ranks.hpp, docs/profile.md "Several nodes").
#include <algorithm>
#include <map>
#include <set>

#include "graphprof/core/error.hpp"
#include "graphprof/core/profile_fields.hpp"
#include "graphprof/profile/profile.hpp"

namespace gp {

namespace {

using profile_fields::app_result;

// (global rank, host) of every process with a rank identity.
std::set<std::pair<long long, std::string>> ranks_of(const Report& r) {
  std::set<std::pair<long long, std::string>> out;
  const ProfileSection* profile = profile_fields::typed_section(r);
  if (profile == nullptr) return out;
  for (const auto& p : profile->processes)
    if (p.rank && p.rank->rank.is_integer()) out.insert({p.rank->rank.signed_value(), p.host});
  return out;
}

void set_single(Metric& m, double v) {
  m.repetitions = {{v}};
  m.resummarize();
}

}  // namespace

bool are_rank_profiles(const std::vector<Report>& reports) {
  if (reports.size() < 2) return false;
  for (const Report& r : reports)
    if (ranks_of(r).empty()) return false;
  // The same ranks on the same hosts in every report: repeated profiles of one job, pooled as
  // repetitions by the ordinary merge.
  for (const Report& r : reports)
    if (ranks_of(r) != ranks_of(reports.front())) return true;
  return false;
}

Report merge_rank_profiles(const std::vector<Report>& reports, const std::vector<std::string>& sources) {
  const auto source = [&](std::size_t i) { return i < sources.size() ? sources[i] : "report " + std::to_string(i + 1); };
  std::map<long long, std::pair<std::size_t, std::string>> owner;  // global rank -> (report, host)
  for (std::size_t f = 0; f < reports.size(); ++f) {
    if (app_result(reports[f]) == nullptr)
      throw input_error(source(f) + ": not a report of graphprof profile (no application result with sections.profile)");
    for (const auto& [rank, host] : ranks_of(reports[f])) {
      const auto it = owner.find(rank);
      if (it != owner.end() && it->second.first != f)
        throw input_error(source(f) + ": global rank " + std::to_string(rank) + " (host '" + host + "') is also in " +
                          source(it->second.first) + " (host '" + it->second.second +
                          "'); the reports of one job's nodes hold different ranks (check each node's rank offset: "
                          "torchrun --node_rank, Slurm's SLURM_PROCID)");
      owner.emplace(rank, std::make_pair(f, host));
    }
    if (reports[f].git_revision != reports.front().git_revision)
      throw Error(ExitCode::kUntrusted, source(f) + " was made by revision " + reports[f].git_revision + ", " + source(0) +
                                            " by " + reports.front().git_revision + "; profile every node with one build");
  }
  Report out = reports.front();
  out.results.clear();
  ModeResult app = *app_result(reports.front());
  ProfileSection& profile = *app.sections.profile;
  ProfileList<ProfileProcess> processes;
  ProfileList<ProfileText> notes, merged_from;
  processes.present = notes.present = merged_from.present = true;
  double wall = 0;
  double graph_ns = 0, eager_ns = 0, graph_launches = 0, eager_launches = 0;
  std::vector<double> launch_calls;
  for (std::size_t f = 0; f < reports.size(); ++f) {
    const ModeResult& a = *app_result(reports[f]);
    const ProfileSection& p = *a.sections.profile;
    if (a.workload != app.workload)
      throw input_error(source(f) + ": profiles " + a.workload + ", " + source(0) + " " + app.workload +
                        "; merge the reports of one job");
    merged_from.push_back(source(f));
    wall = std::max(wall, p.wall_ns.value_or(0.0));
    if (a.status != Status::kOk && app.status == Status::kOk) {
      app.status = a.status;
      app.reason = a.reason + " (in " + source(f) + ")";
    }
    for (const auto& n : p.notes) notes.push_back(n);
    // Processes renumbered in merge order; each remembers its report; per-graph results follow.
    std::map<std::string, std::string> renumber;
    for (const auto& proc : p.processes) {
      ProfileProcess q = proc;
      const std::string old = std::to_string(static_cast<int>(proc.process.value_or(0)));
      q.process = processes.size() + 1;
      q.report = source(f);
      renumber[old] = std::to_string(processes.size() + 1);
      if (proc.coverage) {
        graph_ns += proc.coverage->graph_kernel_ns.value_or(0.0);
        eager_ns += proc.coverage->eager_kernel_ns.value_or(0.0);
        graph_launches += proc.coverage->graph_launches.value_or(0.0);
        eager_launches += proc.coverage->eager_launches.value_or(0.0);
      }
      processes.push_back(std::move(q));
    }
    if (auto m = a.metrics.find("graph_launch_cpu_per_call"); m != a.metrics.end()) {
      const auto samples = m->second.all_samples();
      launch_calls.insert(launch_calls.end(), samples.begin(), samples.end());
    }
    for (const ModeResult& r : reports[f].results) {
      if (&r == &a) continue;
      ModeResult g = r;
      if (auto it = g.params.find("process"); it != g.params.end() && renumber.count(it->second)) it->second = renumber[it->second];
      out.results.push_back(std::move(g));
    }
  }
  profile.wall_ns = wall;
  profile.notes = std::move(notes);
  profile.merged_from = std::move(merged_from);
  profile.processes = std::move(processes);
  profile.cross_rank = cross_rank_view(profile.processes);
  // The overhead of one node's run says nothing of the others'.
  profile.overhead = ProfileNumber::null();
  if (auto m = app.metrics.find("wall_time"); m != app.metrics.end()) set_single(m->second, wall);
  if (auto m = app.metrics.find("graph_launches"); m != app.metrics.end()) set_single(m->second, graph_launches);
  if (auto m = app.metrics.find("eager_launches"); m != app.metrics.end()) set_single(m->second, eager_launches);
  if (auto m = app.metrics.find("kernel_time_in_graphs"); m != app.metrics.end() && graph_ns + eager_ns > 0)
    set_single(m->second, graph_ns / (graph_ns + eager_ns));
  if (auto m = app.metrics.find("graph_launch_cpu_per_call"); m != app.metrics.end()) {
    m->second.repetitions = {launch_calls};
    m->second.resummarize();
  }
  app.metrics.erase("wall_time_plain");
  out.results.insert(out.results.begin(), std::move(app));
  out.settings.merged_by = "rank";
  return out;
}

}  // namespace gp
