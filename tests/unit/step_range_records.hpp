// The H200 records of tests/apps/call_site_app.cu with the lines that `profile --step-range step`
// adds (src/inject/common/nvtx_steps.hpp): a step_range line after the process line, the NAME ranges in
// an nvtx line and the nvtx_end line. Shared by profile_step_range_test and the console golden.
#pragma once
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "graphprof/profile/profile.hpp"

namespace gp::test {

inline const std::string kCallSiteRecords = std::string(GRAPHPROF_TEST_DATA) + "/profile/h200/call_site_app/proc-4180.jsonl";

using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// The start of each cudaGraphLaunch call of the app, in order: the memory-node graph, buckets 0
// and 2, then the loop's 40 launches of bucket 1, then the late graph.
inline std::vector<std::uint64_t> graph_launch_starts() {
  const ProcessRecords r = read_process_records(kCallSiteRecords);
  std::vector<std::uint64_t> starts;
  for (const auto& a : r.trace.api)
    if (a.name == "cudaGraphLaunch") starts.push_back(a.start_ns);
  std::sort(starts.begin(), starts.end());
  return starts;
}

// One range per loop step, from its graph launch call to just before the next step's (the last to
// the late capture's launch): every eager call of the loop is inside one.
inline Ranges loop_step_ranges() {
  const std::vector<std::uint64_t> s = graph_launch_starts();
  Ranges r;
  for (std::size_t i = 3; i + 1 < s.size(); ++i) r.emplace_back(s[i] - 1, s[i + 1] - 2);
  return r;
}

// `end`: the nvtx_end line ("" leaves it out: a process that never flushed).
inline ProcessRecords records_with_ranges(const Ranges& ranges, const std::string& end = "{\"t\":\"nvtx_end\",\"inits\":1,\"others\":40,\"open\":0}") {
  std::ifstream in(kCallSiteRecords);
  std::ostringstream text;
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    text << line << "\n";
    if (first) text << "{\"t\":\"step_range\",\"name\":\"step\"}\n";
    first = false;
  }
  if (!ranges.empty()) {
    text << "{\"t\":\"nvtx\",\"r\":[";
    for (std::size_t i = 0; i < ranges.size(); ++i) text << (i > 0 ? "," : "") << "[" << ranges[i].first << "," << ranges[i].second << "]";
    text << "]}\n";
  }
  if (!end.empty()) text << end << "\n";
  std::istringstream records(text.str());
  return parse_process_records(records, kCallSiteRecords);
}

}  // namespace gp::test
