// The Reporter interface's file output, and the reporters whose renderings live in other units
// (the HTML page in html_report.cpp, the JSON document in src/core/report.cpp).
#include <sstream>

#include "graphprof/core/utf8_text.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/report/reporter.hpp"

namespace gp {

std::string Reporter::text(const Report& report) const {
  std::ostringstream out;
  write(report, out);
  return out.str();
}

void write_report_file(const Reporter& reporter, const Report& report, const std::string& path) {
  write_file_atomic(path, valid_utf8(reporter.text(report)));
}

void HtmlReporter::write(const Report& report, std::ostream& out) const { out << render_html_report(report, options_); }

void JsonReporter::write(const Report& report, std::ostream& out) const { out << report_json_text(report); }

}  // namespace gp
