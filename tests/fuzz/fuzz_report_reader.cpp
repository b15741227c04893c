// libFuzzer target: bytes -> the report reader -> what compare and merge do with reports.
// Whatever the bytes, reading either gives a Report or throws gp::Error(kBadInput) naming the
// input; comparing or merging a report read successfully may throw gp::Error (kBadInput or
// kUntrusted), nothing else. Any other exception, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "graphprof/compare/comparison.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/report/compare_report.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gp::Report r;
  try {
    r = gp::report_from_json(gp::parse_json_text(text, "fuzz.json"), "fuzz.json");
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput) std::abort();
    if (std::string(e.what()).find("fuzz.json") == std::string::npos) std::abort();  // must name the file
    return 0;
  }
  try {
    (void)gp::to_json(r).dump();
    const gp::Comparison c = gp::compare(r, r, gp::Thresholds{});
    (void)gp::render_compare_json(c, gp::compare_exit_code(c.outcome));
    (void)gp::render_compare_markdown(c, gp::compare_exit_code(c.outcome));
    (void)gp::render_compare_junit(c);
    (void)gp::merge_reports({r, r}, {"a.json", "b.json"});
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput && e.code() != gp::ExitCode::kUntrusted) std::abort();
  }
  return 0;
}
