// Shared option handling of `run` and `sweep`.
#include "run_options.hpp"

#include <algorithm>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <sstream>

#include "graphprof/atomic_file.hpp"
#include "graphprof/compare_merge.hpp"
#include "graphprof/derived.hpp"

#include "graphprof/error.hpp"
#include "graphprof/reporters.hpp"

namespace gp::cli {

namespace {
std::vector<Mode> parse_modes(const std::vector<std::string>& texts) {
  std::vector<Mode> modes;
  for (const auto& t : texts) {
    if (t == "all") return {kAllModes.begin(), kAllModes.end()};
    auto m = mode_from_string(t);
    if (!m) throw usage_error("--mode " + t + ": expected eager, capture, graph or all");
    modes.push_back(*m);
  }
  return modes;
}
}  // namespace

void add_run_options(CLI::App* sub, RunOptions& o, const std::string& workload_help) {
  sub->add_option("--workload,-w", o.workloads, workload_help)->delimiter(',');
  sub->add_option("--mode,-m", o.modes, "eager, capture, graph or all")->delimiter(',')->capture_default_str();
  sub->add_option("--param,-p", o.params, "workload parameter NAME=VALUE (repeatable)");
  sub->add_option("--json", o.json_path, "write the JSON report to this file (atomically)");
  sub->add_option("--markdown", o.markdown_path, "also write a Markdown summary to this file");
  sub->add_option("--out", o.out_dir, "folder for report.json and the graphs' DOT dumps");
  sub->add_option("--repetitions,-r", o.repetitions, "independent repetitions of the whole measurement")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->add_option("--target-ci", o.target_ci, "stop sampling when the median's relative 95% CI half-width is below this")
      ->check(CLI::Range(0.0001, 1.0))
      ->capture_default_str();
  sub->add_option("--budget", o.budget, "seconds per timing pass before sampling stops anyway")
      ->check(CLI::Range(0.01, 600.0))
      ->capture_default_str();
  sub->add_option("--min-time", o.min_time, "seconds each timing pass samples at least (capped by --budget)")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
  sub->add_option("--min-samples", o.min_samples, "minimum samples per timing pass")
      ->check(CLI::Range(3, 1000000))
      ->capture_default_str();
  sub->add_option("--device", o.device, "CUDA device ordinal")->capture_default_str();
  sub->add_option("--processes", o.processes,
                  "run the measurement in this many separate processes and merge their repetitions "
                  "(host-side figures vary more between processes than within one)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_flag("--quiet,-q", o.quiet, "no progress lines on stderr");
}

RunRequest make_request(const RunOptions& o, std::string& json_path) {
  RunRequest req;
  req.workloads = o.workloads;
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
  json_path = o.json_path;
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) throw usage_error("--out " + o.out_dir + ": cannot create folder: " + ec.message());
    req.measure.dot_dir = (std::filesystem::path(o.out_dir) / "dot").string();
    if (json_path.empty()) json_path = (std::filesystem::path(o.out_dir) / "report.json").string();
  }
  return req;
}

std::vector<std::string> command_line_of(const CLI::App& sub) {
  std::vector<std::string> v{"graphprof", sub.get_name()};
  for (const CLI::Option* o : sub.get_options()) {
    if (o->count() == 0 || o->get_name() == "--help") continue;
    for (const auto& r : o->results()) v.push_back(o->get_name() + "=" + r);
  }
  return v;
}

void write_outputs(const Report& report, const RunOptions& o, const std::string& json_path) {
  if (!json_path.empty()) {
    write_report(report, json_path);
    std::cout << "\nreport written to " << json_path << "\n";
  }
  if (!o.markdown_path.empty()) {
    std::ostringstream md;
    print_run_markdown(report, md);
    write_file_atomic(o.markdown_path, md.str());
    std::cout << "Markdown summary written to " << o.markdown_path << "\n";
  }
}

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// The child's command line: the same measurement, reporting JSON only.
std::vector<std::string> child_arguments(const std::string& subcommand, const RunOptions& o, const std::string& json) {
  std::vector<std::string> a{"graphprof", subcommand, "--quiet", "--processes=1", "--json=" + json};
  if (subcommand == "run") a.push_back("--trace=none");
  if (!o.workloads.empty()) a.push_back("--workload=" + joined(o.workloads));
  a.push_back("--mode=" + joined(o.modes));
  for (const auto& p : o.params) a.push_back("--param=" + p);
  a.push_back("--repetitions=" + std::to_string(o.repetitions));
  a.push_back("--target-ci=" + std::to_string(o.target_ci));
  a.push_back("--budget=" + std::to_string(o.budget));
  a.push_back("--min-time=" + std::to_string(o.min_time));
  a.push_back("--min-samples=" + std::to_string(o.min_samples));
  a.push_back("--device=" + std::to_string(o.device));
  return a;
}

// Runs this binary with `args`, its stdout discarded; returns its exit status.
int run_self(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  // The children measure without tracing: graphprof's own NVTX_INJECTION64_PATH (set for the
  // trace pass) would load CUPTI into them, which on the H200 slowed graph replays by up to 50 %.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "NVTX_INJECTION64_PATH=", 22) != 0) env_text.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw internal_error(std::string("--processes: cannot start another graphprof: ") + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw internal_error(std::string("--processes: waitpid failed: ") + std::strerror(errno));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::vector<Report> run_other_processes(const RunOptions& o, const std::string& subcommand) {
  std::vector<Report> reports;
  const std::string dir = std::filesystem::temp_directory_path().string();
  for (int k = 2; k <= o.processes; ++k) {
    if (!o.quiet) std::cerr << "  process " << k << " of " << o.processes << "\n";
    const std::string json = dir + "/graphprof-process-" + std::to_string(::getpid()) + "-" + std::to_string(k) + ".json";
    const int rc = run_self(child_arguments(subcommand, o, json));
    if (rc != 0) {
      std::filesystem::remove(json);
      throw Error(rc == 4 ? ExitCode::kEnvironment : ExitCode::kInternal,
                  "--processes: process " + std::to_string(k) + " of " + std::to_string(o.processes) +
                      " exited with status " + std::to_string(rc));
    }
    reports.push_back(read_report(json));
    std::filesystem::remove(json);
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

ProgressFn progress_printer(bool quiet) {
  return [quiet](const ModeResult& r) {
    if (!quiet) std::cerr << "  " << progress_line(r) << "\n";
  };
}

}  // namespace gp::cli
