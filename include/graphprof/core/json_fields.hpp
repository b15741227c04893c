// Tolerant reads of graphprof's own JSON sections, for the readers that see only a report (the
// profile page, compare's graph-health view, the cross-rank view and its text): a field that is
// missing or of another type (a report of an older schema, or a hand-edited one) reads as NaN,
// an empty string, an empty list or null, never as an exception. src/core/json_fields.cpp.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace gp::json_fields {

double number(const nlohmann::json& j, const char* key, double fallback);
double number(const nlohmann::json& j, const char* key);                // NaN when missing
std::string text(const nlohmann::json& j, const char* key);             // "" when missing
const nlohmann::json& items(const nlohmann::json& j, const char* key);  // an empty array when missing
const nlohmann::json& field(const nlohmann::json& j, const char* key);  // null when missing

}  // namespace gp::json_fields
