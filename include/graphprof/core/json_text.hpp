// JSON as text, whatever bytes its strings hold. nlohmann::json's dump throws (type_error 316) on
// a string that is not UTF-8: a path in a Latin-1 folder, an argument with byte 0xff, a file name
// from a program's debug information. Every report, comparison and analysis graphprof writes goes
// through here, where such bytes become U+FFFD, so that no output is lost to them (exit 6 after
// the application ran). Header-only: every layer that writes JSON uses it.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace gp {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace gp
