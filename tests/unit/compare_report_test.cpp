// Golden outputs of the compare reporters (console, Markdown, JUnit, JSON) for the synthetic
// reports, plus the properties every rendering must keep (size cap, ordering, counts).
// Regenerate the golden files after an intended change with
//   GRAPHPROF_UPDATE_GOLDEN=1 ctest -R CompareGolden   (then review the diff)
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "graphprof/compare/comparison.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/report/compare_report.hpp"
#include "graphprof/core/report.hpp"
#include "golden.hpp"
#include "unit_test_helpers.hpp"

namespace gp {
namespace {

using test::report_fixture;

// The comparison of two fixtures with the command line the CLI would record.
Comparison compared(const std::string& base, const std::string& cand, const Thresholds& t = {}) {
  Comparison c = test::compare_fixtures(base, cand, t);
  c.command = "graphprof compare " + base + " " + cand;
  return c;
}

std::string console(const Comparison& c, bool all = false) {
  std::ostringstream o;
  print_compare_console(c, compare_exit_code(c.outcome), o, CompareConsoleOptions{false, all});
  return o.str();
}

void expect_golden(const std::string& name, const std::string& text) {
  expect_golden_file(report_fixture("golden/" + name), text);
}

TEST(CompareGolden, Regression) {
  const Comparison c = compared("base.json", "regression.json");
  expect_golden("regression.txt", console(c));
  expect_golden("regression.md", render_compare_markdown(c, compare_exit_code(c.outcome)));
  expect_golden("regression.xml", render_compare_junit(c));
}

TEST(CompareGolden, MissingAndAdded) {
  const Comparison c = compared("base.json", "missing_added.json");
  expect_golden("missing_added.txt", console(c));
  expect_golden("missing_added.md", render_compare_markdown(c, compare_exit_code(c.outcome)));
}

TEST(CompareGolden, OtherGpu) {
  const Comparison c = compared("base.json", "other_gpu.json");
  expect_golden("other_gpu.md", render_compare_markdown(c, compare_exit_code(c.outcome)));
}

TEST(CompareGolden, FailedMode) {
  const Comparison c = compared("base.json", "failed_mode.json");
  expect_golden("failed_mode.txt", console(c));
  expect_golden("failed_mode.xml", render_compare_junit(c));
}

// Real H200 reports whose device level differs (sections.device_probe): the rows that would read
// as regressions or improvements say why they are not credited to the code.
TEST(CompareGolden, DeviceLevels) {
  const Comparison c = compared("h200_levels/isolated.json", "h200_levels/one_process.json");
  expect_golden("device_levels.txt", console(c));
  expect_golden("device_levels.md", render_compare_markdown(c, compare_exit_code(c.outcome)));
}

// The same check as data in compare --json: each row carries both sides' probes, and a row whose
// sides ran at different levels says so (the isolated sweep ~504 ns/kernel; the one-process
// sweep switched during its 100-kernel point).
TEST(CompareJson, DeviceLevelIsAFieldOfEachRow) {
  const Comparison c = compared("h200_levels/isolated.json", "h200_levels/one_process.json");
  const nlohmann::json j = compare_to_json(c, compare_exit_code(c.outcome));
  std::size_t probed = 0, switched = 0;
  for (const auto& row : j.at("rows")) {
    const auto& d = row.at("device_level");
    if (d.is_null()) continue;
    ++probed;
    for (const char* side : {"baseline_ns_per_kernel", "candidate_ns_per_kernel"})
      if (!d.at(side).is_null()) EXPECT_GT(d.at(side).get<double>(), 400) << side;
    if (d.at("differs").get<bool>() || d.at("candidate_switched").get<bool>()) ++switched;
  }
  EXPECT_GT(probed, 0u);
  EXPECT_GT(switched, 0u);
  EXPECT_EQ(j.at("schema_version"), kCompareSchemaVersion);
}

TEST(CompareGolden, SingleRepetition) {
  const Comparison c = compared("r1_base.json", "r1_slow.json");
  expect_golden("r1_slow.txt", console(c, true));
  expect_golden("r1_slow.json", render_compare_json(c, compare_exit_code(c.outcome)));
}

TEST(CompareOutputs, MarkdownStaysUnderTheCapAndKeepsRegressionsFirst) {
  const Comparison c = compared("many_base.json", "many_cand.json");
  for (std::size_t cap : {2048u, 4096u, 10000u, 60000u}) {
    const std::string md = render_compare_markdown(c, compare_exit_code(c.outcome), cap);
    EXPECT_LE(md.size(), cap);
    EXPECT_NE(md.find("| 🔴 regression | `synthetic"), std::string::npos);  // the short table under the verdict
    if (cap >= 10000)
      EXPECT_NE(md.find("#### Regressions and failures (" + std::to_string(c.count(Verdict::kRegression)) + ")"),
                std::string::npos);
    EXPECT_NE(md.find("more rows not shown (Markdown limit of " + std::to_string(cap) + " bytes)"), std::string::npos);
    EXPECT_NE(md.find("Reproduce with"), std::string::npos);  // the footer survives the cap
  }
  const std::string full = render_compare_markdown(c, compare_exit_code(c.outcome), 10000000);
  EXPECT_EQ(full.find("more rows not shown"), std::string::npos);
}

// The H200 gate runs, 7 processes a side, the chain kernels slowed by 10 %: a few regressions among
// hundreds of rows that do not gate. The page lists every regression, whole, and counts the rest.
TEST(CompareOutputs, MarkdownListsEveryRegressionAndCountsTheRowsThatDoNotGate) {
  auto side = [](const std::string& set) {
    std::vector<std::string> files;
    for (int i = 1; i <= 7; ++i) files.push_back(std::string(GRAPHPROF_TEST_DATA) + "/gate/" + set + "/run" + std::to_string(i) + ".json");
    return merge_reports(read_distinct_reports(files), files);
  };
  Thresholds t;
  t.ignore_params = {"spin_cycles"};
  const Comparison c = compare(side("A"), side("S10"), t, InputNames{"A", "S10"});
  ASSERT_GE(c.count(Verdict::kRegression), 4u);
  ASSERT_GT(c.rows.size(), 100u);
  const std::string md = render_compare_markdown(c, compare_exit_code(c.outcome));
  EXPECT_LE(md.size(), 16384u + 4096u) << "a few regressions make a short page";
  const std::size_t section = md.find("#### Regressions and failures (");
  ASSERT_NE(section, std::string::npos);
  for (const auto& r : c.rows)
    if (r.verdict == Verdict::kRegression && r.rule.gating)
      EXPECT_NE(md.find("| 🔴 regression | `" + r.benchmark() + "` | " + r.metric + " |", section), std::string::npos)
          << r.benchmark() << " " << r.metric;
  EXPECT_EQ(md.find("more rows not shown"), std::string::npos);
  EXPECT_NE(md.find("_Not listed, to keep this page short: "), std::string::npos);
  EXPECT_EQ(md.find("Informational metrics (do not gate) ("), std::string::npos);  // counted, not listed
  EXPECT_NE(md.find("Reproduce with"), std::string::npos);
  // A small comparison still lists its folded rows.
  const Comparison small = compared("base.json", "regression.json");
  EXPECT_NE(render_compare_markdown(small, compare_exit_code(small.outcome)).find("<details><summary>"), std::string::npos);
}

// Two H200 profiles of the serving app (profile --repeat 5), one graph's kernel slowed: the
// console's benchmark column keeps the four graphs of one call site apart (each cell read
// "graphprof_serving_app[gra~/app", cut from the right) and the "/app" at the end.
TEST(CompareOutputs, ConsoleKeepsTheGraphsOfAProfileApart) {
  const std::string dir = std::string(GRAPHPROF_TEST_DATA) + "/profile/gate/repeat/";
  const Comparison c = compare(read_report(dir + "asis.json"), read_report(dir + "slow.json"), Thresholds{},
                               InputNames{"asis.json", "slow.json"});
  const std::string text = console(c, true);
  for (int k = 1; k <= 4; ++k) EXPECT_NE(text.find(std::to_string(k) + "/4 main in grap…/app"), std::string::npos) << text;
  const std::size_t regression = text.find("\nregression ");
  ASSERT_NE(regression, std::string::npos) << text;
  const std::string line = text.substr(regression + 1, text.find('\n', regression + 1) - regression - 1);
  EXPECT_NE(line.find("4/4 main in"), std::string::npos) << line;  // the slowed graph
  // The rule said is the profiles' one, not the run comparison's interval rule.
  EXPECT_NE(text.find("rules:     two profiles, run by run: a row changes by at least its threshold"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("device-class series regresses"), std::string::npos);
  const std::string md = render_compare_markdown(c, compare_exit_code(c.outcome));
  EXPECT_NE(md.find("Rule: two profiles, run by run"), std::string::npos);
  EXPECT_EQ(md.find("Regression = a device-class series"), std::string::npos);
}

TEST(CompareOutputs, MarkdownCapHoldsEvenWithALongHeader) {
  Comparison c = compared("base.json", "other_gpu.json");
  for (int i = 0; i < 60; ++i) c.environment.warnings.push_back("settings.key" + std::to_string(i) + " differs: a lot of text");
  const std::string md = render_compare_markdown(c, compare_exit_code(c.outcome), 2048);
  EXPECT_LE(md.size(), 2048u);
  EXPECT_EQ(md.rfind("<!-- graphprof-compare:v1 -->\n### ⚠️ graphprof compare: NOT TRUSTWORTHY (exit 5)", 0), 0u);
  EXPECT_NE(md.find("header shortened"), std::string::npos);
}

TEST(CompareOutputs, JsonHoldsEveryNumberBehindAVerdict) {
  const Comparison c = compared("base.json", "regression.json");
  const nlohmann::json j = nlohmann::json::parse(render_compare_json(c, compare_exit_code(c.outcome)));
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
    EXPECT_EQ(row.at("class"), "device");
    EXPECT_EQ(row.at("baseline").at("run_values").size(), 7u);
    EXPECT_EQ(row.at("candidate").at("run_values").size(), 7u);
    const auto& est = row.at("estimate");
    EXPECT_GT(est.at("ratio").get<double>(), est.at("ci_gate").at("ratio_low").get<double>());
    EXPECT_LT(est.at("ratio").get<double>(), est.at("ci_gate").at("ratio_high").get<double>());
    // Bonferroni: the family's 1 % split over the gating series, one-sided on each side.
    const double alpha = 0.01 / j.at("summary").at("gating_series").get<double>();
    EXPECT_NEAR(est.at("ci_gate").at("level").get<double>(), 1 - 2 * alpha, 1e-12);
    EXPECT_GT(est.at("df").get<double>(), 6.0);
    EXPECT_GT(est.at("critical").get<double>(), 3.0);
    EXPECT_EQ(row.at("rule").at("threshold"), 0.03);
    EXPECT_EQ(row.at("rule").at("threshold_floor"), 0.03);
    EXPECT_EQ(row.at("rule").at("threshold_basis"), "floor");
    EXPECT_GT(row.at("rule").at("noise_sd").get<double>(), 0.0);
    EXPECT_EQ(row.at("rule").at("noise_multiple"), 3.0);
  }
  EXPECT_TRUE(found);
}

// Every rendering shows the threshold each row was judged by, and where a noisy device series
// got a higher one than the floor, that it came from its runs' spread.
TEST(CompareOutputs, EveryOutputShowsEachRowsThreshold) {
  const Comparison c = compared("noisy_base.json", "noisy_cand.json");
  const MetricComparison* noisy = nullptr;
  for (const auto& r : c.rows)
    if (r.rule.gating && r.rule.threshold_basis == ThresholdBasis::kNoise) noisy = &r;
  ASSERT_NE(noisy, nullptr);
  const std::string cell = strf("%.1f%%", 100 * noisy->rule.threshold);
  std::ostringstream out;
  print_compare_console(c, compare_exit_code(c.outcome), out, CompareConsoleOptions{false, true, false});
  const std::string text = out.str();
  EXPECT_NE(text.find("  threshold  "), std::string::npos) << text;
  EXPECT_NE(text.find(cell + " (3σ)"), std::string::npos) << text;
  EXPECT_NE(text.find("threshold: 3σ = 3 x the between-run sd of the series' runs"), std::string::npos) << text;
  EXPECT_NE(text.find("max(3%, 3 x the between-run sd of its runs)"), std::string::npos) << text;
  const std::string md = render_compare_markdown(c, compare_exit_code(c.outcome));
  EXPECT_NE(md.find("| Interval | Threshold | Runs b/c |"), std::string::npos);
  EXPECT_NE(md.find(" | " + cell + " (3σ) | "), std::string::npos) << md.substr(0, 2000);
  const std::string xml = render_compare_junit(c);
  EXPECT_NE(xml.find("threshold: " + cell + " (3 x the runs&#39; "), std::string::npos) << xml.substr(0, 2000);
  EXPECT_NE(xml.find("threshold: 3% (the floor)"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(render_compare_json(c, compare_exit_code(c.outcome)));
  EXPECT_EQ(j.at("settings").at("noise_multiple"), 3.0);
  std::size_t noise_rows = 0;
  for (const auto& row : j.at("rows")) {
    if (!row.at("estimate").is_object()) continue;
    const auto& rule = row.at("rule");
    if (rule.at("threshold_basis") == "noise") {
      ++noise_rows;
      EXPECT_NEAR(rule.at("threshold").get<double>(), std::expm1(3 * rule.at("noise_sd").get<double>()), 1e-12);
    } else {
      EXPECT_EQ(rule.at("threshold"), rule.at("threshold_floor"));
    }
  }
  EXPECT_GE(noise_rows, 4u);
}

TEST(CompareOutputs, JunitCountsMatchTheRows) {
  const Comparison c = compared("base.json", "failed_mode.json");
  const std::string xml = render_compare_junit(c);
  EXPECT_NE(xml.find("<testsuites name=\"graphprof compare\" tests=\"" + std::to_string(c.rows.size() + 1) +
                     "\" failures=\"1\" errors=\"0\""),
            std::string::npos)
      << xml.substr(0, 300);
  EXPECT_NE(xml.find("<failure type=\"failed\""), std::string::npos);
  EXPECT_EQ(xml.find("\033"), std::string::npos);
}

// The result comes first; table rows fit 160 columns; JUnit follows the common schema.
TEST(CompareOutputs, ConsoleStartsWithTheVerdictAndStaysNarrow) {
  const Comparison c = compared("base.json", "regression.json");
  std::ostringstream out;
  print_compare_console(c, compare_exit_code(c.outcome), out, CompareConsoleOptions{false, true, false});
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("FAIL (exit 1): 1 regression\n", 0), 0u) << text.substr(0, 200);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t columns = 0;
    for (unsigned char ch : line) columns += (ch & 0xC0) != 0x80;
    if (line.rfind("baseline:", 0) == 0 || line.rfind("candidate:", 0) == 0) continue;  // paths as given
    EXPECT_LE(columns, 160u) << line;
  }
  const std::string md = render_compare_markdown(c, compare_exit_code(c.outcome));
  const std::size_t verdict = md.find("### ❌ graphprof compare: FAIL (exit 1): 1 regression");
  const std::size_t table = md.find("| Verdict | Benchmark | Metric | Change |");
  EXPECT_LT(verdict, table);
  EXPECT_LT(table, md.find("Baseline `"));  // the short table comes before the details
}

// A corrupt candidate (every sample 1e308 ns, as a damaged file may hold): the cells print
// "1e+299 s" and "+9.89e+304%", not numbers 300 digits long that break the 160-column rows.
TEST(CompareOutputs, ConsoleStaysNarrowWithAbsurdValues) {
  const Report base = read_report(report_fixture("base.json"));
  Report cand = base;
  for (auto& r : cand.results)
    if (r.mode == Mode::kCapture)
      for (auto& rep : r.metrics.at("gpu_time_per_iter").repetitions) rep.assign(rep.size(), 1e308);
  for (auto& r : cand.results)
    for (auto& [key, m] : r.metrics) m.resummarize();
  const Comparison c = compare(base, cand, Thresholds{}, InputNames{"base.json", "absurd.json"});
  std::ostringstream out;
  print_compare_console(c, compare_exit_code(c.outcome), out, CompareConsoleOptions{false, true, false});
  std::istringstream lines(out.str());
  std::string line;
  bool seen = false;
  while (std::getline(lines, line)) {
    if (line.rfind("regression ", 0) == 0 && line.find("1e+299 s") != std::string::npos) seen = true;
    EXPECT_LE(line.size(), 200u) << line;  // bytes: "µs" cells make a line a few bytes longer than its columns
  }
  EXPECT_TRUE(seen) << out.str();
}

// A hostile report's workload name with a newline and a terminal escape: each table row stays on
// one line and no escape reaches the terminal.
TEST(CompareOutputs, ConsoleRowsStayOnOneLineWithControlCharacters) {
  const Report base = read_report(report_fixture("base.json"));
  Report cand = base;
  cand.results[0].workload = "evil\nname\x1b[31m";
  const Comparison c = compare(base, cand, Thresholds{}, InputNames{"base.json", "evil.json"});
  std::ostringstream out;
  print_compare_console(c, compare_exit_code(c.outcome), out, CompareConsoleOptions{false, true, true});
  const std::string text = out.str();
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  const std::size_t row = text.find("\nadded ");
  ASSERT_NE(row, std::string::npos) << text;
  const std::string line = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("evil\\nname\\x1b[31m["), std::string::npos) << line;
}

// The lines above the table carry a report's own strings too (its revision, its GPU's name in the
// side lines and in the warning that the GPUs differ): no escape of a hostile report reaches the
// terminal from them either.
TEST(CompareOutputs, ConsoleHeaderLinesShowControlCharactersAsEscapes) {
  const Report base = read_report(report_fixture("base.json"));
  Report cand = base;
  cand.git_revision = "abc\x1b]0;title\x07";
  ASSERT_TRUE(cand.environment.gpu.has_value());
  cand.environment.gpu->name = "H200\x1b[2J\nfake line";
  const Comparison c = compare(base, cand, Thresholds{}, InputNames{"base.json", "evil.json"});
  std::ostringstream out;
  print_compare_console(c, compare_exit_code(c.outcome), out, CompareConsoleOptions{false, true, true});
  const std::string text = out.str();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_EQ(text.find("\nfake line"), std::string::npos) << text;
  EXPECT_NE(text.find("rev abc\\x1b]0;title\\x07"), std::string::npos) << text;
}

// A backtick in a workload name or parameter value would end its code span early (the rest of the
// name, and the table's next cell, rendered as Markdown): the fence is longer than any backtick run.
TEST(CompareOutputs, MarkdownCodeSpansSurviveBackticks) {
  const Report base = read_report(report_fixture("base.json"));
  Report cand = base;
  cand.results[0].workload = "a`b";
  cand.results[1].params["note"] = "``x";
  cand.results[2].workload = "`c";
  const Comparison c = compare(base, cand, Thresholds{}, InputNames{"base.json", "tick`s.json"});
  const std::string md = render_compare_markdown(c, compare_exit_code(c.outcome), 10000000);
  EXPECT_NE(md.find("| ``a`b["), std::string::npos) << md;
  EXPECT_NE(md.find("| ```chain[elements=4096,kernels=100,note=``x,"), std::string::npos) << md;
  EXPECT_NE(md.find("| `` `c["), std::string::npos) << md;  // starts with a backtick: padded
  EXPECT_NE(md.find("``tick`s.json``"), std::string::npos) << md;
  EXPECT_EQ(md.find("| `a`b"), std::string::npos) << md;
}

TEST(CompareOutputs, JunitNamesSurviveDotsAndTestsuitesHasNoSkipped) {
  Comparison c = compared("base.json", "regression.json");
  for (auto& r : c.rows) r.params["tolerance"] = "0.001";
  const std::string xml = render_compare_junit(c);
  const std::size_t root = xml.find("<testsuites ");
  ASSERT_NE(root, std::string::npos);
  const std::string root_tag = xml.substr(root, xml.find('>', root) - root);
  EXPECT_EQ(root_tag.find("skipped"), std::string::npos) << root_tag;
  // Every classname has exactly one dot, after "graphprof".
  std::size_t at = 0;
  while ((at = xml.find("classname=\"", at)) != std::string::npos) {
    at += 11;
    const std::string name = xml.substr(at, xml.find('"', at) - at);
    EXPECT_EQ(name.rfind("graphprof.", 0), 0u) << name;
    EXPECT_EQ(name.find('.', 10), std::string::npos) << name;
  }
  EXPECT_NE(xml.find("tolerance=0_001"), std::string::npos);
}

TEST(CompareOutputs, ColourOnlyWhenAsked) {
  const Comparison c = compared("base.json", "regression.json");
  std::ostringstream plain, coloured;
  print_compare_console(c, compare_exit_code(c.outcome), plain, CompareConsoleOptions{false, false, false});
  print_compare_console(c, compare_exit_code(c.outcome), coloured, CompareConsoleOptions{true, false, false});
  EXPECT_EQ(plain.str().find("\033["), std::string::npos);
  EXPECT_NE(coloured.str().find("\033[1;31mregression"), std::string::npos);
}

}  // namespace
}  // namespace gp
