// Reporters turn a Report into text. They read plain data only, never a CUDA type.
#pragma once
#include <ostream>
#include <string>

#include "graphprof/report.hpp"

namespace gp {

// Human-friendly duration: "812 ns", "4.31 us", "1.20 ms", "2.5 s".
std::string format_ns(double ns);

// Table cells for the figures against eager, "-" wherever there is no eager baseline (no eager
// mode ran, or it failed): speedup "1.23x" ("1.00x" for eager itself); break-even replays "42"
// ("never" when the graph is not faster; "-" for eager). Used by the console and Markdown tables.
std::string speedup_cell(const ModeResult& r);
std::string break_even_cell(const ModeResult& r);

// The 95 % CI of a median as percentages of the median, as lopsided as it is: "±0.9%" when both
// sides print alike, "+3.2/−1.1%" when not; a side below 0.01 % prints "<0.01"; "-" without an
// interval (n < 2, no positive median). Console, Markdown and HTML use it.
std::string ci_percent_cell(const Summary& s);

// `graphprof run` console output: per (workload, mode) a table of every metric, then one
// summary table per workload comparing the modes.
void print_run_console(const Report& report, std::ostream& out);

// Markdown summary of a run (one table per workload and parameter set).
void print_run_markdown(const Report& report, std::ostream& out);

// `graphprof sweep` console output: per mode, one row per grid point with per-node costs.
void print_sweep_console(const Report& report, std::ostream& out);

// CSV of a run or sweep: a header, then one row per (workload, parameters, mode, metric) with
// median, p10, p90, CI low/high, CI level, n; one column per parameter name; derived figures
// as rows of kind "derived"; a failed mode as one row of kind "status". Lines end in CRLF (RFC 4180).
std::string render_run_csv(const Report& report);

// One line for progress output while a suite runs.
std::string progress_line(const ModeResult& r);

}  // namespace gp
