// The console summary of `graphprof profile`, read from the profile report alone (the report
// profile_report() builds, or one read back from a file). src/report/profile_text.cpp.
#pragma once
#include <string>

#include "graphprof/core/report.hpp"

namespace gp {

std::string format_profile_summary(const Report& report);

}  // namespace gp
