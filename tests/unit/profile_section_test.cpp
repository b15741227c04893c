// The typed profile section (core/profile_section.hpp): every committed report's sections.profile
// and every profile report made from the committed records reads and writes back exactly, fields
// read typed, and values of an unexpected type are kept rather than lost.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "graphprof/core/error.hpp"
#include "graphprof/core/profile_section.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/profile/profile.hpp"

namespace gp {
namespace {

using nlohmann::json;
const std::string kSectionData = GRAPHPROF_TEST_DATA;

void expect_round_trip(const json& profile, const std::string& what) {
  const json back = to_json(profile_section_from_json(profile));
  EXPECT_EQ(back.dump(1), profile.dump(1)) << what;
}

TEST(ProfileSection, EveryCommittedReportRoundTrips) {
  std::size_t sections = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kSectionData)) {
    if (e.path().extension() != ".json") continue;
    json j;
    try {
      j = read_json_file(e.path().string());
    } catch (const Error&) {
      continue;  // the hostile fixtures: not JSON at all
    }
    if (!j.is_object() || !j.contains("results") || !j["results"].is_array()) continue;
    for (const auto& r : j["results"]) {
      if (!r.is_object() || !r.contains("sections") || !r["sections"].contains("profile")) continue;
      const json& p = r["sections"]["profile"];
      if (!p.is_object()) continue;
      expect_round_trip(p, e.path().string());
      EXPECT_EQ(to_json(profile_section_from_json(p)), p) << e.path().string();
      ++sections;
    }
  }
  EXPECT_GE(sections, 27u);  // the reports under tests/data/profile
}

TEST(ProfileSection, EveryReportMadeFromRecordsRoundTrips) {
  std::size_t made = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kSectionData + "/profile")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("proc-", 0) != 0 || e.path().extension() != ".jsonl") continue;
    ProfileRun run;
    run.program = "app";
    run.command = {"app"};
    run.wall_ns = 1e9;
    const Report r = profile_report(run, {analyze_process(read_process_records(e.path().string()))});
    expect_round_trip(to_json(*r.results.at(0).sections.profile), e.path().string());
    ++made;
  }
  EXPECT_GE(made, 19u);
}

TEST(ProfileSection, ReadsTyped) {
  const json j = {{"program", "app"},
                  {"wall_ns", 2.5e9},
                  {"processes",
                   {{{"process", 1},
                     {"graphs", {{{"graph", 4}, {"launches", 20}, {"kernel_time_ns", 1.5e6}, {"made_by", "capture"}}}},
                     {"coverage", {{"graph_kernel_ns", 3.0}, {"steady", {{"eager_launches", 2}}}}}}}}};
  const ProfileSection s = profile_section_from_json(j);
  EXPECT_EQ(s.program.str(), "app");
  EXPECT_EQ(s.wall_ns.value(), 2.5e9);
  ASSERT_EQ(s.processes.size(), 1u);
  const ProfileProcess& p = s.processes[0];
  ASSERT_EQ(p.graphs.size(), 1u);
  EXPECT_EQ(p.graphs[0].launches.count(), 20u);
  EXPECT_TRUE(p.graphs[0].launches.is_integer());
  EXPECT_EQ(p.graphs[0].made_by, "capture");
  EXPECT_TRUE(std::isnan(p.graphs[0].upload_ns.value()));
  ASSERT_TRUE(p.coverage && p.coverage->steady);
  EXPECT_EQ(p.coverage->steady->eager_launches.value(), 2.0);
  EXPECT_FALSE(p.step.has_value());
}

TEST(ProfileSection, KeepsWhatItDoesNotModel) {
  const json j = {{"program", 3},                                  // not a string
                  {"new_figure", {{"a", 1}}},                       // a key of a later version
                  {"processes", {{{"graphs", "none"}, {"rank", nullptr}, {"step", {1, 2}}}}},
                  {"cross_rank", nullptr},
                  {"wall_ns", nullptr},
                  {"runs", {1, "x"}}};                              // elements of another type
  const ProfileSection s = profile_section_from_json(j);
  EXPECT_FALSE(s.program.present());
  EXPECT_EQ(s.program.str(), "");
  EXPECT_TRUE(s.processes.at(0).graphs.empty());
  EXPECT_FALSE(s.processes.at(0).rank.has_value());
  EXPECT_FALSE(s.cross_rank.has_value());
  EXPECT_TRUE(s.wall_ns.present());
  EXPECT_TRUE(std::isnan(s.wall_ns.value()));
  EXPECT_TRUE(s.runs.empty());
  EXPECT_EQ(s.extra.at("new_figure"), j["new_figure"]);
  EXPECT_EQ(to_json(s), j);
}

TEST(ProfileSection, WritesWhatWasFilled) {
  ProfileSection s;
  s.program = "app";
  s.exit_status = 0;
  s.wall_ns = 1.5;
  s.overhead = kNoValue;  // NaN is null
  s.notes.present = true;
  ProfileProcess p;
  p.process = std::size_t{1};
  s.processes.push_back(p);
  EXPECT_EQ(to_json(s), json::parse(R"({"program":"app","exit_status":0,"wall_ns":1.5,"overhead":null,"notes":[],
                                        "processes":[{"process":1}]})"));
  EXPECT_EQ(to_json(s).dump(), R"({"exit_status":0,"notes":[],"overhead":null,"processes":[{"process":1}],"program":"app","wall_ns":1.5})");
}

}  // namespace
}  // namespace gp
