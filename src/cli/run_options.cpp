// Shared option handling of `run` and `sweep`.
#include "run_options.hpp"

#include "progress_line.hpp"

#include <algorithm>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "graphprof/core/json_text.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/batch_rule.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/cuda/device.hpp"
#include "graphprof/cuda/plugin_loader.hpp"
#include "graphprof/core/derived.hpp"
#include "graphprof/core/ranks.hpp"

#include "graphprof/core/error.hpp"
#include "graphprof/report/html_report.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/run_outcome.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "child_processes.hpp"
#include "option_checks.hpp"
#include "self_spawn.hpp"

namespace gp::cli {

namespace {
std::vector<Mode> parse_modes(const std::vector<std::string>& texts) {
  std::vector<Mode> modes;
  for (const auto& t : texts) {
    if (t == "all") return {kAllModes.begin(), kAllModes.end()};
    auto m = mode_from_string(t);
    if (!m || *m == Mode::kApp) throw usage_error("--mode " + t + ": expected eager, capture, graph or all");
    modes.push_back(*m);
  }
  return modes;
}
}  // namespace

void add_run_options(CLI::App* sub, RunOptions& o, const std::string& workload_help) {
  sub->add_option("--workload,-w", o.workloads, workload_help)->delimiter(',');
  add_load_option(sub, o.load);
  sub->add_option("--mode,-m", o.modes, "eager, capture, graph or all")->delimiter(',')->capture_default_str();
  sub->add_option("--param,-p", o.params, "workload parameter NAME=VALUE (repeatable)");
  sub->add_option("--json", o.json_path, "write the JSON report to this file (atomically)");
  sub->add_option("--markdown", o.markdown_path, "also write a Markdown summary to this file");
  sub->add_option("--html", o.html_path, "also write a self-contained HTML report with charts to this file");
  sub->add_option("--csv", o.csv_path, "also write every metric as CSV (one row per workload/params/mode/metric)");
  sub->add_option("--out", o.out_dir, "folder for report.json and the graphs' DOT dumps");
  sub->add_option("--repetitions,-r", o.repetitions, "independent repetitions of the whole measurement")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->add_option("--target-ci", o.target_ci, "stop sampling when the median's relative 95% CI half-width is below this")
      ->check(finite_number())
      ->check(CLI::Range(0.0001, 1.0))
      ->capture_default_str();
  sub->add_option("--budget", o.budget, "seconds per timing pass before sampling stops anyway")
      ->check(finite_number())
      ->check(CLI::Range(0.01, 600.0))
      ->capture_default_str();
  sub->add_option("--min-time", o.min_time, "seconds each timing pass samples at least (capped by --budget)")
      ->check(finite_number())
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
  sub->add_option("--min-samples", o.min_samples, "minimum samples per timing pass")
      ->check(CLI::Range(3, 1000000))
      ->capture_default_str();
  sub->add_option("--device", o.device, "CUDA device ordinal")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--processes", o.processes,
                  "run the measurement in this many separate processes and merge their repetitions "
                  "(host-side figures vary more between processes than within one)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_option("--ranks", o.ranks,
                  "multi-GPU workloads (allreduce): one process per GPU, this many GPUs or 'all'; their reports "
                  "are merged, the slowest rank decides")
      ->capture_default_str();
  sub->add_option("--lockstep", o.lockstep, "internal: fixed sample count per pass (set for the ranks of --ranks)")
      ->group("");
  sub->add_flag("--quiet,-q", o.quiet, "no progress lines on stderr");
  sub->add_option("--time-limit", o.time_limit,
                  "seconds for the whole command: at the limit no further workload/mode starts, each pass stops "
                  "within the time left, what was measured is written and graphprof exits 4")
      ->check(finite_number())
      ->check(CLI::Range(0.1, 1e7));
  sub->add_flag("--verbose,-v", o.verbose,
                "print every metric of every mode (median, percentiles, CI, samples) and the trace detail, not only "
                "the summary and the answer (the JSON and HTML reports always hold everything)");
}

void add_load_option(CLI::App* sub, std::vector<std::string>& paths) {
  sub->add_option("--load", paths,
                  "load workloads from a plugin library built with graphprof_add_workload (repeatable; docs/api.md)");
}

std::vector<std::string> load_plugins(const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (const auto& path : paths)
    for (auto& n : load_plugin(path)) names.push_back(std::move(n));
  return names;
}

