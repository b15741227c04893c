// Combining reports of separate runs (include/graphprof/compare/report_merge.hpp has the rules).
#include "graphprof/compare/report_merge.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <vector>

#include "comparison_internal.hpp"
#include "graphprof/core/derived.hpp"
#include "graphprof/compare/compare_format.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/core/atomic_file.hpp"

namespace gp {

namespace {

std::string gpu_text(const Report& r) {
  if (!r.environment.gpu) return "no GPU recorded";
  const GpuInfo& g = *r.environment.gpu;
  return g.name + " (sm_" + std::to_string(g.cc_major) + std::to_string(g.cc_minor) + ", " + std::to_string(g.sm_count) +
         " SMs)";
}


// sections.device_probe of a result pooled from several reports (`probes`: each report's, in
// merge order; nullptr where it had none): the first process's probe stays where readers of schema
// 1.2 look, and every process's goes into `processes`, so compare sees a switch in any of them.
void pool_device_probes(ModeResult& into, const std::vector<const DeviceProbeSection*>& probes) {
  const auto first = std::find_if(probes.begin(), probes.end(), [](const DeviceProbeSection* p) { return p != nullptr; });
  if (probes.size() < 2 || first == probes.end()) return;
  DeviceProbeSection pooled;
  if (probes.front() != nullptr) {
    pooled = *probes.front();
  } else {
    pooled.chain_kernels = (*first)->chain_kernels;
    pooled.error = "not recorded by the first report";
  }
  pooled.processes.clear();
  for (const DeviceProbeSection* p : probes) {
    if (p == nullptr) {
      pooled.processes.push_back({kNoValue, kNoValue, "not recorded"});
      continue;
    }
    const std::vector<DeviceProbeLevel> levels = p->levels();
    pooled.processes.insert(pooled.processes.end(), levels.begin(), levels.end());
  }
  into.sections.device_probe = std::move(pooled);
}

// Profiles pool their runs: `compare`'s graph-health view reads every run from runs[].
void pool_profile_runs(ProfileSection& into, const ProfileSection& from) {
  // A report without runs[] is one run: the section itself (its processes, exit, wall time).
  ProfileList<ProfileSection> all;
  all.present = true;
  const auto add = [&all](const ProfileSection& run) {
    all.push_back(run);
    all.back().runs = {};
    all.back().extra.erase("runs");
  };
  for (const ProfileSection* p : {static_cast<const ProfileSection*>(&into), &from}) {
    for (const ProfileSection& r : p->runs) add(r);
    if (p->runs.empty()) add(*p);
  }
  for (std::size_t i = 0; i < all.size(); ++i) all[i].run = i + 1;
  into.runs = std::move(all);
}

// The profiled program's name ("" for a report of run or sweep).
std::string profiled_program(const Report& r) {
  for (const ModeResult& res : r.results)
    if (res.mode == Mode::kApp && res.sections.has_profile()) {
      const ProfileText& program = res.sections.profile->program;
      return !program.empty() ? program.str() : "(unnamed program)";
    }
  return {};
}

}  // namespace

std::vector<std::string> report_files(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(path, ec))
    if (e.path().extension() == ".json" && e.is_regular_file()) files.push_back(e.path().string());
  if (ec) throw input_error(path + ": cannot list the folder: " + ec.message());
  if (files.empty()) throw input_error(path + ": the folder holds no *.json report");
  std::sort(files.begin(), files.end());
  return files;
}

std::string report_kind(const Report& r) {
  const std::string program = profiled_program(r);
  if (!program.empty()) return "a profile of " + program + " (graphprof profile)";
  if (r.command_line.size() >= 2 && r.command_line[1] == "sweep") return "a sweep report (graphprof sweep)";
  return "a run report (graphprof run)";
}

bool same_kind(const Report& a, const Report& b) { return profiled_program(a) == profiled_program(b); }

