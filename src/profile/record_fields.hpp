// Reading the record lines (profile_records.cpp, site_records.cpp): the codec's kinds and field
// helpers (src/records/record_lines.hpp, record_text.hpp) with the JSON type they are read from. A
// missing or null field gives the fallback; an integer that does not fit, or a value of another
// type, throws (std::out_of_range or nlohmann::json::exception) and the line is counted as unreadable.
#pragma once
#include <nlohmann/json.hpp>

#include "record_lines.hpp"

namespace gp::records {

using nlohmann::json;

}  // namespace gp::records
