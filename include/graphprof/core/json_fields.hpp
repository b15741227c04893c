// Tolerant reads of graphprof's own JSON, for the one writer that reads the report's JSON back:
// the cross-rank view built from the processes' JSON (src/profile/ranks_view.cpp, which also runs
// on `merge` of several nodes' reports). A field that is missing or of another type (a report of
// an older schema, or a hand-edited one) reads as NaN, an empty string, an empty list or null,
// never as an exception. The readers of the profile section read it typed
// (graphprof/core/profile_section.hpp). src/core/json_fields.cpp.
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
