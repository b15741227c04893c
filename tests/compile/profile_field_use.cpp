// A reader's use of the typed profile section (graphprof/core/profile_section.hpp), compiled by
// tests/compile/expect_misspelt_field_fails.cmake twice: as it is (it must compile) and with
// GP_MISSPELT defined, where it names a field the section does not have (it must not).
#include "graphprof/core/profile_section.hpp"

double launches_of_first_graph(const gp::ProfileSection& s) {
#ifndef GP_MISSPELT
  return s.processes.at(0).graphs.at(0).launches;
#else
  return s.processes.at(0).graphs_launched_typo;
#endif
}
