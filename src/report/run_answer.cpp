// The one-line answer of `run` and `sweep`: do graphs pay off, where not, where most.
#include <cmath>
#include <string>
#include <vector>

#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

namespace {

// "a", "a and b", "a, b and c".
std::string and_list(const std::vector<std::string>& items) {
  if (items.size() <= 1) return items.empty() ? std::string() : items.front();
  std::vector<std::string> head(items.begin(), items.end() - 1);
  return join(head, ", ") + " and " + items.back();
}

const ModeResult* ok_mode(const Report& rep, const ModeResult& like, Mode mode) {
  for (const auto& x : rep.results)
    if (x.workload == like.workload && x.params == like.params && x.mode == mode)
      return x.status == Status::kOk ? &x : nullptr;
  return nullptr;
}

// What one (workload, parameters) shows: the graph mode with the larger GPU-time speedup.
struct Outcome {
  std::string label;
  enum Kind { kPays, kSmall, kNever, kNotCompared } kind = kNotCompared;
  double speedup = NAN;
  double break_even = NAN;
  Mode best = Mode::kGraph;
  std::vector<std::string> failed;   // modes that did not run ok
  std::vector<std::string> differs;  // graph modes whose output differs from eager's
};

Outcome outcome_of(const Report& rep, const ModeResult& r, std::string label) {
  Outcome o;
  o.label = std::move(label);
  for (const auto& x : rep.results) {
    if (x.workload != r.workload || x.params != r.params) continue;
    if (x.status == Status::kFailed) o.failed.push_back(to_string(x.mode));
    if (x.checksum_matches_eager && !*x.checksum_matches_eager) o.differs.push_back(to_string(x.mode));
  }
  if (ok_mode(rep, r, Mode::kEager) == nullptr) return o;
  bool any = false, all_never = true;
  for (const Mode m : {Mode::kCapture, Mode::kGraph}) {
    const ModeResult* x = ok_mode(rep, r, m);
    if (x == nullptr) continue;
    const double s = derived_or_nan(*x, "speedup_gpu_time_vs_eager");
    if (!std::isfinite(s)) continue;
    const bool never = x->derived.count("break_even_replays") && !std::isfinite(derived_or_nan(*x, "break_even_replays"));
    all_never = all_never && never;
    if (!any || s > o.speedup) {
      o.speedup = s;
      o.break_even = derived_or_nan(*x, "break_even_replays");
      o.best = m;
    }
    any = true;
  }
  if (!any) return o;
  if (all_never) o.kind = Outcome::kNever;
  else o.kind = o.speedup >= kPaysOffSpeedup && std::isfinite(o.break_even) ? Outcome::kPays : Outcome::kSmall;
  return o;
}

std::string times(double s) { return strf("%.2fx", s); }

std::string replays(double n) { return plural(std::round(n), "replay", "replays"); }

// The sentence over several outcomes; `noun` names them ("workloads", "points").
std::string answer_of(const std::vector<Outcome>& all, const char* noun) {
  std::vector<std::string> never, small, not_compared, problems;
  const Outcome* most = nullptr;
  const Outcome* least = nullptr;  // among those that pay off
  std::size_t pays = 0, compared = 0;
  for (const Outcome& o : all) {
    if (!o.differs.empty()) problems.push_back("OUTPUT DIFFERS from eager in " + o.label + " (" + join(o.differs, ", ") + ")");
    if (!o.failed.empty()) problems.push_back(o.label + " failed in " + join(o.failed, ", "));
    if (o.kind == Outcome::kNotCompared) {
      if (o.failed.empty()) not_compared.push_back(o.label);
      continue;
    }
    ++compared;
    if (o.kind == Outcome::kPays) ++pays;
    if (o.kind == Outcome::kNever) never.push_back(o.label);
    if (o.kind == Outcome::kSmall) small.push_back(o.label + " (" + times(o.speedup) + ")");
    if (o.kind == Outcome::kPays && (most == nullptr || o.speedup > most->speedup)) most = &o;
    if (o.kind == Outcome::kPays && (least == nullptr || o.speedup < least->speedup)) least = &o;
  }
  std::vector<std::string> parts;
  if (compared > 0) {
    parts.push_back("graphs pay off (" + times(kPaysOffSpeedup) + " faster on the GPU or more) in " +
                    std::to_string(pays) + " of " + std::to_string(compared) + " " + noun);
    if (!never.empty()) parts.push_back(and_list(never) + (never.size() == 1 ? " never breaks even" : " never break even"));
    if (small.size() == 1) parts.push_back(small.front() + " gains less");
    if (small.size() > 1) parts.push_back(and_list(small) + " gain less");
    if (most != nullptr) parts.push_back(most->label + " gains most, " + times(most->speedup));
    // A sweep's range: where along the grid the gain is smallest.
    if (std::string(noun) == "points" && least != nullptr && least != most && pays >= 3)
      parts.push_back(least->label + " least, " + times(least->speedup));
  }
  if (!not_compared.empty())
    parts.push_back(and_list(not_compared) + ": no eager and graph mode to compare (--mode all compares them)");
  for (auto& p : problems) parts.push_back(std::move(p));
  return parts.empty() ? std::string() : wrap_clauses("answer: " + join(parts, "; "), kSentenceWidth);
}

// The sentence for one (workload, parameters).
std::string answer_of(const Outcome& o) {
  std::vector<std::string> parts;
  switch (o.kind) {
    case Outcome::kPays:
      parts.push_back("graphs pay off for " + o.label + ": " + times(o.speedup) + " faster on the GPU than eager (" +
                      to_string(o.best) + "), paid back after " + replays(o.break_even));
      break;
    case Outcome::kSmall:
      parts.push_back("graphs gain little for " + o.label + ": " + times(o.speedup) + " faster on the GPU (" +
                      to_string(o.best) + "), paid back after " + replays(o.break_even));
      break;
    case Outcome::kNever:
      parts.push_back("graphs do not pay off for " + o.label + ": " + times(o.speedup) + " (" + to_string(o.best) +
                      "), never breaks even");
      break;
    case Outcome::kNotCompared:
      if (o.failed.empty()) parts.push_back(o.label + ": no eager and graph mode to compare (--mode all compares them)");
      break;
  }
  if (!o.differs.empty()) parts.push_back("OUTPUT DIFFERS from eager (" + join(o.differs, ", ") + ")");
  if (!o.failed.empty()) parts.push_back("failed in " + join(o.failed, ", "));
  return parts.empty() ? std::string() : wrap_clauses("answer: " + join(parts, "; "), kSentenceWidth);
}

}  // namespace

