// The call-site and ledger lines of the injection library's records (formats at the top of
// profile_records.cpp), read into SiteRecords (graphprof/profile/profile_sites.hpp).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "graphprof/profile/profile_sites.hpp"

namespace gp {

// Reads one line of kind `t` if it is one of these; false for any other kind. A malformed line
// throws (nlohmann::json::exception or std::out_of_range), counted by the caller. `begin_ns`: the
// process's start, against which times are checked (record_fields.hpp, timestamp).
bool read_site_line(const std::string& t, const nlohmann::json& j, SiteRecords& out, std::uint64_t begin_ns);

}  // namespace gp
