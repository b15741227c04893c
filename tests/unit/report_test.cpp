// Report JSON: round trip, atomic write, and errors that name the file and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/report.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;

Report sample_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.git_revision = "abc";
  r.created_utc = "2026-11-29T00:00:00Z";
  r.command_line = {"graphprof", "run"};
  r.environment.host = collect_host_info();
  GpuInfo g;
  g.name = "NVIDIA H200";
  g.cc_major = 9;
  g.sm_count = 132;
  r.environment.gpu = g;
  ModeResult m;
  m.workload = "chain";
  m.mode = Mode::kCapture;
  m.params = {{"kernels", "100"}};
  Metric met;
  met.unit = "ns";
  met.description = "GPU time";
  met.repetitions = {{100, 101, 102}, {99, NAN, 103}};
  met.resummarize();
  m.metrics["gpu_time_per_iter"] = met;
  m.derived["break_even_replays"] = INFINITY;
  m.checksum = "00ff";
  m.checksum_matches_eager = true;
  m.sections.graph = GraphDumpSection{"", "", "", 100, 0};
  r.results.push_back(m);
  ModeResult f;
  f.workload = "chain";
  f.mode = Mode::kEager;
  f.status = Status::kFailed;
  f.reason = "cudaStreamSynchronize returned cudaErrorStreamCaptureUnsupported";
  f.failure = Failure{"cudaStreamSynchronize", "cudaErrorStreamCaptureUnsupported", "m", "h"};
  r.results.push_back(f);
  return r;
}

fs::path temp_path(const std::string& name) { return fs::temp_directory_path() / ("gp_report_test_" + name); }

TEST(Report, RoundTripKeepsEveryField) {
  const Report r = sample_report();
  const fs::path p = temp_path("roundtrip.json");
  write_report(r, p.string());
  const Report back = read_report(p.string());
  EXPECT_EQ(to_json(back).dump(), to_json(r).dump());
  ASSERT_EQ(back.results.size(), 2u);
  const Metric& m = back.results[0].metrics.at("gpu_time_per_iter");
  ASSERT_EQ(m.repetitions.size(), 2u);
  EXPECT_TRUE(std::isnan(m.repetitions[1][1]));  // NaN survives as null
  EXPECT_TRUE(std::isinf(back.results[0].derived.at("break_even_replays")) ||
              std::isnan(back.results[0].derived.at("break_even_replays")));
  EXPECT_EQ(back.results[1].failure->api, "cudaStreamSynchronize");
  EXPECT_EQ(back.environment.gpu->cc_major, 9);
  fs::remove(p);
}

TEST(Report, AtomicWriteLeavesNoTemporaryFiles) {
  const fs::path dir = temp_path("atomic_dir");
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomic((dir / "a.json").string(), "first");
  write_file_atomic((dir / "a.json").string(), "second");
  EXPECT_EQ(read_file((dir / "a.json").string()), "second");
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(Report, SyntaxErrorsGiveFileLineAndColumn) {
  const fs::path p = temp_path("broken.json");
  std::ofstream(p) << "{\n  \"schema_version\": \"1.0.0\",\n  \"results\": [\n    {\"workload\": }\n";
  try {
    read_report(p.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find(p.string() + ":4:"), std::string::npos) << e.what();
  }
  fs::remove(p);
}

TEST(Report, EmptyAndTruncatedFilesAreRejected) {
  const fs::path p = temp_path("empty.json");
  std::ofstream(p) << "  \n";
  EXPECT_THROW(read_report(p.string()), Error);
  const std::string full = to_json(sample_report()).dump();
  std::ofstream(p, std::ios::trunc) << full.substr(0, full.size() / 2);
  try {
    read_report(p.string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
  }
  fs::remove(p);
}

TEST(Report, SemanticErrorsNameTheField) {
  nlohmann::json j = to_json(sample_report());
  j["results"][0]["metrics"]["gpu_time_per_iter"]["unit"] = 5;
  try {
    report_from_json(j, "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("results[0].metrics.gpu_time_per_iter.unit"), std::string::npos) << e.what();
  }
  nlohmann::json v = to_json(sample_report());
  v["schema_version"] = "2.0.0";
  EXPECT_THROW(report_from_json(v, "x.json"), Error);
  EXPECT_THROW(report_from_json(nlohmann::json::array(), "x.json"), Error);
}


// graphprof's other JSON files are named for what they are, not refused for their version.
TEST(Report, OtherGraphprofFilesAreNamed) {
  const std::pair<nlohmann::json, const char*> cases[] = {
      {{{"schema", "graphprof-compare"}, {"schema_version", "2.0.0"}}, "this is a comparison (graphprof compare --json)"},
      {{{"schema", "graphprof.graph-analysis/1"}}, "this is a graph analysis (graphprof analyze --json)"},
      {{{"traceEvents", nlohmann::json::array()}}, "this is a Chrome trace-event file"},
      {{{"kernels", nlohmann::json::array()}, {"api", nlohmann::json::array()}}, "a trace pass's raw records"}};
  for (const auto& [j, want] : cases) {
    try {
      report_from_json(j, "x.json");
      FAIL() << want;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("not readable by this graphprof"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gp
