// The values src/profile puts into the typed profile section (core/profile_section.hpp): a number
// or null, lists marked as written, the statistics of a duration. Internal to src/profile.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "graphprof/core/profile_section.hpp"
#include "graphprof/trace/trace_analysis.hpp"

namespace gp::section_values {

// The value, or null when there is none.
template <class T> ProfileNumber opt(const std::optional<T>& v) { return v ? ProfileNumber(*v) : ProfileNumber::null(); }
inline ProfileNumber number_or_null(bool known, ProfileNumber v) { return known ? v : ProfileNumber::null(); }

// A list written even when empty.
template <class T> ProfileList<ProfileNumber> numbers(const std::vector<T>& v) {
  ProfileList<ProfileNumber> out(v.begin(), v.end());
  out.present = true;
  return out;
}
inline ProfileList<ProfileText> texts(const std::vector<std::string>& v) {
  ProfileList<ProfileText> out(v.begin(), v.end());
  out.present = true;
  return out;
}

// Null without samples.
inline ProfileOptional<ProfileStats> stats(const DurationStats& d) {
  if (d.count == 0) return ProfileOptional<ProfileStats>::null();
  ProfileStats s;
  s.count = d.count;
  s.median_ns = d.median;
  s.p10_ns = d.p10;
  s.p90_ns = d.p90;
  s.mean_ns = d.mean;
  s.total_ns = d.total;
  return s;
}
inline ProfileOptional<ProfileStats> stats(const std::optional<DurationStats>& d) {
  return d ? stats(*d) : ProfileOptional<ProfileStats>::null();
}

}  // namespace gp::section_values
