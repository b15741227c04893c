// libFuzzer target: the injection library's record lines (any bytes) -> ProcessRecords ->
// analysis -> report -> console summary, as `graphprof profile` reads what an application left
// behind. Nothing may throw but a bad-input error; every span kept ends at or after its start
// (a reversed one is an unreadable line), and the report serialises (valid UTF-8 JSON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "graphprof/core/error.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/report/profile_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const gp::ProcessRecords records = gp::parse_process_records(in, "proc-1.jsonl");
  for (const auto& k : records.trace.kernels)
    if (k.end_ns < k.start_ns) std::abort();
  for (const auto& a : records.trace.api)
    if (a.end_ns < a.start_ns) std::abort();
  try {
    const gp::ProcessProfile p = gp::analyze_process(records);
    gp::ProfileRun run;
    run.program = "app";
    run.command = {"app"};
    const gp::Report report = gp::profile_report(run, {p});
    const std::string json = gp::to_json(report).dump();  // throws on invalid UTF-8
    const std::string text = gp::format_profile_summary(report);
    if (json.empty() || text.empty()) std::abort();
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput) std::abort();
  }
  return 0;
}
