// Console text of the runs behind a `profile` summary (profile_text.cpp): the runs of --repeat and
// the overhead that --overhead and --overhead-windows measured. Internal to src/report.
#pragma once
#include <sstream>

#include "graphprof/core/profile_section.hpp"

namespace gp {

// --repeat: one line per run (exit, wall, coverage, launches); nothing for one run.
void repeat_text(std::ostringstream& out, const ProfileSection& p);
// --overhead N: the change of what the application's loop experiences, with its interval.
void overhead_text(std::ostringstream& out, const ProfileSection& p);
// --overhead-windows N: the program's time per graph launch in recording windows against the
// paused windows beside them, inside each process.
void overhead_windows_text(std::ostringstream& out, const ProfileSection& p);

}  // namespace gp
