// The batch rule of the measurement passes (graphprof/core/batch_rule.hpp).
#include "graphprof/core/batch_rule.hpp"

#include <algorithm>

#include "graphprof/core/metric_catalog.hpp"

namespace gp {

int batch_size(const IterationShape& shape, double budget_seconds) {
  const std::size_t calls = std::max<std::size_t>(1, shape.calls_per_iter);
  std::size_t n = 1000 / calls;
  if (shape.seconds > 0)
    n = std::min(n, static_cast<std::size_t>(std::max(1.0, std::min(1e6, budget_seconds / 4 / shape.seconds))));
  return static_cast<int>(std::clamp<std::size_t>(n, 1, 64));
}

int latched_batch_size(int batch, std::size_t calls_per_iter) {
  return std::min(batch, static_cast<int>(std::clamp<std::size_t>(256 / (calls_per_iter + 1), 1, 32)));
}

void split_first_one_off(std::map<std::string, std::vector<double>>& costs) {
  using namespace metric_key;
  for (const char* key : {kInstantiateTime, kUploadTime, kUploadCallTime}) {
    auto it = costs.find(key);
    if (it == costs.end() || it->second.size() < 2) continue;
    costs[std::string(key) + "_first"].push_back(it->second.front());
    it->second.erase(it->second.begin());
  }
}

Deadline deadline_after(double seconds) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

double seconds_left(Deadline deadline) {
  return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
}

StoppingRule rule_within_time_left(const StoppingRule& rule, double seconds_left, int passes_left) {
  StoppingRule r = rule;
  const double share = std::max(0.01, seconds_left / std::max(1, passes_left));
  r.budget_seconds = std::min(r.budget_seconds, share);
  r.min_seconds = std::min(r.min_seconds, r.budget_seconds);
  return r;
}

}  // namespace gp
