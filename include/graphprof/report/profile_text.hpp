// The console summary of `graphprof profile`, read from the profile report alone (the report
// profile_report() builds, or one read back from a file). src/report/profile_text.cpp.
#pragma once
#include <string>

#include "graphprof/core/report.hpp"

namespace gp {

// Both open with "what to fix first" (profile_fix_first.hpp). Not verbose (what `profile` and
// `report PROFILE.json` print by default): coverage, graph launch cost, the graphs (10 rows),
// capture trouble, warnings, and one line for the work outside graphs. Verbose (`profile
// --verbose`, `report --verbose`, and this function's default): also when work starts after a launch call, the eager launch
// calls, 40 graph rows, the slowest nodes and the eager kernels, copies and synchronising calls.
// `report_path`: where the report is, for the commands it suggests (empty: a placeholder).
std::string format_profile_summary(const Report& report, bool verbose = true, const std::string& report_path = {});

}  // namespace gp
