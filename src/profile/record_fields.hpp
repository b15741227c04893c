// Reading one field of a record line (profile_records.cpp, site_records.cpp): a missing or null
// field gives the fallback; an integer that does not fit T, or a value of another type, throws
// (std::out_of_range or nlohmann::json::exception) and the line is counted as unreadable.
#pragma once
#include <array>
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

// A kernel's grid or block, [x, y, z]: three integers an int holds (5e128 converted to int was
// undefined behaviour, found by fuzz_profile_records).
inline std::array<int, 3> int_triple(const json& j, const char* key, std::array<int, 3> fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_array() || it->size() != 3) throw std::out_of_range(std::string(key) + ": not [x, y, z]");
  std::array<int, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    const json& v = (*it)[i];
    const bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= std::uint64_t{INT32_MAX}
                      : v.is_number_integer() ? v.get<std::int64_t>() >= INT32_MIN && v.get<std::int64_t>() <= INT32_MAX
                                              : false;
    if (!fits) throw std::out_of_range(std::string(key) + ": not an integer an int holds");
    out[i] = static_cast<int>(v.get<std::int64_t>());
  }
  return out;
}

// The most one record line may hold. The injection library writes lines of at most a few hundred
// kB (batches of 32,768 correlation ids; a command line is at most the kernel's 2 MB); a longer
// line is unreadable, skipped without being parsed.
inline constexpr std::size_t kMaxRecordLineBytes = std::size_t{16} << 20;
// The most frames of a call site's stack, native or Python: the library takes at most 48 of each.
inline constexpr std::size_t kMaxSiteFrames = 256;

// Times of records are CLOCK_REALTIME nanoseconds (CUPTI's clock and the injection library's; about
// 1.8e18 today). A time of 0, one past 2^62, or one more than kMaxRecordDistanceNs (about 3 years)
// from the process's start (`begin_ns`, once its process line gave it) makes the line unreadable:
// kept, it became a duration of 1e18 ns or more, a figure graphprof's own report reader refuses.
inline constexpr std::uint64_t kMaxTimestampNs = std::uint64_t{1} << 62;
inline constexpr std::uint64_t kMaxRecordDistanceNs = 100'000'000'000'000'000ull;

// `optional`: a missing or 0 time means "not recorded" and reads as 0.
inline std::uint64_t timestamp(const json& j, const char* key, std::uint64_t begin_ns, bool optional = false) {
  const auto ts = field<std::uint64_t>(j, key);
  if (ts == 0 && optional) return 0;
  const std::uint64_t distance = ts > begin_ns ? ts - begin_ns : begin_ns - ts;
  if (ts == 0 || ts >= kMaxTimestampNs || (begin_ns != 0 && distance > kMaxRecordDistanceNs))
    throw std::out_of_range(std::string(key) + ": a time outside the range of the process's records");
  return ts;
}

// A count that every reader of a report holds (reports keep counts as int): 0 .. 2^31 - 1.
inline std::size_t count_field(const json& j, const char* key) {
  const auto v = field<std::int32_t>(j, key);
  if (v < 0) throw std::out_of_range(std::string(key) + ": a negative count");
  return static_cast<std::size_t>(v);
}

}  // namespace gp::records