std::string run_answer(const Report& report) {
  std::vector<Outcome> all;
  for (const auto& [label, r] : result_groups(report, {})) all.push_back(outcome_of(report, *r, label));
  if (all.size() == 1) return answer_of(all.front());
  return answer_of(all, "workloads");
}

std::string sweep_answer(const Report& report, const std::vector<std::string>& keys) {
  std::vector<Outcome> all;
  for (const auto& [label, r] : result_groups(report, keys)) all.push_back(outcome_of(report, *r, label));
  return answer_of(all, "points");
}

std::vector<std::pair<std::string, const ModeResult*>> result_groups(const Report& report,
                                                                      const std::vector<std::string>& keys) {
  std::vector<const ModeResult*> seen;
  for (const auto& r : report.results) {
    bool dup = false;
    for (const auto* s : seen) dup = dup || (s->workload == r.workload && s->params == r.params);
    if (!dup) seen.push_back(&r);
  }
  std::vector<std::pair<std::string, const ModeResult*>> out;
  for (const auto* r : seen) {
    std::string extra;
    if (!keys.empty()) {
      for (const auto& k : keys)
        if (r->params.count(k)) extra += (extra.empty() ? "" : " ") + k + "=" + r->params.at(k);
      out.emplace_back(extra.empty() ? r->workload : extra, r);
      continue;
    }
    // A workload measured with several parameter sets (the ranks of --ranks, a multi-workload
    // sweep) gets the parameters that tell its rows apart.
    for (const auto& [k, v] : r->params)
      for (const auto* o : seen)
        if (o->workload == r->workload && o->params.count(k) && o->params.at(k) != v) {
          extra += (extra.empty() ? "" : " ") + k + "=" + v;
          break;
        }
    out.emplace_back(extra.empty() ? r->workload : r->workload + " [" + extra + "]", r);
  }
  return out;
}

}  // namespace gp
