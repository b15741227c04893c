// graphprof compare: a baseline report against a candidate report. Needs no GPU: it reads
// JSON, decides a verdict per metric, writes the requested renderings, then picks the exit
// code (0 pass, 1 regression or newly failing, 5 not trustworthy; 2 and 3 come from errors).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "help_format.hpp"
#include "option_checks.hpp"
#include "graphprof/core/utf8_text.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/compare/comparison.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/report/compare_report.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::cli {

namespace {

struct CompareOptions {
  std::string baseline, candidate;
  double threshold_pct = 3.0;
  double noise_multiple = 3.0;
  double noise_floor_pct = 1.0;
  std::vector<std::string> metric_thresholds;
  std::vector<std::string> abs_floors;
  std::vector<std::string> gates;
  std::vector<std::string> ignore_params;
  bool allow_env_mismatch = false;
  bool allow_missing = false;
  bool strict = false;
  bool fail_on_drift = false;
  std::string markdown_path, junit_path, json_path;
  std::size_t max_markdown_bytes = kDefaultMarkdownBytes;
  bool no_color = false;
  bool show_all = false;
  bool verbose = false;
  bool quiet = false;
};

// "PATTERN=NUMBER" for --metric-threshold and --abs-floor.
PatternValue parse_pattern_value(const std::string& option, const std::string& text, double min, double max) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw usage_error(option + " " + text + ": expected PATTERN=NUMBER, e.g. gpu_time_per_iter=3");
  const std::string pattern = text.substr(0, eq);
  const std::string number = text.substr(eq + 1);
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end == number.c_str() || *end != '\0' || !(v >= min && v <= max))
    throw usage_error(option + " " + text + ": '" + number + "' is not a number in [" + strf("%g", min) + ", " +
                      strf("%g", max) + "]");
  return {pattern, v};
}

// A side is one report, or a folder of reports (every *.json in it, in name order) that are
// pooled: separate `graphprof run` processes give repetitions that see the between-run noise.
Report read_side(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return read_report(path);
  const std::vector<std::string> files = report_files(path);
  return merge_reports(read_distinct_reports(files), files);
}

std::string command_line(const CompareOptions& o, const CLI::App& sub) {
  // Rebuilt from what was parsed, so the "reproduce" line in the outputs is stable.
  std::string s = "graphprof compare " + o.baseline + " " + o.candidate;
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->count() == 0 || opt->get_name() == "--help" || opt->get_positional()) continue;
    const std::string name = opt->get_name();
    if (opt->get_expected_min() == 0) {
      s += " " + name;
      continue;
    }
    for (const auto& r : opt->results()) s += " " + name + " " + r;
  }
  return s;
}

