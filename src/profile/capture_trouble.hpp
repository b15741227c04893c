// Capture trouble (CaptureTrouble in profile.hpp; docs/profile.md): what went wrong inside the
// stream captures of one profiled process. Internal to the profile layer (profile_analysis.cpp).
#pragma once
#include <cstdint>
#include <set>
#include <vector>

#include "graphprof/profile/profile.hpp"

namespace gp::profile_detail {

// Capture regions per host thread (BeginCapture to EndCapture) and what went wrong inside them.
// Also marks the API calls made inside a capture: their launches are recorded, not executed.
std::vector<CaptureTrouble> find_capture_trouble(const ProcessRecords& p, std::set<std::uint32_t>& captured_calls);

}  // namespace gp::profile_detail
