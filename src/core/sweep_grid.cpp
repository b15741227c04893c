// Expansion of sweep parameter specs into grids.
#include "graphprof/core/sweep_grid.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "graphprof/core/error.hpp"

namespace gp {

namespace {

constexpr std::size_t kMaxPoints = 10000;

bool parse_number(const std::string& t, double& v) {
  if (t.empty()) return false;
  errno = 0;
  char* end = nullptr;
  v = std::strtod(t.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(v);
}

std::string format_number(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 9e15) return std::to_string(static_cast<long long>(std::llround(v)));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) return out;
    start = pos + 1;
  }
}

}  // namespace

std::vector<std::string> expand_param_values(const std::string& name, const std::string& spec) {
  const std::string where = "--param " + name + "=" + spec + ": ";
  if (spec.find(',') != std::string::npos) {
    std::vector<std::string> values = split(spec, ',');
    for (const auto& v : values)
      if (v.empty()) throw usage_error(where + "empty value in list");
    return values;
  }
  if (spec.find(':') == std::string::npos) return {spec};
  const std::vector<std::string> parts = split(spec, ':');
  if (parts.size() < 2 || parts.size() > 3) throw usage_error(where + "expected FROM:TO or FROM:TO:+STEP or FROM:TO:*FACTOR");
  double from = 0, to = 0;
  if (!parse_number(parts[0], from) || !parse_number(parts[1], to))
    throw usage_error(where + "range bounds must be numbers");
  if (to < from) throw usage_error(where + "range end is below its start");
  bool geometric = false;
  double step = 1;
  if (parts.size() == 3) {
    const std::string& st = parts[2];
    if (st.empty() || (st[0] != '+' && st[0] != '*') || !parse_number(st.substr(1), step))
      throw usage_error(where + "step must be +N (add) or *N (multiply)");
    geometric = st[0] == '*';
    if (geometric ? (step <= 1 || from <= 0) : step <= 0)
      throw usage_error(where + (geometric ? "a geometric range needs a factor > 1 and a start > 0" : "step must be > 0"));
  }
  std::vector<std::string> values;
  for (double v = from; v <= to * (1 + 1e-12); v = geometric ? v * step : v + step) {
    values.push_back(format_number(v));
    if (values.size() > kMaxPoints) throw usage_error(where + "more than 10000 values");
  }
  return values;
}

std::vector<std::map<std::string, std::string>> expand_grid(const std::map<std::string, std::string>& specs) {
  std::vector<std::map<std::string, std::string>> grid{{}};
  for (const auto& [name, spec] : specs) {
    const std::vector<std::string> values = expand_param_values(name, spec);
    std::vector<std::map<std::string, std::string>> next;
    for (const auto& point : grid)
      for (const auto& v : values) {
        auto p = point;
        p[name] = v;
        next.push_back(std::move(p));
      }
    if (next.size() > kMaxPoints) throw usage_error("--param: the grid has more than 10000 points");
    grid = std::move(next);
  }
  return grid;
}

}  // namespace gp