int compare_command(const CompareOptions& o, const CLI::App& sub) {
  if (!(o.noise_floor_pct < o.threshold_pct))
    throw usage_error("--noise-floor " + strf("%g", o.noise_floor_pct) + ": must be below --threshold " +
                      strf("%g", o.threshold_pct));
  Thresholds t;
  t.threshold = o.threshold_pct / 100.0;
  t.noise_multiple = o.noise_multiple;
  t.noise_floor = o.noise_floor_pct / 100.0;
  for (const auto& m : o.metric_thresholds) {
    PatternValue pv = parse_pattern_value("--metric-threshold", m, 0.01, 1000.0);
    pv.value /= 100.0;
    t.metric_thresholds.push_back(pv);
  }
  for (const auto& a : o.abs_floors) t.abs_floors.push_back(parse_pattern_value("--abs-floor", a, 0.0, 1e18));
  t.gate_patterns = o.gates;
  t.ignore_params = o.ignore_params;
  t.allow_env_mismatch = o.allow_env_mismatch;
  t.allow_missing = o.allow_missing;
  t.strict = o.strict;
  t.fail_on_drift = o.fail_on_drift;

  // Output paths are checked before anything is read or written (exit 2, naming the option).
  one_output_on_stdout({{"--json", o.json_path}, {"--markdown", o.markdown_path}, {"--junit", o.junit_path}});
  if (!o.json_path.empty() && o.json_path != "-") check_output_path("--json", o.json_path);
  if (!o.markdown_path.empty()) check_output_path("--markdown", o.markdown_path);
  if (!o.junit_path.empty()) check_output_path("--junit", o.junit_path);
  {
    // A side that is a folder is read as its reports: none of them may be written over either.
    NamedPaths read;
    for (const auto& [role, side] : {std::pair<std::string, std::string>{"the baseline", o.baseline}, {"the candidate", o.candidate}}) {
      std::error_code ec;
      if (!std::filesystem::is_directory(side, ec)) {
        read.emplace_back(role, side);
        continue;
      }
      try {
        for (auto& f : report_files(side)) read.emplace_back(role + "'s report", std::move(f));
      } catch (const Error&) {
        // An unreadable or empty folder is reported, with its own message, where the side is read.
      }
    }
    outputs_apart(read, {{"--json", o.json_path}, {"--markdown", o.markdown_path}, {"--junit", o.junit_path}});
  }

  // One file on both sides compares a run with itself: no change can show, and no noise either.
  std::error_code same_ec;
  if (o.baseline == o.candidate || std::filesystem::equivalent(o.baseline, o.candidate, same_ec))
    throw usage_error("compare " + o.baseline + " " + o.candidate + ": the baseline and the candidate are the same " +
                      (std::filesystem::is_directory(o.baseline, same_ec) ? "folder" : "file") +
                      "; compare needs the runs of two builds (or, for an A/A check, two sets of runs of one build)");
  // Both sides are read before anything is written: a bad candidate must not leave a stale
  // Markdown from a previous run looking like today's result.
  const Report base = read_side(o.baseline);
  const Report cand = read_side(o.candidate);
  if (!same_kind(base, cand))
    throw input_error(o.candidate + " is " + report_kind(cand) + ", the baseline " + o.baseline + " is " + report_kind(base) +
                      "; compare reports of one kind (runs with runs, profiles of one program with each other)");
  if (std::filesystem::is_regular_file(o.baseline, same_ec) && std::filesystem::is_regular_file(o.candidate, same_ec) &&
      read_file(o.baseline) == read_file(o.candidate))
    throw input_error(o.candidate + ": the same bytes as the baseline " + o.baseline +
                      ": a copy of one run compared with itself shows nothing; compare runs of two builds");
  // A pattern that matches nothing is a typo: the gate would silently run without it.
  const std::vector<std::string> unmatched = unmatched_options(base, cand, t);
  if (!unmatched.empty()) throw usage_error(join(unmatched, "; "));
  Comparison c = compare(base, cand, t, InputNames{o.baseline, o.candidate});
  c.command = command_line(o, sub);
  const ExitCode exit = compare_exit_code(c.outcome);

  // Every requested output is written before the exit code is returned, so a failing gate
  // still leaves its explanation behind.
  // `--json -` writes to stdout (as `analyze --json -` does); the console table then goes to stderr,
  // as it does when --markdown or --junit writes to stdout.
  const bool json_stdout = o.json_path == "-";
  if (json_stdout) std::cout << render_compare_json(c, exit) << std::flush;
  else if (!o.json_path.empty()) write_file_atomic(o.json_path, render_compare_json(c, exit));
  const bool output_on_stdout = json_stdout || writes_to_stdout(o.json_path) || writes_to_stdout(o.markdown_path) ||
                                writes_to_stdout(o.junit_path);
  if (!o.markdown_path.empty()) write_file_atomic(o.markdown_path, valid_utf8(render_compare_markdown(c, exit, o.max_markdown_bytes)));
  if (!o.junit_path.empty()) write_file_atomic(o.junit_path, valid_utf8(render_compare_junit(c)));

  std::ostream& console = output_on_stdout ? std::cerr : std::cout;
  if (o.quiet) {
    console << one_line(headline(c, exit)) << "\n";
  } else {
    CompareConsoleOptions co;
    const char* no_color = std::getenv("NO_COLOR");  // https://no-color.org: set and non-empty
    const int fd = output_on_stdout ? STDERR_FILENO : STDOUT_FILENO;
    co.color = !o.no_color && ::isatty(fd) == 1 && !(no_color != nullptr && no_color[0] != '\0');
    co.show_all = o.show_all;
    co.verbose = o.verbose;
    print_compare_console(c, exit, console, co);
  }
  return static_cast<int>(exit);
}

}  // namespace

