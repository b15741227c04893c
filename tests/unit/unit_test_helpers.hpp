// Small lookups several unit-test files share. The unit tests are built as one unity build
// (tests/CMakeLists.txt), so a helper two files need lives here once, and names private to a
// test file are unique across tests/unit.
#pragma once
#include <string>

#include "graphprof/compare/comparison.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/profile/profile.hpp"

namespace gp::test {

// A DOT sample of tests/data/dot.
inline std::string dot_fixture(const std::string& name) { return std::string(GRAPHPROF_TEST_DATA) + "/dot/" + name; }

// A report of tests/data/reports.
inline std::string report_fixture(const std::string& name) { return std::string(GRAPHPROF_TEST_DATA) + "/reports/" + name; }

// The comparison of two reports of tests/data/reports, named as the command line names them.
inline Comparison compare_fixtures(const std::string& base, const std::string& cand, const Thresholds& t = {}) {
  return compare(read_report(report_fixture(base)), read_report(report_fixture(cand)), t, InputNames{base, cand});
}

// The eager call site of a process's profile at WHERE ("file:line in function"), or null.
inline const EagerSite* eager_site_at(const ProcessProfile& p, const std::string& where) {
  for (const auto& s : p.sites.eager_sites)
    if (s.site.where == where) return &s;
  return nullptr;
}

}  // namespace gp::test
