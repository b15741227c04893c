// Workload parameters: declared with defaults by each workload, overridden with --param k=v.
// Host-only, so `graphprof list` and the CPU tests can use it without CUDA.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace gp {

struct ParamSpec {
  std::string name;
  std::string default_value;
  std::string help;
  // Words the parameter takes beside the form its default has (chain's sync_inside: 0, 1 or
  // stream, event, query): check_forms lets them through; the workload checks them when it reads them.
  std::vector<std::string> words = {};
};

// The resolved parameter set of one run: defaults overlaid with the user's values.
class Params {
 public:
  Params() = default;
  // Throws usage_error naming the unknown key and the known ones.
  Params(const std::vector<ParamSpec>& spec, const std::map<std::string, std::string>& overrides,
         const std::string& workload);

  // Typed access; throws usage_error "--param NAME=VALUE: expected ..." when the text is wrong
  // or outside [min, max].
  long long get_int(const std::string& name, long long min, long long max) const;
  double get_double(const std::string& name, double min, double max) const;
  bool get_bool(const std::string& name) const;
  const std::string& get(const std::string& name) const;

  const std::map<std::string, std::string>& values() const { return values_; }

  // Checks, without a GPU, that each value has the form of its parameter's default: an integer
  // where the default is one (or a 0/1 word such as "true" where the default is 0 or 1), a number
  // where it is a number; throws the usage_error that get_int/get_double would. The ranges stay
  // the workload's to check when it reads its parameters.
  void check_forms(const std::vector<ParamSpec>& spec) const;

 private:
  std::map<std::string, std::string> values_;
};

// "k=v,k=v" (in key order); every output that names a parameter set writes it so, with its own separator.
std::string params_text(const std::map<std::string, std::string>& params, const char* separator = ",");

// Parse "k=v" into (k, v); throws usage_error for text without '='.
std::pair<std::string, std::string> parse_param_assignment(const std::string& text);

}  // namespace gp
