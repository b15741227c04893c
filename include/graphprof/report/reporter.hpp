// Reporters turn a finished Report into text. Measurement produces the Report; the CLI picks the
// reporters its options ask for and hands each the same Report (data flows to reporters, never
// back). They read plain data only, never a CUDA type. Every rendering of a run or sweep
// implements Reporter: the console tables, Markdown, CSV, HTML and the JSON report file.
#pragma once
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "graphprof/report/html_report.hpp"
#include "graphprof/core/report.hpp"

namespace gp {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // Writes this rendering of the whole report to `out`.
  virtual void write(const Report& report, std::ostream& out) const = 0;
  // The same rendering as a string.
  std::string text(const Report& report) const;
};

// Renders `report` with `reporter` and writes it to `path` atomically (write_file_atomic: gp::Error
// naming the path when it cannot).
void write_report_file(const Reporter& reporter, const Report& report, const std::string& path);

// `graphprof run` on the terminal. By default the answer: the GPU, the suite summary (one row per
// workload; one workload: its modes), failed modes' reasons, one line on the trace pass and the
// answer line (run_answer). Verbose (--verbose): first per (workload, mode) a table of every metric,
// the trace passes' text (trace_summary_text.hpp) and one summary table per workload, then the same end.
class RunConsoleReporter final : public Reporter {
 public:
  explicit RunConsoleReporter(bool verbose = false) : verbose_(verbose) {}
  void write(const Report& report, std::ostream& out) const override;

 private:
  bool verbose_;
};

// `graphprof sweep` on the terminal. By default one row per grid point (each mode's GPU time, the
// best speedup and its break-even) and the answer line; verbose: one row per point and mode with
// per-node costs, then the answer line.
class SweepConsoleReporter final : public Reporter {
 public:
  explicit SweepConsoleReporter(bool verbose = false) : verbose_(verbose) {}
  void write(const Report& report, std::ostream& out) const override;

 private:
  bool verbose_;
};

// Graphs "pay off" for a workload when its faster graph mode is at least this many times faster on
// the GPU than eager and pays its one-off cost back (a finite break-even).
inline constexpr double kPaysOffSpeedup = 1.10;

// The one-line answer ("answer: graphs pay off ... in 7 of 9 workloads; host never breaks even; ...;
// fork-join gains most, 13.95x"), one sentence for a single workload; empty when nothing ran.
// Failed modes and outputs that differ from eager's are named in it (src/report/run_answer.cpp).
std::string run_answer(const Report& report);
// The same over a sweep's grid points, each named by the parameters in `keys` (the ones that vary).
std::string sweep_answer(const Report& report, const std::vector<std::string>& keys);
// Each (workload, parameters) once, in report order, with its label: the workload, plus the
// parameters that tell its parameter sets apart; with `keys`, those parameters alone.
std::vector<std::pair<std::string, const ModeResult*>> result_groups(const Report& report,
                                                                      const std::vector<std::string>& keys);

// Markdown summary of a run (one table per workload and parameter set).
class MarkdownReporter final : public Reporter {
 public:
  void write(const Report& report, std::ostream& out) const override;
};

// CSV of a run or sweep: a header, then one row per (workload, parameters, mode, metric) with
// median, p10, p90, CI low/high, CI level, n; one column per parameter name; derived figures
// as rows of kind "derived"; a failed mode as one row of kind "status". Lines end in CRLF (RFC 4180).
class CsvReporter final : public Reporter {
 public:
  void write(const Report& report, std::ostream& out) const override;
};

// The self-contained HTML page (render_html_report in html_report.hpp).
class HtmlReporter final : public Reporter {
 public:
  explicit HtmlReporter(HtmlReportOptions options = {}) : options_(std::move(options)) {}
  void write(const Report& report, std::ostream& out) const override;

 private:
  HtmlReportOptions options_;
};

// The versioned JSON report (docs/report-schema.md) that compare, merge and report read back:
// report_json_text() of report.hpp.
class JsonReporter final : public Reporter {
 public:
  void write(const Report& report, std::ostream& out) const override;
};

// Table cells for the figures against eager, "-" wherever there is no eager baseline (no eager
// mode ran, or it failed): speedup "1.23x" ("1.00x" for eager itself); break-even replays "42"
// ("never" when the graph is not faster; "-" for eager). Used by the console and Markdown tables.
std::string speedup_cell(const ModeResult& r);
std::string break_even_cell(const ModeResult& r);

// The 95 % CI of a median as percentages of the median, as lopsided as it is: "±0.9%" when both
// sides print alike, "+3.2/−1.1%" when not; a side below 0.01 % prints "<0.01"; "-" without an
// interval (n < 2, no positive median). Console, Markdown and HTML use it.
std::string ci_percent_cell(const Summary& s);

// One line for progress output while a suite runs.
std::string progress_line(const ModeResult& r);

}  // namespace gp