RunRequest make_request(const RunOptions& o, std::string& json_path) {
  if (o.isolate && o.ranks != "1") throw usage_error("--isolate and --ranks cannot be combined");
  // Ranks run in lockstep and --processes merges like measurements: a limit that cuts one
  // process's list and not another's would leave ranks waiting and mix different results.
  if (o.time_limit > 0 && o.ranks != "1") throw usage_error("--time-limit and --ranks cannot be combined");
  if (o.time_limit > 0 && o.processes > 1) throw usage_error("--time-limit and --processes cannot be combined");
  RunRequest req;
  if (o.time_limit > 0)
    req.deadline = deadline_after(o.time_limit);
  // Plugins first, so their workloads and parameters are known when the request is checked.
  // With --load and no --workload, the loaded workloads are what runs (not the bundled suite).
  const std::vector<std::string> loaded = load_plugins(o.load);
  req.workloads = o.workloads.empty() ? loaded : o.workloads;
  req.modes = parse_modes(o.modes);
  for (const auto& p : o.params) {
    auto [k, v] = parse_param_assignment(p);
    req.params[k] = v;
  }
  req.measure.repetitions = o.repetitions;
  req.measure.rule.target_rel_ci = o.target_ci;
  req.measure.rule.budget_seconds = o.budget;
  req.measure.rule.min_seconds = std::min(o.min_time, o.budget);
  req.measure.rule.min_samples = static_cast<std::size_t>(o.min_samples);
  req.device = o.device;
  if (o.lockstep > 0) {
    // Ranks exchange data inside their iterations, so every rank must run exactly as many
    // iterations in every pass: a fixed count, no time-based stopping, no timed warm-up.
    req.measure.rule.min_samples = static_cast<std::size_t>(o.lockstep);
    req.measure.rule.max_samples = static_cast<std::size_t>(o.lockstep);
    req.measure.rule.target_rel_ci = -1;
    req.measure.rule.budget_seconds = 1e9;
    req.measure.rule.min_seconds = 0;
    req.measure.warmup_seconds = 0;
  }
  json_path = o.json_path;
  // Every output is checked before anything is measured: a typo must not cost the measurement.
  if (!o.json_path.empty()) check_output_path("--json", o.json_path);
  if (!o.markdown_path.empty()) check_output_path("--markdown", o.markdown_path);
  if (!o.html_path.empty()) check_output_path("--html", o.html_path);
  if (!o.csv_path.empty()) check_output_path("--csv", o.csv_path);
  if (!o.out_dir.empty()) {
    check_output_folder("--out", o.out_dir);
    req.measure.dot_dir = (std::filesystem::path(o.out_dir) / "dot").string();
    check_output_folder("--out", req.measure.dot_dir);
    if (json_path.empty()) {
      json_path = (std::filesystem::path(o.out_dir) / "report.json").string();
      check_output_path("--out", json_path);
    }
  }
  return req;
}

void run_outputs_apart(const RunOptions& o, const std::string& json_path, const std::string& trace_out) {
  NamedPaths inputs;
  for (const auto& lib : o.load) inputs.emplace_back("--load", lib);
  outputs_apart(inputs, {{o.json_path.empty() ? "--out" : "--json", json_path}, {"--markdown", o.markdown_path},
                         {"--html", o.html_path}, {"--csv", o.csv_path}, {"--trace-out", trace_out}});
}

std::vector<std::string> command_line_of(const CLI::App& sub) {
  std::vector<std::string> v{"graphprof", sub.get_name()};
  for (const CLI::Option* o : sub.get_options()) {
    if (o->count() == 0 || o->get_name() == "--help") continue;
    for (const auto& r : o->results()) v.push_back(o->get_name() + "=" + r);
  }
  return v;
}

std::ostream& console_of(const RunOptions& o, const std::string& json_path, const std::string& trace_out) {
  progress_line().clear();  // the progress line goes before the console's first line
  for (const std::string* path : {&json_path, &o.markdown_path, &o.csv_path, &o.html_path, &trace_out})
    if (writes_to_stdout(*path)) return std::cerr;
  return std::cout;
}

