// Report settings <-> JSON (see run_settings.hpp). Reading names the file and the key that is wrong:
// a count that is not a whole number in [0, 2^31 - 1] (merge and compare add them up), a figure out
// of range, a text or flag of another type. Keys not known here are kept as they are.
#include "graphprof/core/run_settings.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "report_reader.hpp"

namespace gp {

using nlohmann::json;

namespace {

// Each known key, with its member: one table for writing, reading and the list of known keys.
template <class T>
struct Field {
  const char* key;
  std::optional<T> RunSettings::*member;
};

const std::initializer_list<Field<double>> kFigures = {
    {"target_rel_ci", &RunSettings::target_rel_ci},
    {"budget_seconds_per_pass", &RunSettings::budget_seconds_per_pass},
    {"min_seconds_per_pass", &RunSettings::min_seconds_per_pass},
    {"warmup_seconds", &RunSettings::warmup_seconds},
    {"time_limit_seconds", &RunSettings::time_limit_seconds}};
const std::initializer_list<Field<long long>> kCounts = {
    {"min_samples", &RunSettings::min_samples},
    {"max_samples", &RunSettings::max_samples},
    {"warmup_iterations", &RunSettings::warmup_iterations},
    {"verify_iterations", &RunSettings::verify_iterations},
    {"one_off_samples", &RunSettings::one_off_samples},
    {"repetitions", &RunSettings::repetitions},
    {"repetitions_total", &RunSettings::repetitions_total},
    {"pooled_reports", &RunSettings::pooled_reports},
    {"processes", &RunSettings::processes},
    {"ranks", &RunSettings::ranks},
    {"repeat", &RunSettings::repeat}};
const std::initializer_list<Field<std::string>> kTexts = {{"latch", &RunSettings::latch},
                                                          {"command", &RunSettings::command},
                                                          {"trace", &RunSettings::trace},
                                                          {"merged_by", &RunSettings::merged_by}};
const std::initializer_list<Field<bool>> kFlags = {{"isolate", &RunSettings::isolate}};

template <class T>
bool known_in(const std::initializer_list<Field<T>>& fields, const std::string& key) {
  return std::any_of(fields.begin(), fields.end(), [&](const Field<T>& f) { return key == f.key; });
}

bool known(const std::string& key) {
  return key == "rank_gpus" || known_in(kFigures, key) || known_in(kCounts, key) || known_in(kTexts, key) ||
         known_in(kFlags, key);
}

}  // namespace

long long RunSettings::processes_or_one() const { return processes ? std::max(1LL, *processes) : 1; }

json to_json(const RunSettings& s) {
  json j = s.extra.is_object() ? s.extra : json::object();
  for (const auto& f : kFigures)
    if (s.*f.member) j[f.key] = *(s.*f.member);
  for (const auto& f : kCounts)
    if (s.*f.member) j[f.key] = *(s.*f.member);
  for (const auto& f : kTexts)
    if (s.*f.member) j[f.key] = *(s.*f.member);
  for (const auto& f : kFlags)
    if (s.*f.member) j[f.key] = *(s.*f.member);
  if (s.rank_gpus) {
    json& all = j["rank_gpus"] = json::array();
    for (const RankGpu& g : *s.rank_gpus) all.push_back({{"ordinal", g.ordinal}, {"pci_bus_id", g.pci_bus_id}});
  }
  return j;
}

RunSettings settings_from_json(const json& j, const std::string& source) {
  const detail::Reader rd{source};
  RunSettings s;
  if (j.is_null()) return s;
  if (!j.is_object()) rd.fail("settings", "expected an object");
  for (const auto& f : kFigures)
    if (j.contains(f.key) && !j.at(f.key).is_null()) {
      const double v = rd.num(j.at(f.key), std::string("settings.") + f.key);
      s.*f.member = v;
    }
  for (const auto& f : kCounts)
    if (j.contains(f.key) && !j.at(f.key).is_null()) {
      if (!j.at(f.key).is_number()) rd.fail(std::string("settings.") + f.key, "expected a whole number, got " + j.at(f.key).dump());
      s.*f.member = rd.integer_or(j, "settings", f.key, 0);
    }
  for (const auto& f : kTexts)
    if (j.contains(f.key) && !j.at(f.key).is_null()) s.*f.member = rd.str(j, "settings", f.key);
  for (const auto& f : kFlags)
    if (j.contains(f.key) && !j.at(f.key).is_null()) {
      if (!j.at(f.key).is_boolean()) rd.fail(std::string("settings.") + f.key, "expected true or false");
      s.*f.member = j.at(f.key).get<bool>();
    }
  if (j.contains("rank_gpus") && !j.at("rank_gpus").is_null()) {
    const json& all = j.at("rank_gpus");
    if (!all.is_array()) rd.fail("settings.rank_gpus", "expected an array");
    std::vector<RankGpu>& gpus = s.rank_gpus.emplace();
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::string where = "settings.rank_gpus[" + std::to_string(i) + "]";
      gpus.push_back({rd.integer_or(all[i], where, "ordinal", 0), rd.str(all[i], where, "pci_bus_id")});
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (known(it.key())) continue;
    // Unknown keys are kept as they are; a figure among them is still a figure.
    if (it->is_number_float() && !std::isfinite(it->get<double>())) rd.fail("settings." + it.key(), "not a finite number");
    s.extra[it.key()] = *it;
  }
  return s;
}

}  // namespace gp
