// graphprof report REPORT.json [--compare COMPARE.json] -o report.html: the self-contained HTML
// report of a run, sweep or profile (and of a comparison), without a GPU. --csv writes the metrics
// as CSV. A profile's report without -o/--csv prints its console summary again (brief; --verbose:
// the long form).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "option_checks.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/json_assert.hpp"
#include "graphprof/core/profile_fields.hpp"
#include "graphprof/report/html_report.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/report/profile_text.hpp"

namespace gp::cli {

namespace {

struct ReportCliOptions {
  std::string report;
  std::string output;
  std::string csv;
  std::string compare;
  std::string title;
  std::vector<std::string> dot_dirs;
  bool no_graphs = false;
  bool verbose = false;  // a profile's console summary: the long form
};

bool is_profile(const Report& r) {
  return profile_fields::app_result(r) != nullptr;
}

// The summary and the page read a report's sections as graphprof writes them: a field of another
// type (a hand-edited or hostile report) is a malformed input file (exit 3, naming it), not an
// internal error.
template <typename Fn>
auto malformed_is_input_error(const std::string& path, Fn&& fn) {
  try {
    return fn();
  } catch (const nlohmann::json::exception& e) {
    throw input_error(path + ": a section of the report is malformed (" + e.what() + ")");
  } catch (const JsonMisuse& e) {
    throw input_error(path + ": a section of the report is malformed (" + e.what() + ")");
  } catch (const Error& e) {
    // A reader that checks a field's shape names the field; here the file is named too.
    if (e.code() != ExitCode::kBadInput) throw;
    throw input_error(path + ": " + e.what());
  }
}

int report_command(const ReportCliOptions& o) {
  if (o.output.empty() && o.csv.empty()) {
    // A profile's console summary, again, from its report alone (no GPU, no records needed).
    const Report report = read_report(o.report);
    if (!is_profile(report))
      throw usage_error("report: nothing to write; give -o FILE.html and/or --csv FILE (without them, a profile's report "
                        "prints its console summary; " + o.report + " is not one)");
    std::cout << malformed_is_input_error(o.report, [&] { return format_profile_summary(report, o.verbose, o.report); });
    return 0;
  }
  // Every output path is checked first: a bad --csv must not leave a new HTML file behind an exit 2.
  one_output_on_stdout({{"-o", o.output}, {"--csv", o.csv}});
  if (!o.output.empty()) {
    // report writes HTML: a picture's name would get a page inside it.
    const std::string ext = std::filesystem::path(o.output).extension().string();
    if (!ext.empty() && ext != ".html" && ext != ".htm" && std::filesystem::path(o.output).parent_path() != "/dev")
      throw usage_error("-o " + o.output + ": report writes an HTML page; name it .html (a picture of a graph: "
                        "graphprof render DOT -o " + o.output + ")");
    check_output_path("-o", o.output);
  }
  if (!o.csv.empty()) check_output_path("--csv", o.csv);
  outputs_apart({{"the report", o.report}, {"--compare", o.compare}}, {{"-o", o.output}, {"--csv", o.csv}});
  // A folder that is not there is a typo, not a place without dumps (the graphs would just be missing).
  for (const auto& d : o.dot_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(d, ec))
      throw input_error("--dot-dir " + d + ": " + (std::filesystem::exists(d, ec) ? "not a folder" : "no such folder"));
  }
  const Report report = read_report(o.report);
  HtmlReportOptions html;
  html.title = o.title;
  html.source = o.report;
  html.dot_dirs = o.dot_dirs;
  html.graphs = !o.no_graphs;
  if (!o.compare.empty()) {
    html.comparison = read_json_file(o.compare);
    html.comparison_source = o.compare;
    if (!html.comparison->is_object() || html.comparison->value("schema", "") != "graphprof-compare")
      throw input_error(o.compare + ": not a comparison written by `graphprof compare --json` (schema is not "
                        "\"graphprof-compare\")");
  }
  // With an output on stdout ("-"), the messages go to stderr and keep it clean for a pipe.
  std::ostream& says = writes_to_stdout(o.output) || writes_to_stdout(o.csv) ? std::cerr : std::cout;
  if (!o.output.empty()) {
    malformed_is_input_error(o.report, [&] { write_report_file(HtmlReporter(html), report, o.output); });
    says << "HTML report written to " << o.output << "\n";
  }
  if (!o.csv.empty()) {
    write_report_file(CsvReporter(), report, o.csv);
    says << "CSV written to " << o.csv << "\n";
  }
  return 0;
}

}  // namespace

void setup_report(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ReportCliOptions>();
  auto* sub = app.add_subcommand("report", "Write a self-contained HTML report (charts, graphs, verdicts) of a run, sweep or profile; "
                                 "a profile's report alone prints its console summary");
  sub->add_option("report", o->report, "JSON report of `graphprof run`, `sweep` or `profile`")->required();
  sub->add_option("-o,--output", o->output, "HTML file to write");
  sub->add_option("--compare", o->compare, "also show a comparison: the JSON of `graphprof compare --json`");
  sub->add_option("--csv", o->csv, "also write every metric as CSV (one row per workload/params/mode/metric)");
  sub->add_option("--dot-dir", o->dot_dirs, "folder to look in for the graphs' DOT dumps when the report's paths "
                                            "are not here (repeatable)");
  sub->add_option("--title", o->title, "page title (default: the workloads)");
  sub->add_flag("--no-graphs", o->no_graphs, "leave out the graphs' pictures");
  sub->add_flag("-v,--verbose", o->verbose,
                "without -o/--csv: a profile's whole console summary (slowest nodes, eager work, ledgers), as "
                "`profile --verbose` prints it");
  help_footer(sub,
              "Works without a GPU. Exit codes: 0 ok, 2 usage, 3 unreadable or malformed report/comparison, or a "
              "--dot-dir that is not a folder.",
              {"graphprof report out/report.json -o report.html",
               "graphprof report candidate.json --compare comparison.json -o report.html",
               "graphprof report graphprof-profile/report.json"});
  sub->callback([o, &exit_code] { exit_code = report_command(*o); });
}

}  // namespace gp::cli
