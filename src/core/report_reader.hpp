// The strict reader of the report JSON (report.cpp, run_settings.cpp): every accessor names the
// file and the JSON path that is wrong. Internal to core.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "graphprof/core/error.hpp"
#include "report_limits.hpp"

namespace gp::detail {

using nlohmann::json;

struct Reader {
  const std::string& source;
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw input_error(source + ": " + where + ": " + what);
  }
  const json& field(const json& obj, const std::string& where, const char* key) const {
    if (!obj.is_object()) fail(where, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("missing field '") + key + "'");
    return *it;
  }
  std::string str(const json& obj, const std::string& where, const char* key) const {
    const json& v = field(obj, where, key);
    if (!v.is_string()) fail(where + "." + key, "expected a string");
    return v.get<std::string>();
  }
  std::string str_or(const json& obj, const char* key, const std::string& dflt) const {
    auto it = obj.find(key);
    return (it != obj.end() && it->is_string()) ? it->get<std::string>() : dflt;
  }
  double num(const json& v, const std::string& where) const {
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) fail(where, "expected a number");
    const double d = v.get<double>();
    // Finite but absurd (1e300 s): refused at read time, so no chart or table works in
    // proportion to a figure.
    if (!(std::fabs(d) <= detail::kMaxReportMagnitude))
      fail(where, "value " + v.dump() + " is out of range (figures in a report are at most 1e18 in magnitude)");
    return d;
  }
  // An integer field: absent or not a number -> dflt; a number that is not a whole number within
  // [lo, hi] is an error (converting 1e30 to int is undefined behaviour, not a value).
  long long integer_or(const json& obj, const std::string& where, const char* key, long long dflt,
                       long long lo = 0, long long hi = std::numeric_limits<int>::max()) const {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_number()) return dflt;
    const std::string at = where + "." + key;
    if (it->is_number_unsigned()) {
      const auto v = it->get<unsigned long long>();
      if (v > static_cast<unsigned long long>(hi)) fail(at, "value " + it->dump() + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      return static_cast<long long>(v);
    }
    if (it->is_number_integer()) {
      const auto v = it->get<long long>();
      if (v < lo || v > hi) fail(at, "value " + it->dump() + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      return v;
    }
    const double d = it->get<double>();
    // (double)LLONG_MAX rounds up to 2^63, which no long long holds: compare strictly there.
    const bool below_hi = hi >= (1LL << 53) ? d < static_cast<double>(hi) : d <= static_cast<double>(hi);
    if (!(d >= static_cast<double>(lo) && below_hi) || d != std::floor(d))
      fail(at, "expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + it->dump());
    return static_cast<long long>(d);
  }
};

}  // namespace gp::detail
