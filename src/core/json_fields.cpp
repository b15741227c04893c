// Tolerant reads of report JSON (graphprof/core/json_fields.hpp).
#include "graphprof/core/json_fields.hpp"

#include <cmath>

namespace gp::json_fields {

using nlohmann::json;

const json& field(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  const auto it = j.find(key);
  return it != j.end() ? *it : kNull;
}

double number(const json& j, const char* key, double fallback) {
  const json& v = field(j, key);
  return v.is_number() ? v.get<double>() : fallback;
}

double number(const json& j, const char* key) { return number(j, key, std::nan("")); }

std::string text(const json& j, const char* key) {
  const json& v = field(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

const json& items(const json& j, const char* key) {
  static const json kEmpty = json::array();
  const json& v = field(j, key);
  return v.is_array() ? v : kEmpty;
}

}  // namespace gp::json_fields
