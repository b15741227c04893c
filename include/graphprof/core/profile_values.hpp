// The values of sections.profile as its structs hold them (profile_section.hpp says how the section
// is read and written back): a number, a string, a list, a flag or a piece of JSON, each of which
// knows whether the report held it. Host-only.
#pragma once
#include <cstdint>
#include <ostream>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp {

// A number as the report holds it: absent, null (NaN), an integer or a real. Reads as a double
// (NaN when absent or null); `count()` gives an integer exactly.
class ProfileNumber {
 public:
  enum class Form { kAbsent, kNull, kSigned, kUnsigned, kReal };
  ProfileNumber() = default;
  ProfileNumber(double v) : form_(v != v ? Form::kNull : Form::kReal), real_(v) {}  // NaN is null
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  ProfileNumber(I v) {
    if constexpr (std::is_signed_v<I>) {
      form_ = v < 0 ? Form::kSigned : Form::kUnsigned;
      signed_ = static_cast<std::int64_t>(v);
      unsigned_ = static_cast<std::uint64_t>(v);
    } else {
      form_ = Form::kUnsigned;
      unsigned_ = static_cast<std::uint64_t>(v);
      signed_ = static_cast<std::int64_t>(v);
    }
  }
  static ProfileNumber null() {
    ProfileNumber n;
    n.form_ = Form::kNull;
    return n;
  }

  Form form() const { return form_; }
  bool present() const { return form_ != Form::kAbsent; }
  bool is_number() const { return form_ == Form::kSigned || form_ == Form::kUnsigned || form_ == Form::kReal; }
  bool is_integer() const { return form_ == Form::kSigned || form_ == Form::kUnsigned; }
  double value() const {
    switch (form_) {
      case Form::kSigned: return static_cast<double>(signed_);
      case Form::kUnsigned: return static_cast<double>(unsigned_);
      case Form::kReal: return real_;
      default: return std::numeric_limits<double>::quiet_NaN();
    }
  }
  double value_or(double fallback) const { return is_number() ? value() : fallback; }
  operator double() const { return value(); }
  // The value as a count: exact for integers, truncated for reals, 0 when absent, null or negative.
  std::uint64_t count() const {
    if (form_ == Form::kUnsigned) return unsigned_;
    if (form_ == Form::kSigned) return signed_ < 0 ? 0 : static_cast<std::uint64_t>(signed_);
    if (form_ == Form::kReal && real_ > 0) return static_cast<std::uint64_t>(real_);
    return 0;
  }
  std::int64_t signed_value() const { return form_ == Form::kSigned ? signed_ : static_cast<std::int64_t>(count()); }

 private:
  Form form_ = Form::kAbsent;
  std::int64_t signed_ = 0;
  std::uint64_t unsigned_ = 0;
  double real_ = 0;
};

// Written as the report holds it: 12, 1.5, null (absent too).
std::ostream& operator<<(std::ostream& out, const ProfileNumber& n);

// A string as the report holds it: present, null or absent; reads as "" when null or absent.
class ProfileText {
 public:
  ProfileText() = default;
  ProfileText(std::string s) : value_(std::move(s)), present_(true) {}
  ProfileText(const char* s) : value_(s), present_(true) {}
  static ProfileText null() {
    ProfileText t;
    t.null_ = true;
    return t;
  }
  // The string, or null when `s` is empty (a writer's "not known").
  static ProfileText or_null(std::string s) { return s.empty() ? null() : ProfileText(std::move(s)); }
  bool present() const { return present_; }
  bool is_null() const { return null_; }
  const std::string& str() const { return value_; }
  operator const std::string&() const { return value_; }
  bool empty() const { return value_.empty(); }
  const char* c_str() const { return value_.c_str(); }
  friend bool operator==(const ProfileText& a, const std::string& b) { return a.value_ == b; }
  friend bool operator==(const ProfileText& a, const char* b) { return a.value_ == b; }
  friend bool operator!=(const ProfileText& a, const std::string& b) { return a.value_ != b; }
  friend bool operator!=(const ProfileText& a, const char* b) { return a.value_ != b; }
  friend std::string operator+(const std::string& a, const ProfileText& b) { return a + b.value_; }
  friend std::string operator+(const ProfileText& a, const std::string& b) { return a.value_ + b; }
  friend std::string operator+(const char* a, const ProfileText& b) { return a + b.value_; }
  friend std::string operator+(const ProfileText& a, const char* b) { return a.value_ + b; }
  friend std::ostream& operator<<(std::ostream& out, const ProfileText& t) { return out << t.value_; }

 private:
  std::string value_;
  bool present_ = false;
  bool null_ = false;
};

// A list; written when read (even empty) or when it holds elements.
template <class T>
struct ProfileList : std::vector<T> {
  using std::vector<T>::vector;
  bool present = false;
};

// An object (or a flag) that may be absent, null or held: a std::optional that also remembers a
// null, so that what a writer sets to null is written as null, not left out.
template <class T>
struct ProfileOptional : std::optional<T> {
  using std::optional<T>::optional;
  ProfileOptional() = default;
  ProfileOptional(const std::optional<T>& o) : std::optional<T>(o) {}
  ProfileOptional(std::optional<T>&& o) : std::optional<T>(std::move(o)) {}
  static ProfileOptional null() {
    ProfileOptional o;
    o.is_null = true;
    return o;
  }
  bool is_null = false;  // absent when false and empty
};

// A field kept as JSON: polymorphic ones (a count or a list) and documents with codecs of their
// own (step_kinds, framework_logs). Absent: std::nullopt.
using ProfileJson = std::optional<nlohmann::json>;
using ProfileFlag = ProfileOptional<bool>;

}  // namespace gp
