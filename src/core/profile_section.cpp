// The codec of sections.profile (profile_section.hpp): one reader and one writer for every struct,
// driven by the struct's `fields` list, so that what was read is written back unchanged.
#include "graphprof/core/profile_section.hpp"

#include <algorithm>
#include <cstring>
#include <ostream>

#include "graphprof/core/json_text.hpp"

namespace gp {

using nlohmann::json;

namespace {

template <class T> struct IsOptional : std::false_type {};
template <class T> struct IsOptional<ProfileOptional<T>> : std::true_type {};
template <class T> struct IsList : std::false_type {};
template <class T> struct IsList<ProfileList<T>> : std::true_type {};

// Each read returns false when the value does not fit the member's type; the caller then keeps
// the value in `extra`.
template <class T> bool read(const json& j, T& out);

bool read_value(const json& j, ProfileNumber& out) {
  if (j.is_null()) out = ProfileNumber::null();
  else if (j.is_number_unsigned()) out = ProfileNumber(j.get<std::uint64_t>());
  else if (j.is_number_integer()) out = ProfileNumber(j.get<std::int64_t>());
  else if (j.is_number_float()) out = ProfileNumber(j.get<double>());
  else return false;
  return true;
}

bool read_value(const json& j, ProfileText& out) {
  if (j.is_null()) {
    out = ProfileText::null();
    return true;
  }
  if (!j.is_string()) return false;
  out = ProfileText(j.get<std::string>());
  return true;
}

bool read_value(const json& j, ProfileFlag& out) {
  if (j.is_null()) {
    out = ProfileFlag::null();
    return true;
  }
  if (!j.is_boolean()) return false;
  out = j.get<bool>();
  return true;
}

bool read_value(const json& j, ProfileJson& out) {
  out = j;
  return true;
}

template <class S> bool read_struct(const json& j, S& s) {
  if (!j.is_object()) return false;
  s.extra = json::object();
  std::vector<const char*> keys;
  S::fields(s, [&](const char* key, auto& member) {
    keys.push_back(key);
    const auto it = j.find(key);
    if (it != j.end() && !read(*it, member)) s.extra[key] = *it;
  });
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return it.key() == k; })) s.extra[it.key()] = it.value();
  return true;
}

template <class T> bool read(const json& j, T& out) {
  if constexpr (IsList<T>::value) {
    // A list with elements of another type reads as the elements that fit (a reader sees what it
    // can), and stays in `extra` as it was (written back unchanged).
    if (!j.is_array()) return false;
    T list;
    bool fits = true;
    for (const auto& e : j) {
      typename T::value_type v;
      if (read(e, v)) list.push_back(std::move(v));
      else fits = false;
    }
    list.present = fits;
    out = std::move(list);
    return fits;
  } else if constexpr (std::is_same_v<T, ProfileJson> || std::is_same_v<T, ProfileFlag>) {
    return read_value(j, out);
  } else if constexpr (IsOptional<T>::value) {
    if (j.is_null()) {
      out = T::null();
      return true;
    }
    typename T::value_type v;
    if (!read_struct(j, v)) return false;
    out = std::move(v);
    return true;
  } else if constexpr (std::is_same_v<T, ProfileNumber> || std::is_same_v<T, ProfileText>) {
    return read_value(j, out);
  } else {
    return read_struct(j, out);
  }
}

bool present(const ProfileNumber& n) { return n.present(); }
bool present(const ProfileText& t) { return t.present() || t.is_null(); }
bool present(const ProfileJson& j) { return j.has_value(); }
template <class T> bool present(const ProfileOptional<T>& o) { return o.has_value() || o.is_null; }
template <class T> bool present(const ProfileList<T>& l) { return l.present || !l.empty(); }

template <class T> json write(const T& v);

json write_value(const ProfileNumber& n) {
  switch (n.form()) {
    case ProfileNumber::Form::kSigned: return json(n.signed_value());
    case ProfileNumber::Form::kUnsigned: return json(n.count());
    case ProfileNumber::Form::kReal: return json(n.value());
    default: return json(nullptr);
  }
}

template <class S> json write_struct(const S& s) {
  json o = s.extra.is_object() ? s.extra : json::object();
  S::fields(s, [&](const char* key, const auto& member) {
    if constexpr (IsList<std::decay_t<decltype(member)>>::value) {
      if (!member.present && o.contains(key)) return;  // read partly: `extra` holds it as it was
    }
    if (present(member)) o[key] = write(member);
  });
  return o;
}

template <class T> json write(const T& v) {
  if constexpr (IsList<T>::value) {
    json a = json::array();
    for (const auto& e : v) a.push_back(write(e));
    return a;
  } else if constexpr (std::is_same_v<T, ProfileJson>) {
    return *v;
  } else if constexpr (std::is_same_v<T, ProfileFlag>) {
    return v ? json(*v) : json(nullptr);
  } else if constexpr (IsOptional<T>::value) {
    return v ? write_struct(*v) : json(nullptr);
  } else if constexpr (std::is_same_v<T, ProfileNumber>) {
    return write_value(v);
  } else if constexpr (std::is_same_v<T, ProfileText>) {
    return v.present() ? json(v.str()) : json(nullptr);
  } else {
    return write_struct(v);
  }
}

}  // namespace

std::vector<std::string> text_lines(const ProfileList<ProfileText>& list, const json& extra, const char* key) {
  std::vector<std::string> out;
  const auto it = extra.find(key);
  if (!list.present && it != extra.end() && it->is_array()) {
    for (const auto& e : *it) out.push_back(e.is_string() ? e.get<std::string>() : json_text(e));
    return out;
  }
  for (const auto& t : list) out.push_back(t);
  return out;
}

std::ostream& operator<<(std::ostream& out, const ProfileNumber& n) { return out << write_value(n).dump(); }

ProfileSection profile_section_from_json(const json& j) {
  ProfileSection s;
  read_struct(j, s);
  return s;
}

ProfileProcess profile_process_from_json(const json& j) {
  ProfileProcess p;
  read_struct(j, p);
  return p;
}

json to_json(const ProfileSection& s) { return write_struct(s); }

json to_json(const ProfileProcess& p) { return write_struct(p); }

}  // namespace gp
