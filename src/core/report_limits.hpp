// Bounds on the figures of a report as it is read back (report.cpp, report_sections.cpp).
#pragma once

namespace gp::detail {

// The largest magnitude a figure may have (1e18 ns is 31 years; a count of 1e18 is beyond any
// run): larger ones are refused as out of range (exit 3 naming the field), so nothing downstream
// loops or allocates in proportion to a value like 1e300.
inline constexpr double kMaxReportMagnitude = 1e18;

}  // namespace gp::detail
