// The text of the record lines (record_lines.hpp): how their writers append numbers and strings,
// and how their readers take a field, a time or a count from a line, with the limits that make a
// line unreadable. Header-only, without graphprof's libraries or nlohmann/json.hpp (the readers
// are templates over the JSON type).
#pragma once
#include <array>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gp::records {

// ---- writing text ----

// Appends the decimal digits of `v` (no printf: the interposer writes a line per call).
inline void append_u64(std::string& s, std::uint64_t v) {
  char buf[24];
  char* p = buf + sizeof buf;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  s.append(p, static_cast<std::size_t>(buf + sizeof buf - p));
}

// Appends printf-formatted text.
inline void appendf(std::string& s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
inline void appendf(std::string& s, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    s.append(buf, static_cast<std::size_t>(n));
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  big.resize(static_cast<std::size_t>(n));
  s += big;
}

// Appends a JSON string literal (quotes, backslashes and control characters escaped); runs of
// plain characters are appended at once.
inline void append_json_string(std::string& s, const char* text) {
  s += '"';
  const char* p = text != nullptr ? text : "";
  for (;;) {
    const char* run = p;
    while (*p != '\0' && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
    s.append(run, static_cast<std::size_t>(p - run));
    if (*p == '\0') break;
    const unsigned char c = static_cast<unsigned char>(*p++);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else {
      appendf(s, "\\u%04x", c);
    }
  }
  s += '"';
}

// `[a,b,c]` of unsigned integers.
template <typename T>
void append_u64_list(std::string& s, const T* values, std::size_t n) {
  s += '[';
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) s += ',';
    append_u64(s, static_cast<std::uint64_t>(values[i]));
  }
  s += ']';
}

// ---- reading fields ----
// A missing or null field gives the fallback; an integer that does not fit T, or a value of another
// type, throws (std::out_of_range or the JSON library's exception) and the line is counted as
// unreadable. `J` is nlohmann::json.

template <typename T, typename J>
T field(const J& j, const char* key, T fallback = T{}) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Integers only, and only those T holds: a negative count, 1e300 or 2^70 makes the line
    // unreadable (counted), never a wrapped or undefined value.
    bool fits = false;
    if (it->is_number_unsigned()) {
      fits = it->template get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    } else if (it->is_number_integer()) {  // negative here
      const std::int64_t v = it->template get<std::int64_t>();
      if constexpr (std::is_signed_v<T>) fits = v >= static_cast<std::int64_t>(std::numeric_limits<T>::min());
    }
    if (!fits) throw std::out_of_range(std::string(key) + ": not an integer this field can hold");
  }
  return it->template get<T>();
}

// A kernel's grid or block, [x, y, z]: three integers an int holds (5e128 converted to int was
// undefined behaviour, found by fuzz_profile_records).
template <typename J>
std::array<int, 3> int_triple(const J& j, const char* key, std::array<int, 3> fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_array() || it->size() != 3) throw std::out_of_range(std::string(key) + ": not [x, y, z]");
  std::array<int, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    const J& v = (*it)[i];
    const bool fits = v.is_number_unsigned() ? v.template get<std::uint64_t>() <= std::uint64_t{INT32_MAX}
                      : v.is_number_integer() ? v.template get<std::int64_t>() >= INT32_MIN && v.template get<std::int64_t>() <= INT32_MAX
                                              : false;
    if (!fits) throw std::out_of_range(std::string(key) + ": not an integer an int holds");
    out[i] = static_cast<int>(v.template get<std::int64_t>());
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
template <typename J>
std::uint64_t timestamp(const J& j, const char* key, std::uint64_t begin_ns, bool optional = false) {
  const auto ts = field<std::uint64_t>(j, key);
  if (ts == 0 && optional) return 0;
  const std::uint64_t distance = ts > begin_ns ? ts - begin_ns : begin_ns - ts;
  if (ts == 0 || ts >= kMaxTimestampNs || (begin_ns != 0 && distance > kMaxRecordDistanceNs))
    throw std::out_of_range(std::string(key) + ": a time outside the range of the process's records");
  return ts;
}

// A count that every reader of a report holds (reports keep counts as int): 0 .. 2^31 - 1.
template <typename J>
std::size_t count_field(const J& j, const char* key) {
  const auto v = field<std::int32_t>(j, key);
  if (v < 0) throw std::out_of_range(std::string(key) + ": a negative count");
  return static_cast<std::size_t>(v);
}

// A record that ends before it starts has no duration to give: an unreadable line (counted, and
// said once as a warning), not a 0 that would turn coverage and times into 0 %.
struct EndsBeforeStart : std::out_of_range {
  EndsBeforeStart() : std::out_of_range("e: before s") {}
};

inline void check_order(std::uint64_t start, std::uint64_t end) {
  if (end < start) throw EndsBeforeStart();
}

}  // namespace gp::records

