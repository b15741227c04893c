// Workload parameter resolution and typed access (see include/graphprof/core/params.hpp).
#include "graphprof/core/params.hpp"

#include <algorithm>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "graphprof/core/error.hpp"

namespace gp {

Params::Params(const std::vector<ParamSpec>& spec, const std::map<std::string, std::string>& overrides,
               const std::string& workload) {
  for (const auto& p : spec) values_[p.name] = p.default_value;
  for (const auto& [k, v] : overrides) {
    if (!values_.count(k)) {
      std::string known;
      for (const auto& p : spec) known += (known.empty() ? "" : ", ") + p.name;
      throw usage_error("--param " + k + ": workload '" + workload + "' has no parameter '" + k +
                        "' (it has: " + (known.empty() ? "none" : known) + ")");
    }
    values_[k] = v;
  }
}

const std::string& Params::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw internal_error("parameter '" + name + "' was never declared");
  return it->second;
}

long long Params::get_int(const std::string& name, long long min, long long max) const {
  const std::string& text = get(name);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0')
    throw usage_error("--param " + name + "=" + text + ": expected an integer");
  if (v < min || v > max)
    throw usage_error("--param " + name + "=" + text + ": must be between " + std::to_string(min) + " and " +
                      std::to_string(max));
  return v;
}

double Params::get_double(const std::string& name, double min, double max) const {
  const std::string& text = get(name);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || errno != 0 || *end != '\0' || !std::isfinite(v))
    throw usage_error("--param " + name + "=" + text + ": expected a number");
  if (v < min || v > max)
    throw usage_error("--param " + name + "=" + text + ": must be between " + std::to_string(min) + " and " +
                      std::to_string(max));
  return v;
}

bool Params::get_bool(const std::string& name) const {
  const std::string& text = get(name);
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  throw usage_error("--param " + name + "=" + text + ": expected 0 or 1");
}

void Params::check_forms(const std::vector<ParamSpec>& spec) const {
  auto is_integer = [](const std::string& t) {
    errno = 0;
    char* end = nullptr;
    (void)std::strtoll(t.c_str(), &end, 10);
    return !t.empty() && errno == 0 && *end == '\0';
  };
  auto is_number = [](const std::string& t) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    return !t.empty() && errno == 0 && *end == '\0' && std::isfinite(v);
  };
  for (const auto& p : spec) {
    const std::string& value = get(p.name);
    if (value == p.default_value) continue;
    if (std::find(p.words.begin(), p.words.end(), value) != p.words.end()) continue;
    if (is_integer(p.default_value)) {
      if (p.default_value == "0" || p.default_value == "1") {
        try {
          (void)get_bool(p.name);
          continue;
        } catch (const Error&) {
        }
      }
      (void)get_int(p.name, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
    } else if (is_number(p.default_value)) {
      (void)get_double(p.name, -std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
    }
  }
}

std::pair<std::string, std::string> parse_param_assignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw usage_error("--param " + text + ": expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::string params_text(const std::map<std::string, std::string>& params, const char* separator) {
  std::string s;
  for (const auto& [k, v] : params) s += (s.empty() ? "" : separator) + k + "=" + v;
  return s;
}

}  // namespace gp
