// Golden outputs of the compare reporters (console, Markdown, JUnit, JSON) for the synthetic
// reports, plus the properties every rendering must keep (size cap, ordering, counts).
// Regenerate the golden files after an intended change with
//   GRAPHPROF_UPDATE_GOLDEN=1 ctest -R CompareGolden   (then review the diff)
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "graphprof/atomic_file.hpp"
#include "graphprof/compare.hpp"
#include "graphprof/compare_report.hpp"
#include "graphprof/report.hpp"

namespace gp {
namespace {

std::string data(const std::string& name) { return std::string(GRAPHPROF_TEST_DATA) + "/reports/" + name; }

Comparison run(const std::string& base, const std::string& cand, const Thresholds& t = {}) {
  Comparison c = compare(read_report(data(base)), read_report(data(cand)), t, InputNames{base, cand});
  c.command = "graphprof compare " + base + " " + cand;  // what the CLI would record
  return c;
}

std::string console(const Comparison& c, bool all = false) {
  std::ostringstream o;
  print_compare_console(c, o, CompareConsoleOptions{false, all});
  return o.str();
}

void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = data("golden/" + name);
  const char* update = std::getenv("GRAPHPROF_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    write_file_atomic(path, text);
    return;
  }
  const std::string want = read_file(path);
  EXPECT_EQ(text, want) << "golden file " << path << " differs; rerun with GRAPHPROF_UPDATE_GOLDEN=1 if intended";
}

TEST(CompareGolden, Regression) {
  const Comparison c = run("base.json", "regression.json");
  expect_golden("regression.txt", console(c));
  expect_golden("regression.md", render_compare_markdown(c));
  expect_golden("regression.xml", render_compare_junit(c));
}

TEST(CompareGolden, MissingAndAdded) {
  const Comparison c = run("base.json", "missing_added.json");
  expect_golden("missing_added.txt", console(c));
  expect_golden("missing_added.md", render_compare_markdown(c));
}

TEST(CompareGolden, OtherGpu) {
  const Comparison c = run("base.json", "other_gpu.json");
  expect_golden("other_gpu.md", render_compare_markdown(c));
}

TEST(CompareGolden, FailedMode) {
  const Comparison c = run("base.json", "failed_mode.json");
  expect_golden("failed_mode.txt", console(c));
  expect_golden("failed_mode.xml", render_compare_junit(c));
}

TEST(CompareGolden, SingleRepetition) {
  const Comparison c = run("r1_base.json", "r1_slow.json");
  expect_golden("r1_slow.txt", console(c, true));
  expect_golden("r1_slow.json", render_compare_json(c));
}

TEST(CompareOutputs, MarkdownStaysUnderTheCapAndKeepsRegressionsFirst) {
  const Comparison c = run("many_base.json", "many_cand.json");
  for (std::size_t cap : {2048u, 4096u, 10000u, 60000u}) {
    const std::string md = render_compare_markdown(c, cap);
    EXPECT_LE(md.size(), cap);
    EXPECT_NE(md.find("#### Regressions and failures (300)"), std::string::npos);
    EXPECT_NE(md.find("more rows not shown (Markdown limit of " + std::to_string(cap) + " bytes)"), std::string::npos);
    EXPECT_NE(md.find("Reproduce with"), std::string::npos);  // the footer survives the cap
  }
  const std::string full = render_compare_markdown(c, 10000000);
  EXPECT_EQ(full.find("more rows not shown"), std::string::npos);
}

TEST(CompareOutputs, MarkdownCapHoldsEvenWithALongHeader) {
  Comparison c = run("base.json", "other_gpu.json");
  for (int i = 0; i < 60; ++i) c.environment.warnings.push_back("settings.key" + std::to_string(i) + " differs: a lot of text");
  const std::string md = render_compare_markdown(c, 2048);
  EXPECT_LE(md.size(), 2048u);
  EXPECT_EQ(md.rfind("<!-- graphprof-compare:v1 -->\n### ⚠️ graphprof compare: NOT TRUSTWORTHY (exit 5)", 0), 0u);
  EXPECT_NE(md.find("header shortened"), std::string::npos);
}

TEST(CompareOutputs, JsonHoldsEveryNumberBehindAVerdict) {
  const Comparison c = run("base.json", "regression.json");
  const nlohmann::json j = nlohmann::json::parse(render_compare_json(c));
  EXPECT_EQ(j.at("schema"), "graphprof-compare");
  EXPECT_EQ(j.at("summary").at("exit_code"), 1);
  EXPECT_EQ(j.at("summary").at("counts").at("regression"), c.count(Verdict::kRegression));
  ASSERT_EQ(j.at("rows").size(), c.rows.size());
  bool found = false;
  for (const auto& row : j.at("rows")) {
    if (row.at("benchmark") != "chain[elements=4096,kernels=100,sync_inside=0]/graph" ||
        row.at("metric") != "gpu_time_per_iter")
      continue;
    found = true;
    EXPECT_EQ(row.at("verdict"), "regression");
    EXPECT_EQ(row.at("effect"), "fail");
    EXPECT_EQ(row.at("baseline").at("repetition_medians").size(), 7u);
    EXPECT_EQ(row.at("candidate").at("repetition_medians").size(), 7u);
    const auto& est = row.at("estimate");
    EXPECT_GT(est.at("ratio").get<double>(), est.at("ci_gate").at("ratio_low").get<double>());
    EXPECT_LT(est.at("ratio").get<double>(), est.at("ci_gate").at("ratio_high").get<double>());
    EXPECT_EQ(est.at("ci_gate").at("rank"), 5);  // 7 vs 7 at 99%
    EXPECT_GE(est.at("ci_gate").at("coverage").get<double>(), 0.99);
    EXPECT_EQ(row.at("rule").at("threshold"), 0.05);
  }
  EXPECT_TRUE(found);
}

TEST(CompareOutputs, JunitCountsMatchTheRows) {
  const Comparison c = run("base.json", "failed_mode.json");
  const std::string xml = render_compare_junit(c);
  EXPECT_NE(xml.find("<testsuites name=\"graphprof compare\" tests=\"" + std::to_string(c.rows.size() + 1) +
                     "\" failures=\"1\" errors=\"0\""),
            std::string::npos)
      << xml.substr(0, 300);
  EXPECT_NE(xml.find("<failure type=\"failed\""), std::string::npos);
  EXPECT_EQ(xml.find("\033"), std::string::npos);
}

TEST(CompareOutputs, ColourOnlyWhenAsked) {
  const Comparison c = run("base.json", "regression.json");
  std::ostringstream plain, coloured;
  print_compare_console(c, plain, CompareConsoleOptions{false, false});
  print_compare_console(c, coloured, CompareConsoleOptions{true, false});
  EXPECT_EQ(plain.str().find("\033["), std::string::npos);
  EXPECT_NE(coloured.str().find("\033[1;31mregression"), std::string::npos);
}

}  // namespace
}  // namespace gp
