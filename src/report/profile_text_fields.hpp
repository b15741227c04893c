// Small pieces the profile's console and page texts share (profile_text.cpp,
// profile_overhead_text.cpp, html_profile.cpp): a share as a percentage, and a field the text
// needs from the typed profile section.
#pragma once
#include <cmath>
#include <optional>
#include <string>

#include "graphprof/core/json_assert.hpp"
#include "graphprof/core/profile_section.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::profile_text {

// A duration in ns as the texts print it.
inline std::string ns(double v) { return format_ns(v); }

// 0.123 -> "12.3 %"; not a number -> "-".
inline std::string pct(double f) { return std::isfinite(f) ? strf("%.1f %%", 100.0 * f) : "-"; }

// A field the text needs: missing, or of another kind, the report is malformed (gp::JsonMisuse,
// exit 3 naming the file), as a hand-edited report that lost it is.
template <class T>
const T& needed(const std::optional<T>& field) {
  if (!field) json_misuse();
  return *field;
}
inline double needed(const ProfileNumber& field) {
  if (!field.is_number()) json_misuse();
  return field.value();
}

}  // namespace gp::profile_text
