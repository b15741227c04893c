// Shared option handling of `run` and `sweep`.
#include "run_options.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "graphprof/atomic_file.hpp"

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

ProgressFn progress_printer(bool quiet) {
  return [quiet](const ModeResult& r) {
    if (!quiet) std::cerr << "  " << progress_line(r) << "\n";
  };
}

}  // namespace gp::cli