void write_outputs(const Report& report, const RunOptions& o, const std::string& json_path,
                   const std::string& trace_out) {
  HtmlReportOptions html;
  html.source = json_path;
  const JsonReporter json_reporter;
  const MarkdownReporter markdown_reporter;
  const CsvReporter csv_reporter;
  const HtmlReporter html_reporter(html);
  const struct {
    const std::string& path;
    const Reporter& reporter;
    const char* written;
  } outputs[] = {{json_path, json_reporter, "\nreport written to "},
                 {o.markdown_path, markdown_reporter, "Markdown summary written to "},
                 {o.csv_path, csv_reporter, "CSV written to "},
                 {o.html_path, html_reporter, "HTML report written to "}};
  for (const auto& output : outputs) {
    if (output.path.empty()) continue;
    write_report_file(output.reporter, report, output.path);
    console_of(o, json_path, trace_out) << output.written << output.path << "\n";
  }
}

void print_more_hint(const RunOptions& o, const std::string& json_path, bool traced, const std::string& trace_out) {
  if (o.verbose) return;
  std::ostream& out = console_of(o, json_path, trace_out);
  std::string more = std::string("more: the same command with --verbose (every metric with its CI") +
                     (traced ? ", the trace pass's detail)" : ")");
  if (!json_path.empty() && !writes_to_stdout(json_path)) more += "; graphprof report " + json_path + " -o report.html (charts)";
  out << wrap_clauses(more, kSentenceWidth);
}

