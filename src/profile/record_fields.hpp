// Reading one field of a record line (profile_records.cpp, site_records.cpp): a missing or null
// field gives the fallback; an integer that does not fit T, or a value of another type, throws
// (std::out_of_range or nlohmann::json::exception) and the line is counted as unreadable.
#pragma once
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace gp::records {

using nlohmann::json;

template <typename T>
T field(const json& j, const char* key, T fallback = T{}) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Integers only, and only those T holds: a negative count, 1e300 or 2^70 makes the line
    // unreadable (counted), never a wrapped or undefined value.
    bool fits = false;
    if (it->is_number_unsigned()) {
      fits = it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    } else if (it->is_number_integer()) {  // negative here
      const std::int64_t v = it->get<std::int64_t>();
      if constexpr (std::is_signed_v<T>) fits = v >= static_cast<std::int64_t>(std::numeric_limits<T>::min());
    }
    if (!fits) throw std::out_of_range(std::string(key) + ": not an integer this field can hold");
  }
  return it->get<T>();
}

}  // namespace gp::records
