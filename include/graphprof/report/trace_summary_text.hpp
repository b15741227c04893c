// Console text of the trace passes: the perturbation table (traced vs untraced GPU time per
// iteration, with confidence intervals), then per mode its slowest nodes and the launch-call
// cross-check. Reads only Report::sections["trace"]; host-only. RunConsoleReporter (reporter.hpp)
// prints it after the run's tables; src/report/trace_summary_text.cpp.
#pragma once
#include <string>

#include "graphprof/core/report.hpp"

namespace gp {

// Empty when no result carries a trace section.
std::string format_trace_summary(const Report& report);

}  // namespace gp
