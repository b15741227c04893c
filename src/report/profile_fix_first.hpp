// "What to fix first": the block that opens a profile's console summary and its page. Broken
// captures with their fix, then the eager call sites that run in every step, the largest per-step
// cost first (start-up rows, which capturing would not save anything, left out). Read from
// sections.profile alone, tolerantly (a report without call sites or steps has fewer rows).
// Internal to src/report (profile_text.cpp, html_profile.cpp).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "graphprof/core/profile_section.hpp"

namespace gp {

struct FixFirstItem {
  double process = 0;     // the process's number in the report
  bool capture = false;   // a broken capture (else an eager site that runs every step)
  std::string what;       // one line: what and where
  std::string fix;        // one line: the report's advice for it
  double per_step_ns = 0;  // eager sites: host time per step (what ranks them); NaN when not known
};

// The rows, in the order shown: every broken capture (at most kFixCaptures per process), then the
// kFixSites eager sites of the profile with the largest per-step cost.
constexpr std::size_t kFixCaptures = 5;
constexpr std::size_t kFixSites = 3;
std::vector<FixFirstItem> fix_first_items(const ProfileSection& profile);

// The console block (it ends with an empty line).
std::string fix_first_text(const ProfileSection& profile);

// The page's block: a <section id="fix-first">; `escape` is the page's HTML escaping.
std::string fix_first_html(const ProfileSection& profile, std::string (*escape)(const std::string&));

}  // namespace gp
