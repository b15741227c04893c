// libFuzzer target: bytes -> the report reader -> a profile's console summary and its page, as
// `graphprof report PROFILE.json [-o page.html]` reads a report that may be hand-edited or hostile.
// Reading gives a Report or throws gp::Error(kBadInput) naming the input. The summary and the page
// of a report read successfully are made, or throw gp::Error(kBadInput) or a
// nlohmann::json::exception or gp::JsonMisuse (a field the reader needs is missing:
// core/json_assert.hpp; `report` turns all three into exit 3 naming the file), and the summary
// holds no terminal control character but its line ends. Anything else, a crash, a hang or a
// sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "graphprof/core/error.hpp"
#include "graphprof/core/json_assert.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/report/html_report.hpp"
#include "graphprof/report/profile_text.hpp"

namespace {

void check_terminal_text(const std::string& text) {
  for (const char c : text)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gp::Report r;
  try {
    r = gp::report_from_json(gp::parse_json_text(text, "fuzz.json"), "fuzz.json");
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput) std::abort();
    return 0;
  }
  try {
    check_terminal_text(gp::format_profile_summary(r, true, "fuzz.json"));
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput) std::abort();
  } catch (const nlohmann::json::exception&) {
  } catch (const gp::JsonMisuse&) {
  }
  try {
    gp::HtmlReportOptions options;
    options.graphs = false;  // the page's pictures read DOT files named by the report: not the bytes'
    (void)gp::render_html_report(r, options);
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput) std::abort();
  } catch (const nlohmann::json::exception&) {
  } catch (const gp::JsonMisuse&) {
  }
  return 0;
}