Report merge_reports(const std::vector<Report>& reports, const std::vector<std::string>& sources) {
  if (reports.empty()) throw usage_error("merge: no reports given");
  const auto source = [&](std::size_t i) {
    return i < sources.size() ? sources[i] : std::string("report ") + std::to_string(i + 1);
  };
  Report out = reports.front();
  out.results.clear();
  long long processes = 0;  // summed over the reports: beyond int for hostile ones (2 x 2^31 - 1)
  std::map<compare_detail::Key, std::size_t> where;  // benchmark -> index in out.results
  std::vector<std::vector<const DeviceProbeSection*>> probes;  // per out.results: each report's probe
  for (std::size_t f = 0; f < reports.size(); ++f) {
    const Report& r = reports[f];
    if (!same_kind(r, reports.front()))
      throw input_error(source(f) + " is " + report_kind(r) + ", " + source(0) + " is " + report_kind(reports.front()) +
                        "; merge only runs of one program");
    if (gpu_text(r) != gpu_text(reports.front()))
      throw Error(ExitCode::kUntrusted, source(f) + " was measured on " + gpu_text(r) + ", " + source(0) + " on " +
                                            gpu_text(reports.front()) + "; merge only reports of one GPU model");
    if (r.git_revision != reports.front().git_revision)
      throw Error(ExitCode::kUntrusted, source(f) + " was made by revision " + r.git_revision + ", " + source(0) +
                                            " by " + reports.front().git_revision +
                                            "; merge only runs of one build (compare them instead)");
    compare_detail::index_results(r, {}, source(f));  // one benchmark per report at most
    processes += r.settings.processes_or_one();
    for (const ModeResult& res : r.results) {
      const compare_detail::Key k{res.workload, params_text(res.params), to_string(res.mode)};
      const auto it = where.find(k);
      if (it == where.end()) {
        where.emplace(k, out.results.size());
        out.results.push_back(res);
        probes.push_back({res.sections.device_probe ? &*res.sections.device_probe : nullptr});
        if (res.status != Status::kOk && f > 0) out.results.back().reason += " (in " + source(f) + ")";
        continue;
      }
      ModeResult& into = out.results[it->second];
      if (into.sections.has_profile() && res.sections.has_profile()) pool_profile_runs(*into.sections.profile, *res.sections.profile);
      if (into.status != Status::kOk) continue;  // the first failure stays
      if (res.status != Status::kOk) {
        // A mode that failed in any run failed: the gate must see it, not a pool without it.
        into.status = res.status;
        into.reason = res.reason + " (in " + source(f) + ")";
        into.failure = res.failure;
        into.metrics.clear();
        continue;
      }
      if (!res.checksum.empty() && !into.checksum.empty() && res.checksum != into.checksum)
        throw Error(ExitCode::kUntrusted, source(f) + ": " + res.workload + "/" + to_string(res.mode) + " computed checksum " +
                                              res.checksum + ", " + source(0) + " " + into.checksum +
                                              "; these are not runs of one build");
      for (const auto& [name, m] : res.metrics) {
        auto mt = into.metrics.find(name);
        if (mt == into.metrics.end()) {
          into.metrics.emplace(name, m);
          continue;
        }
        mt->second.repetitions.insert(mt->second.repetitions.end(), m.repetitions.begin(), m.repetitions.end());
        mt->second.converged = mt->second.converged && m.converged;
      }
      probes[it->second].push_back(res.sections.device_probe ? &*res.sections.device_probe : nullptr);
    }
  }
  for (std::size_t i = 0; i < out.results.size(); ++i)
    if (out.results[i].status == Status::kOk) pool_device_probes(out.results[i], probes[i]);
  for (auto& res : out.results) {
    for (auto& [k, m] : res.metrics) m.resummarize();
    if (res.status == Status::kOk) derive_within_mode(res);
  }
  derive_against_eager(out.results);
  out.settings.processes = processes;
  if (out.settings.repetitions) out.settings.repetitions_total = *out.settings.repetitions * processes;
  return out;
}

std::vector<Report> read_distinct_reports(const std::vector<std::string>& paths) {
  std::vector<Report> reports;
  std::vector<std::pair<std::size_t, std::string>> contents;  // hash and bytes of each regular file read
  for (std::size_t i = 0; i < paths.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (paths[i] == paths[j] || std::filesystem::equivalent(paths[i], paths[j], ec))
        throw input_error(paths[i] + ": given twice (also as " + paths[j] +
                          "); each run may be counted once, or its noise would look smaller than it is");
    }
    std::error_code ec;
    if (std::filesystem::is_regular_file(paths[i], ec)) {
      std::string bytes = read_file(paths[i]);
      const std::size_t h = std::hash<std::string>{}(bytes);
      for (std::size_t j = 0; j < contents.size(); ++j)
        if (contents[j].first == h && contents[j].second == bytes)
          throw input_error(paths[i] + ": the same bytes as " + paths[j] +
                            ": a copy of one run, not another run (each run may be counted once, or its noise would "
                            "look smaller than it is)");
      contents.emplace_back(h, std::move(bytes));
    } else {
      contents.emplace_back(0, std::string());
    }
    reports.push_back(read_report(paths[i]));
  }
  // A copy under another name (or the same report written again with other spacing) is the same
  // run: pooled twice it would halve the noise. Compared by content, as the report reads.
  std::vector<std::string> texts;
  for (const Report& r : reports) texts.push_back(report_json_text(r));
  for (std::size_t i = 0; i < texts.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (texts[i] == texts[j])
        throw input_error(paths[i] + ": the same report as " + paths[j] +
                          " (identical content under another name); each run may be counted once, or its noise "
                          "would look smaller than it is");
  return reports;
}

}  // namespace gp
