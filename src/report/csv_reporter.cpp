// CSV of a run or sweep (`--csv FILE`): one row per (workload, parameters, mode, metric), for
// spreadsheets and pandas. Every parameter of the report gets its own column, so a sweep's
// varied parameter is a plain numeric column. Derived figures (speedups, break-even) follow as
// rows of kind "derived" with only the value set.
#include <cmath>
#include <cstdio>
#include <set>

#include "graphprof/report/reporter.hpp"

namespace gp {

namespace {

// RFC 4180: quote a field holding a comma, a quote or a line break; double the quotes.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Full precision, no exponent surprises for pandas; empty for NaN and infinities.
std::string number(double v) {
  if (!std::isfinite(v)) return {};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

void CsvReporter::write(const Report& report, std::ostream& out) const {
  std::set<std::string> param_names;
  for (const ModeResult& r : report.results)
    for (const auto& [k, v] : r.params) param_names.insert(k);
  out << "workload";
  for (const auto& k : param_names) out << "," << field(k);
  out << ",mode,status,kind,metric,unit,median,p10,p90,ci_low,ci_high,ci_level,n,converged\r\n";
  for (const ModeResult& r : report.results) {
    std::string prefix = field(r.workload);
    for (const auto& k : param_names) prefix += "," + field(r.params.count(k) ? r.params.at(k) : std::string());
    prefix += "," + field(to_string(r.mode)) + "," + to_string(r.status);
    if (r.status != Status::kOk) {
      out << prefix << ",status," << field(r.reason) << ",,,,,,,,,\r\n";
      continue;
    }
    for (const auto& [key, m] : r.metrics) {
      const Summary& s = m.summary;
      out << prefix << ",measured," << field(key) << "," << field(m.unit) << "," << number(s.median) << ","
          << number(s.p10) << "," << number(s.p90) << "," << number(s.ci_low) << "," << number(s.ci_high) << ","
          << number(s.ci_level) << "," << s.n << "," << (m.converged ? "true" : "false") << "\r\n";
    }
    for (const auto& [key, v] : r.derived)
      out << prefix << ",derived," << field(key) << ",," << number(v) << ",,,,,,,\r\n";
  }
}

}  // namespace gp