namespace {

int run_self(const std::vector<std::string>& args, bool keep_environment = false) {
  return wait_child(spawn_self(args, {}, keep_environment));
}

// Where a child writes its report: a file in a folder only this user can enter (mkdtemp), so
// no one else can put a link or a file under the name before the child writes it.
std::string child_report_path(const TemporaryFolder& folder, const std::string& what, std::size_t k) {
  return (std::filesystem::path(folder.path()) / (what + "-" + std::to_string(k) + ".json")).string();
}

// A child's report file, removed however the parent goes on (read_report can throw: the file
// must not stay behind in the temporary folder).
struct RemovedAtEnd {
  std::string path;
  TempFileGuard on_signal{path};  // and when graphprof is killed while the child runs
  ~RemovedAtEnd() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

}  // namespace

TemporaryFolder::TemporaryFolder(const std::string& what) {
  // mkdtemp: a new folder (mode 0700) under a name nobody can guess or have made before; an
  // existing folder of that name, whoever made it, is never reused.
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string name = (base / ("graphprof-" + what + "-XXXXXX")).string();
  if (::mkdtemp(name.data()) == nullptr)
    throw environment_error("cannot make a temporary folder in " + base.string() + ": " + std::strerror(errno));
  path_ = name;
  on_signal_ = std::make_unique<TempFolderGuard>(path_);
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<Report> run_other_processes(const RunOptions& o, const std::string& subcommand) {
  std::vector<Report> reports;
  RunOptions child = o;  // the same measurement, one process each, no DOT dumps, no progress
  child.processes = 1;
  child.quiet = true;
  child.out_dir.clear();
  std::optional<TemporaryFolder> scratch_folder;
  if (o.processes > 1) scratch_folder.emplace("processes");
  for (int k = 2; k <= o.processes; ++k) {
    const TemporaryFolder& scratch = *scratch_folder;
    if (!o.quiet) progress_line().show("  process " + std::to_string(k) + " of " + std::to_string(o.processes));
    const std::string json = child_report_path(scratch, "process", static_cast<std::size_t>(k));
    std::vector<std::string> args = child_arguments(subcommand, child);
    args.push_back("--json=" + json);
    const RemovedAtEnd report_file{json};
    const int rc = run_self(args);
    if (rc != 0)
      throw Error(rc == 4 ? ExitCode::kEnvironment : ExitCode::kInternal,
                  "--processes: process " + std::to_string(k) + " of " + std::to_string(o.processes) +
                      " exited with status " + std::to_string(rc));
    reports.push_back(read_report(json));
  }
  return reports;
}

Report merge_processes(Report first, std::vector<Report> others) {
  if (others.empty()) return first;
  std::vector<Report> all{std::move(first)};
  std::vector<std::string> sources{"process 1"};
  for (auto& r : others) {
    all.push_back(std::move(r));
    sources.push_back("process " + std::to_string(all.size()));
  }
  return merge_reports(all, sources);
}

Report run_isolated(const RunOptions& o, const std::vector<IsolatedChild>& children, const std::vector<Mode>& modes) {
  // No GPU: one clear message here (exit 4), not one per child.
  const int devices = device_count();
  if (o.device < 0 || o.device >= devices)
    throw usage_error("--device " + std::to_string(o.device) + ": only " + std::to_string(devices) + " device(s) present");
  std::vector<std::optional<Report>> got(children.size());
  std::vector<int> status(children.size(), 0);
  const Deadline limit = deadline_after(o.time_limit);
  const TemporaryFolder scratch("isolate");
  for (std::size_t i = 0; i < children.size(); ++i) {
    const IsolatedChild& c = children[i];
    // --time-limit: each child gets the time left; one that would start after it is cut.
    const double left = seconds_left(limit);
    if (o.time_limit > 0 && left <= 0) {
      status[i] = kCutByTimeLimit;
      continue;
    }
    if (!o.quiet) progress_line().show("  " + c.which);
    const std::string json = child_report_path(scratch, "isolate", i + 1);
    std::vector<std::string> args = c.args;
    args.push_back("--json=" + json);
    if (o.time_limit > 0) args.push_back("--time-limit=" + strf("%.3f", std::max(left, 0.1)));
    const RemovedAtEnd report_file{json};
    const int rc = run_self(args, /*keep_environment=*/true);
    std::error_code missing;
    if (rc == 0 || (rc == 4 && std::filesystem::exists(json, missing))) {
      Report r = read_report(json);
      // Exit 4 after writing its report: a sticky CUDA error ended that process only (the next
      // child starts with a fresh context); what it measured is kept, the error is reported last.
      // Exit 4 after --time-limit cut it: what it measured is kept, the rest is marked cut.
      if (rc == 0 || !lost_context_message(r).empty() || !time_limit_message(r, o.time_limit).empty())
        got[i] = std::move(r);
    }
    if (got[i]) continue;
    if (rc == 2 || rc == 4)
      throw Error(rc == 4 ? ExitCode::kEnvironment : ExitCode::kUsage,
                  "--isolate: the process of " + c.which + " exited with status " + std::to_string(rc) +
                      " (its message is above); graphprof stopped there, before writing any report");
    status[i] = rc;
    if (!o.quiet) progress_line().keep("  " + c.which + " failed: its process exited with status " + std::to_string(rc));
  }
  return merge_isolated(children, std::move(got), status, modes, o.processes);
}

void CliObserver::pass_started(const ModeResult& r, const char* pass) {
  if (quiet_) return;
  // Quiet for quick modes; once a mode has run a few seconds, each pass it starts is announced.
  std::string key = r.workload + " " + to_string(r.mode);
  for (const auto& [k, v] : r.params) key += " " + k + "=" + v;
  const auto now = std::chrono::steady_clock::now();
  if (key != mode_) {
    mode_ = key;
    mode_started_ = now;
  }
  const double s = std::chrono::duration<double>(now - mode_started_).count();
  if (s >= 2.0) progress_line().show("  ... " + key + ": " + pass + " (" + std::to_string(static_cast<int>(s)) + " s into this mode)");
}

void CliObserver::trace_recorded(const ModeResult& r, const TraceData& data, const NodeJoin& join) {
  if (chrome_ != nullptr) chrome_->add(r.workload + " " + to_string(r.mode), data, &join);
  if (!records_dir_.empty())
    write_file_atomic((std::filesystem::path(records_dir_) / (trace_records_stem(r) + ".trace.json")).string(),
                      json_text(to_json(data)));
}

void CliObserver::result_finished(const ModeResult& r) {
  ++done_;
  if (quiet_) return;
  std::string line = "  [" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + progress_line(r);
  if (time_limit_ > 0) {
    const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    line += " (" + std::to_string(static_cast<long long>(used)) + " s of --time-limit " + strf("%g", time_limit_) + " s)";
  }
  progress_line().show(line);
}

void stop_if_context_lost(const Report& report) {
  const std::string why = lost_context_message(report);
  if (why.empty()) return;
  const bool isolated = report.settings.isolate.value_or(false);
  throw environment_error(why + (isolated ? " (--isolate: that process stopped there; the others ran and their "
                                            "results are in the report)"
                                          : ""));
}

std::optional<Report> run_ranks(const RunOptions& o, const std::string& subcommand) {
  if (o.ranks == "1") return std::nullopt;
  // The command line first: a usage error is exit 2 also on a machine without a GPU.
  if (o.processes != 1) throw usage_error("--ranks and --processes cannot be combined");
  int n = 0;
  if (o.ranks == "all") {
    n = device_count();
  } else {
    try {
      n = std::stoi(o.ranks);
    } catch (const std::exception&) {
      n = 0;
    }
    if (n < 1 || n > 4096) throw usage_error("--ranks " + o.ranks + ": expected a number of GPUs (1 or more) or 'all'");
    if (n > device_count())
      throw usage_error("--ranks " + o.ranks + ": this machine shows " + std::to_string(device_count()) + " GPU(s)");
  }
  if (n == 1) return std::nullopt;
  const TemporaryFolder rendezvous("ranks");
  const std::filesystem::path dir = rendezvous.path();
  // Samples per pass: enough for medians with a CI, the same on every rank.
  const int samples = o.lockstep > 0 ? o.lockstep : std::max(o.min_samples, 100);
  std::vector<pid_t> pids;
  std::vector<std::string> jsons;
  for (int r = 0; r < n; ++r) {
    jsons.push_back((dir / ("rank" + std::to_string(r) + ".json")).string());
    RunOptions child = o;
    child.device = r;
    child.quiet = true;
    child.params.push_back("rank=" + std::to_string(r));
    child.params.push_back("nranks=" + std::to_string(n));
    child.params.push_back(std::string(kRendezvousParam) + "=" + dir.string());
    if (!o.out_dir.empty())  // each rank's DOT dumps in its own folder
      child.out_dir = (std::filesystem::path(o.out_dir) / ("rank" + std::to_string(r))).string();
    std::vector<std::string> args = child_arguments(subcommand, child);
    args.push_back("--json=" + jsons.back());
    args.push_back("--lockstep=" + std::to_string(samples));
    // NVLink SHARP (multicast) stays off unless the user set it: the lent machines forbid it.
    // The rank variables torchrun sets: `graphprof profile -- graphprof run --ranks N` then shows
    // the ranks in its cross-rank view, as it shows a torchrun job's.
    const std::string nranks = std::to_string(n), rank = std::to_string(r);
    try {
      pids.push_back(spawn_self(args, {"NCCL_NVLS_ENABLE=" + std::string(std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "0"),
                                       "RANK=" + rank, "LOCAL_RANK=" + rank, "WORLD_SIZE=" + nranks,
                                       "LOCAL_WORLD_SIZE=" + nranks}));
    } catch (const Error&) {
      // The ranks already started would wait for this one forever: stopped and reaped first.
      for (const pid_t p : pids) ::kill(p, SIGTERM);
      for (const pid_t p : pids) wait_child(p);
      throw;
    }
    if (!o.quiet) std::cerr << "  rank " << r << " of " << n << " started on GPU " << r << "\n";
  }
  // Wait for all; the first failure stops the others (a rank left alone would wait forever).
  std::vector<int> status(static_cast<std::size_t>(n), -1);
  int failed = -1;
  for (int done = 0; done < n;) {
    for (int r = 0; r < n; ++r) {
      if (status[static_cast<std::size_t>(r)] >= 0) continue;
      const int s = wait_child(pids[static_cast<std::size_t>(r)], false);
      if (s < 0) continue;
      status[static_cast<std::size_t>(r)] = s;
      ++done;
      if (s != 0 && failed < 0) {
        failed = r;
        for (int k = 0; k < n; ++k)
          if (status[static_cast<std::size_t>(k)] < 0) ::kill(pids[static_cast<std::size_t>(k)], SIGTERM);
      }
    }
    if (done < n) ::usleep(20000);
  }
  if (failed >= 0) {
    const int s = status[static_cast<std::size_t>(failed)];
    throw Error(s == 4 ? ExitCode::kEnvironment : s == 2 ? ExitCode::kUsage : ExitCode::kInternal,
                "--ranks: rank " + std::to_string(failed) + " of " + std::to_string(n) + " exited with status " +
                    std::to_string(s) + " (its own message is above); the other ranks were stopped");
  }
  std::vector<Report> reports;
  for (const auto& j : jsons) reports.push_back(read_report(j));
  return merge_ranks(reports);
}

std::size_t planned_results(const RunRequest& req) { return plan_suite(req).size() * req.modes.size(); }

void stop_if_time_limit_cut(const Report& report, const RunOptions& o) {
  const std::string why = time_limit_message(report, o.time_limit);
  if (!why.empty()) throw environment_error(why);
}

}  // namespace gp::cli
