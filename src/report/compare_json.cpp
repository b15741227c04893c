// JSON rendering of a Comparison: the record of every number behind every verdict (inputs,
// rules, environment, per-row repetition values, estimates, intervals, reasons, exit code).
// docs/compare.md documents the fields; bump kCompareSchemaVersion when they change.
#include <cmath>

#include "graphprof/core/json_text.hpp"
#include "graphprof/report/compare_report.hpp"

namespace gp {

using nlohmann::json;

namespace {

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json side_json(const InputInfo& i) {
  json j{{"path", i.label},
         {"tool_version", i.tool_version},
         {"git_revision", i.git_revision},
         {"created_utc", i.created_utc},
         {"host_cpu", i.host_cpu},
         {"repetitions", i.repetitions},
         {"runs", i.runs}};
  if (i.gpu) {
    const GpuInfo& g = *i.gpu;
    j["gpu"] = json{{"name", g.name},
                    {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
                    {"sm_count", g.sm_count},
                    {"clock_khz", g.clock_khz},
                    {"memory_clock_khz", g.memory_clock_khz},
                    {"driver_version", g.driver_version},
                    {"runtime_version", g.runtime_version}};
  } else {
    j["gpu"] = nullptr;
  }
  return j;
}

json patterns(const std::vector<PatternValue>& v) {
  json a = json::array();
  for (const auto& p : v) a.push_back(json{{"pattern", p.pattern}, {"value", p.value}});
  return a;
}

json interval_json(const RatioInterval& ci) {
  if (!ci.available) return nullptr;
  return json{{"level", ci.level}, {"ratio_low", num(ci.low)}, {"ratio_high", num(ci.high)}};
}

json data_json(const SideData& s) {
  json reps = json::array();
  for (double v : s.reps) reps.push_back(num(v));
  return json{{"run_values", std::move(reps)},
              {"runs", s.reps.size()},
              {"samples", s.samples},
              {"dropped_samples", s.dropped_samples},
              {"dropped_repetitions", s.dropped_reps},
              {"center", num(s.center)},
              {"spread", num(s.spread)},
              {"repetition_ci_low", num(s.rep_ci_low)},
              {"repetition_ci_high", num(s.rep_ci_high)},
              {"sm_clock_khz", num(s.sm_clock_khz)}};
}

json row_json(const MetricComparison& r) {
  json j{{"benchmark", r.benchmark()},
         {"workload", r.workload},
         {"mode", r.mode},
         {"params", r.params},
         {"metric", r.metric},
         {"unit", r.unit},
         {"direction", to_string(r.direction)},
         {"gating", r.rule.gating},
         {"class", to_string(r.rule.series_class)},
         {"verdict", to_string(r.verdict)},
         {"effect", to_string(r.effect)},
         {"reason", r.reason},
         {"method", r.method},
         {"likely_regression", r.likely_regression},
         {"not_enough_runs", r.not_enough_runs},
         {"sampled", r.sampled},
         {"rule",
          {{"threshold", r.rule.threshold},
           {"threshold_floor", r.rule.threshold_floor},
           {"threshold_basis", to_string(r.rule.threshold_basis)},
           {"noise_sd", r.rule.noise_sd > 0 ? num(r.rule.noise_sd) : json(nullptr)},
           {"noise_multiple", r.rule.noise_multiple},
           {"noise_floor", r.rule.noise_floor},
           {"class_between_run_sd", r.rule.class_sd},
           {"abs_floor", r.rule.abs_floor},
           {"clock_sensitive", r.rule.clock_sensitive}}}};
  j["baseline"] = r.base ? data_json(*r.base) : json(nullptr);
  j["candidate"] = r.cand ? data_json(*r.cand) : json(nullptr);
  if (r.has_estimate) {
    j["estimate"] = json{{"ratio", num(r.ratio)},
                         {"change_percent", num(100.0 * (r.ratio - 1.0))},
                         {"log_shift", num(std::log(r.ratio))},
                         {"abs_change", num(r.abs_change)},
                         {"ci_gate", interval_json(r.ci_gate)},
                         {"ci_same", interval_json(r.ci_same)},
                         {"std_error", num(r.std_error)},
                         {"df", r.df > 0 ? num(r.df) : json(nullptr)},
                         {"critical", num(r.critical)},
                         {"runs_needed", r.runs_needed > 0 ? json(r.runs_needed) : json(nullptr)},
                         {"cycle_ratio", r.cycle_ratio ? num(*r.cycle_ratio) : json(nullptr)}};
  } else {
    j["estimate"] = nullptr;
  }
  j["notes"] = r.notes;
  if (r.device.measured()) {
    auto probe = [](double ns) { return ns > 0 ? num(ns) : json(nullptr); };
    j["device_level"] = json{{"baseline_ns_per_kernel", probe(r.device.baseline_ns)},
                             {"candidate_ns_per_kernel", probe(r.device.candidate_ns)},
                             {"differs", r.device.differs},
                             {"baseline_switched", r.device.baseline_switched},
                             {"candidate_switched", r.device.candidate_switched}};
  } else {
    j["device_level"] = nullptr;
  }
  return j;
}

}  // namespace

json compare_to_json(const Comparison& c, ExitCode exit) {
  const Thresholds& t = c.thresholds;
  json settings{{"threshold", t.threshold},
                {"noise_multiple", t.noise_multiple},
                {"noise_floor", t.noise_floor},
                {"family_alpha", t.family_alpha},
                {"min_runs", t.min_runs},
                {"same_level", t.same_level},
                {"max_invalid_fraction", t.max_invalid_fraction},
                {"clock_tolerance", t.clock_tolerance},
                {"gate_patterns", t.gate_patterns},
                {"clock_patterns", t.clock_patterns},
                {"metric_thresholds", patterns(t.metric_thresholds)},
                {"default_abs_floor_ns", t.default_abs_floor_ns},
                {"default_abs_floors", patterns(t.default_abs_floors)},
                {"abs_floors", patterns(t.abs_floors)},
                {"ignore_params", t.ignore_params},
                {"allow_env_mismatch", t.allow_env_mismatch},
                {"allow_missing", t.allow_missing},
                {"strict", t.strict},
                {"fail_on_drift", t.fail_on_drift}};
  json diffs = json::array();
  for (const auto& d : c.environment.differences)
    diffs.push_back(json{{"key", d.key}, {"baseline", d.baseline}, {"candidate", d.candidate}, {"hard", d.hard}});
  json drift = json::array();
  for (const auto& d : c.drift) drift.push_back(json{{"benchmark", d.benchmark}, {"what", d.what}});
  json counts = json::object();
  for (int v = 0; v <= static_cast<int>(Verdict::kSame); ++v)
    counts[to_string(static_cast<Verdict>(v))] = c.count(static_cast<Verdict>(v));
  json geo = json::array();
  for (const auto& g : c.geomeans)
    geo.push_back(json{{"metric", g.metric}, {"n", g.n}, {"ratio", num(g.ratio)}, {"change", format_change(g.ratio)},
                       {"gating", g.gating}});
  json rows = json::array();
  for (const auto& r : c.rows) rows.push_back(row_json(r));
  return json{{"schema", "graphprof-compare"},
              {"schema_version", kCompareSchemaVersion},
              {"command", c.command},
              {"baseline", side_json(c.baseline)},
              {"candidate", side_json(c.candidate)},
              {"settings", std::move(settings)},
              {"environment",
               {{"comparable", c.environment.comparable}, {"differences", std::move(diffs)}, {"warnings", c.environment.warnings}}},
              {"summary",
               {{"exit_code", static_cast<int>(exit)},
                {"exit_reason", c.outcome_reason},
                {"headline", headline(c, exit)},
                {"compared", c.compared},
                {"counts", std::move(counts)},
                {"gate_effects",
                 {{"fail", c.count_effect(GateEffect::kFail)}, {"untrusted", c.count_effect(GateEffect::kUntrusted)}}},
                {"geomean", std::move(geo)},
                {"banners", c.banners},
                {"gating_series", c.gating_series}}},
              {"drift", std::move(drift)},
              {"rows", std::move(rows)}};
}

std::string render_compare_json(const Comparison& c, ExitCode exit) { return json_text(compare_to_json(c, exit), 1) + "\n"; }

}  // namespace gp
