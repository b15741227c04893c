// The Chrome trace's size controls: the per-session event cap (the earliest events kept, flows
// never split, the cut noted in the metadata and on the timeline) and gzip output for .gz names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/report/chrome_trace.hpp"
#include "trace_test_data.hpp"

namespace gp {
namespace {

using nlohmann::json;

std::size_t non_metadata(const json& doc) {
  std::size_t n = 0;
  for (const json& e : doc["traceEvents"]) n += e["ph"] != "M";
  return n;
}

TEST(ChromeTraceCap, KeepsTheEarliestEventsAndWholeFlows) {
  const TraceData eager = testdata::chain_eager_trace(4, 40);
  ChromeTraceBuilder all(0);
  all.add("chain eager", eager, nullptr);
  const json full = all.to_json();
  EXPECT_EQ(all.truncated_sessions(), 0u);
  EXPECT_FALSE(full["otherData"].contains("truncated_sessions"));

  ChromeTraceBuilder capped(50);
  capped.add("chain eager", eager, nullptr);
  const json doc = capped.to_json();
  EXPECT_EQ(capped.truncated_sessions(), 1u);
  const auto problems = validate_chrome_trace(doc);  // no flow start without its finish
  EXPECT_TRUE(problems.empty()) << problems.front();
  // At most the cap, plus the one marker of the cut.
  EXPECT_LE(non_metadata(doc), 51u);
  EXPECT_GT(non_metadata(doc), 25u);
  EXPECT_LT(non_metadata(doc), non_metadata(full));
  const json& cut = doc["otherData"]["truncated_sessions"];
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0]["session"], "chain eager");
  EXPECT_EQ(cut[0]["events"].get<std::size_t>(), non_metadata(full));
  bool marker = false;
  double last_kept = 0, marker_ts = 0;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "i" && e["name"].get<std::string>().rfind("trace cut here", 0) == 0) {
      marker = true;
      marker_ts = e["ts"];
    } else if (e["ph"] != "M") {
      last_kept = std::max(last_kept, e["ts"].get<double>());
    }
  }
  EXPECT_TRUE(marker);
  EXPECT_LE(last_kept, marker_ts);  // everything kept starts before the cut
}

TEST(ChromeTraceCap, SmallSessionsAreNotCut) {
  ChromeTraceBuilder b;  // the default cap
  b.add("chain eager", testdata::chain_eager_trace(2, 3), nullptr);
  EXPECT_EQ(b.truncated_sessions(), 0u);
}

TEST(ChromeTraceGzip, GzNamesAreCompressed) {
  if (!ChromeTraceBuilder::can_compress()) GTEST_SKIP() << "built without zlib";
  ChromeTraceBuilder b(0);
  b.add("chain eager", testdata::chain_eager_trace(4, 40), nullptr);
  const auto dir = std::filesystem::temp_directory_path() / ("gp_gz_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::string plain = (dir / "t.json").string(), gz = (dir / "t.json.gz").string();
  b.write(plain);
  b.write(gz);
  const std::string p = read_file(plain), z = read_file(gz);
  ASSERT_GE(z.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(z[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(z[1]), 0x8b);
  EXPECT_LT(z.size() * 4, p.size());
  EXPECT_EQ(json::parse(p), b.to_json());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gp