void setup_compare(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand(
      "compare",
      "Compare a candidate report with a baseline: exit 0 pass, 1 regression or newly failing mode, 5 comparison not "
      "trustworthy (no GPU needed)");
  auto o = std::make_shared<CompareOptions>();
  sub->add_option("baseline", o->baseline,
                  "baseline report (graphprof run --json), or a folder whose *.json reports are pooled")
      ->required();
  sub->add_option("candidate", o->candidate, "candidate report, or a folder of reports to pool")->required();
  sub->add_option("--threshold", o->threshold_pct,
                  "threshold floor in percent: smaller changes never fail; a series whose runs vary more gets "
                  "--noise-multiple times their between-run sd instead (each row shows its threshold)")
      ->check(finite_number())
      ->check(CLI::Range(0.01, 1000.0))
      ->capture_default_str();
  sub->add_option("--noise-multiple", o->noise_multiple,
                  "K: a row's threshold is max(--threshold, K x the between-run sd of its runs, both sides pooled); "
                  "0: every row at --threshold")
      ->check(finite_number())
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  sub->add_option("--noise-floor", o->noise_floor_pct,
                  "percent the gate interval (the 1 % suite-wide false-alarm rate split over the gating series, "
                  "docs/compare.md) must clear before a change counts as real; below --threshold")
      ->check(finite_number())
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  sub->add_option("--metric-threshold", o->metric_thresholds,
                  "PATTERN=PCT: fixed threshold for metrics matching the glob (metric key, or workload/mode/metric; "
                  "no noise term); repeatable, last match wins");
  sub->add_option("--abs-floor", o->abs_floors,
                  "PATTERN=VALUE: absolute floor in the metric's unit (ns); repeatable, last match wins");
  sub->add_option("--gate", o->gates,
                  "also gate on metrics matching these patterns (metric key, or workload/mode/metric), e.g. "
                  "launch_cpu_per_call; device-class metrics always gate (repeatable or comma-separated)")
      ->delimiter(',');
  sub->add_option("--ignore-param", o->ignore_params,
                  "parameter name left out when matching results (repeatable), e.g. to compare a deliberate change")
      ->delimiter(',');
  sub->add_flag("--allow-env-mismatch", o->allow_env_mismatch,
                "compare even when the GPU model, compute capability or SM count differ");
  sub->add_flag("--allow-missing", o->allow_missing, "benchmarks or metrics missing from the candidate do not give exit 5");
  sub->add_flag("--strict", o->strict, "an inconclusive 'likely regression' fails too");
  sub->add_flag("--fail-on-drift", o->fail_on_drift, "a changed graph structure or output checksum fails too");
  sub->add_option("--markdown", o->markdown_path, "write a Markdown summary (PR comment, job summary) to FILE");
  sub->add_option("--junit", o->junit_path, "write JUnit XML to FILE");
  sub->add_option("--json", o->json_path, "write the full comparison as JSON to FILE ('-': stdout)");
  sub->add_option("--max-markdown-bytes", o->max_markdown_bytes, "size cap of the Markdown output")
      ->check(CLI::Range(static_cast<std::size_t>(2048), static_cast<std::size_t>(100000000)))
      ->capture_default_str();
  sub->add_flag("--no-color", o->no_color, "no ANSI colours (also off when stdout is not a terminal or NO_COLOR is set)");
  sub->add_flag("--all", o->show_all, "also list metrics that are the same");
  sub->add_flag("--verbose,-v", o->verbose, "print each listed row's full reason and notes under it");
  sub->add_flag("--quiet,-q", o->quiet, "print only the result line");
  help_footer(sub,
              "Exit codes: 0 pass, 1 regression or newly failing mode, 2 usage, 3 unreadable report, 5 comparison "
              "not trustworthy (different GPUs or settings, too few samples).",
              {"graphprof compare baseline.json candidate.json",
               "graphprof compare baselines/ candidate.json --markdown summary.md --junit junit.xml"});
  sub->callback([o, sub, &exit_code] { exit_code = compare_command(*o, *sub); });
}

}  // namespace gp::cli
