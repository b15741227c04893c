// Console text of call sites, eager work by site, ledgers and re-captures for the `profile`
// summary (profile_text.cpp). Internal to src/report.
#pragma once
#include <optional>
#include <sstream>
#include <string>

#include "graphprof/core/profile_section.hpp"

namespace gp {

// A site object's `where`, on one line and clipped; "-" for null.
std::string site_where(const std::optional<ProfileSite>& site, std::size_t max_columns);
// Where a graph was made: its capture site, else its instantiation site, else "-".
std::string graph_made_at(const ProfileGraph& graph);
void eager_sites_text(std::ostringstream& out, const ProfileProcess& process);
// With --step-range: "step = NVTX range 'decode' (200 ranges): ...", or that it never occurred.
void step_text(std::ostringstream& out, const ProfileProcess& process);
void ledgers_text(std::ostringstream& out, const ProfileProcess& process);
void instability_text(std::ostringstream& out, const ProfileProcess& process);
// What taking the call sites cost and how the Python stacks were read (--verbose); without it only
// when taking the GIL stopped.
void call_site_notes_text(std::ostringstream& out, const ProfileProcess& process, bool verbose);

}  // namespace gp
