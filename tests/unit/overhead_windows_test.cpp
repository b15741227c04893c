// --overhead-windows (graphprof/profile/overhead_windows.hpp): the program's time per graph launch
// in a recording window against the paused windows beside it, pooled with the sign test's interval;
// the pw lines read back from record files, hostile ones left out; the report and the console.
#include "graphprof/profile/overhead_windows.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graphprof/profile/profile.hpp"
#include "graphprof/report/html_report.hpp"
#include "graphprof/report/profile_text.hpp"

namespace {

using namespace gp;
namespace fs = std::filesystem;

// Alternating windows, recording first, of 50 ms; each window's time per launch from `per_launch`.
std::vector<PauseWindow> alternating(const std::vector<double>& per_launch, std::uint64_t launches = 100) {
  std::vector<PauseWindow> w;
  std::uint64_t at = 1'000'000'000;
  for (std::size_t k = 0; k < per_launch.size(); ++k) {
    PauseWindow x;
    x.recording = k % 2 == 0;
    x.from_ns = at;
    x.to_ns = at += 50'000'000;
    x.launches = launches;
    x.span_ns = static_cast<std::uint64_t>(per_launch[k] * static_cast<double>(launches));
    w.push_back(x);
  }
  return w;
}

TEST(OverheadWindows, TimePerLaunchNeedsThreeLaunchesAndASpan) {
  PauseWindow w;
  w.launches = 2;
  w.span_ns = 1000;
  EXPECT_FALSE(w.per_launch_ns()) << "two launches are one step and a part";
  w.launches = 3;
  ASSERT_TRUE(w.per_launch_ns());
  EXPECT_DOUBLE_EQ(*w.per_launch_ns(), 1000.0 / 3);
  w.span_ns = 0;
  EXPECT_FALSE(w.per_launch_ns()) << "no launch time: a window the program spent elsewhere";
}

TEST(OverheadWindows, EachRecordingWindowIsHeldAgainstThePausedWindowsBesideIt) {
  // Recording windows 2 % slower; a slow spell of the host (x3) over windows 4..8 moves both sides
  // of windows inside it alike: their ratio stays 1.02. Only the windows at its edges, with one
  // slow neighbour, are off (the median over many windows leaves them out).
  const std::vector<double> per = {102, 100, 102, 100, 306, 300, 306, 300, 306, 100, 102, 100};
  const auto r = window_ratios(alternating(per));
  // Recording windows 0, 2, 4, 6, 8, 10: window 0 has no paused window before it.
  ASSERT_EQ(r.size(), 5u);
  for (std::size_t i : {0u, 2u, 4u}) EXPECT_NEAR(r[i].recording_ns / r[i].paused_ns, 1.02, 1e-9) << i;
  EXPECT_NEAR(r[1].recording_ns / r[1].paused_ns, 306.0 / std::sqrt(100.0 * 300.0), 1e-9) << "the geometric mean of both neighbours";
  EXPECT_NEAR(r[3].recording_ns, 306.0, 1e-9);
  EXPECT_NEAR(r[3].paused_ns, std::sqrt(300.0 * 100.0), 1e-9);
}

TEST(OverheadWindows, WindowsThatCannotBeComparedAreLeftOut) {
  auto w = alternating({100, 100, 102, 100, 102, 100, 102, 100});
  w[3].launches = 1;  // a paused window without steps: windows 2 and 4 lose a neighbour
  EXPECT_EQ(window_ratios(w).size(), 1u) << "only window 6";
  w = alternating({100, 100, 102, 100, 102, 100, 102, 100});
  w.erase(w.begin() + 3);  // a window missing (an unreadable line): 2 and then 4 are not beside paused ones
  for (const auto& x : window_ratios(w)) EXPECT_NE(x.paused_ns, 0.0);
  EXPECT_EQ(window_ratios(w).size(), 1u);
  EXPECT_TRUE(window_ratios({}).empty());
}

TEST(OverheadWindows, TheChangeIsTheMedianWithTheSignTestsInterval) {
  std::vector<WindowRatio> r;
  EXPECT_FALSE(windows_change(r));
  for (int i = 0; i < 5; ++i) r.push_back({103, 100});
  EXPECT_FALSE(windows_change(r)) << "fewer than six windows: no verdict";
  r.clear();
  // 41 windows: ratios 0.90 .. 1.30 in steps of 0.01, the median 1.10.
  for (int i = 0; i <= 40; ++i) r.push_back({90.0 + i, 100});
  const auto c = windows_change(r);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->windows, 41u);
  EXPECT_NEAR(c->change, 0.10, 1e-12);
  EXPECT_LT(c->low, c->change);
  EXPECT_GT(c->high, c->change);
  EXPECT_GE(c->level, 0.95);
  // The exact binomial interval for n = 41 at 95 %: the 14th and 28th order statistics.
  EXPECT_NEAR(c->low, 0.03, 1e-9);
  EXPECT_NEAR(c->high, 0.17, 1e-9);
  EXPECT_FALSE(c->inside_noise());
  r.clear();
  for (int i = -20; i <= 20; ++i) r.push_back({100.0 + i, 100});
  ASSERT_TRUE(windows_change(r));
  EXPECT_TRUE(windows_change(r)->inside_noise()) << "symmetric about no change";
}

TEST(OverheadWindows, ReadsThePwLinesOfEachProcessAndLeavesHostileOnesOut) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("overhead_windows_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream a(dir / "proc-1.jsonl");
    a << R"({"t":"process","pid":1,"ppid":0,"ts":5,"cmdline":"app"})" << "\n"
      << R"({"t":"pw","rec":1,"from":100,"to":200,"n":10,"span":95})" << "\n"
      << R"({"t":"pw","rec":0,"from":200,"to":300,"n":10,"span":90})" << "\n"
      << R"({"t":"pw","rec":1,"from":300,"to":300,"n":10,"span":90})" << "\n"   // empty window: left out
      << R"({"t":"pw","rec":1,"from":300,"to":400,"n":-4,"span":90})" << "\n"   // a negative count
      << R"({"t":"pw","rec":1,"from":300,"to":400,"n":"ten","span":90})" << "\n"
      << R"({"t":"pw","rec":1,"from":300,"to":400,"n":10,"span":1e400})" << "\n"
      << R"({"t":"pw","rec":0,"from":300,"to":400)" << "\n"                      // cut short
      << R"({"t":"pw","rec":0,"from":400,"to":500,"n":12,"span":120})" << "\n";
    std::ofstream b(dir / "proc-2.jsonl");
    b << R"({"t":"process","pid":2,"ppid":1,"ts":6,"cmdline":"worker"})" << "\n";
    std::ofstream c(dir / "notes.jsonl");
    c << R"({"t":"pw","rec":1,"from":1,"to":2,"n":10,"span":9})" << "\n";
  }
  const auto w = read_pause_windows(dir.string());
  ASSERT_EQ(w.size(), 1u) << "a process without windows, and a file that is not a process's, are not listed";
  ASSERT_EQ(w[0].size(), 3u);
  EXPECT_TRUE(w[0][0].recording);
  EXPECT_FALSE(w[0][1].recording);
  EXPECT_EQ(w[0][2].from_ns, 400u);
  EXPECT_EQ(w[0][2].launches, 12u);
  EXPECT_EQ(w[0][2].span_ns, 120u);
  fs::remove_all(dir);
}

ProfileRun windows_run(bool with_change) {
  ProfileRun run;
  run.program = "serving_loop.py";
  run.command = {"python3", "serving_loop.py"};
  run.exit_description = "exited with status 0";
  run.wall_ns = 9.6e9;
  run.trace_level = TraceLevel::kNone;
  WindowsOverhead w;
  w.period_ms = 50;
  w.start_ms = 300;
  WindowsRun a;
  a.processes = 1;
  a.windows = 81;
  a.compared = 40;
  a.change = 0.0232;
  a.recording_ns = 161900;
  a.paused_ns = 158840;
  WindowsRun b;
  b.status = 1;
  b.processes = 1;
  b.windows = 4;
  b.compared = 1;
  w.runs = {a, b};
  if (with_change) {
    w.change = WindowsChange{41, 0.0206, 0.0129, 0.0251, 0.95, 161900, 158840};
  } else {  // a short run: too few windows in all
    w.runs[0].compared = 3;
    w.runs[0].change.reset();
  }
  run.overhead_windows = w;
  return run;
}

TEST(OverheadWindows, TheReportAndTheConsoleSayTheChangeFirst) {
  const Report r = profile_report(windows_run(true), {});
  const nlohmann::json w = to_json(*r.results.at(0).sections.profile).at("overhead_windows");
  EXPECT_EQ(w.at("period_ms"), 50);
  EXPECT_EQ(w.at("windows"), 41);
  EXPECT_NEAR(w.at("change").get<double>(), 0.0206, 1e-12);
  EXPECT_EQ(w.at("inside_noise"), false);
  ASSERT_EQ(w.at("runs").size(), 2u);
  EXPECT_TRUE(w.at("runs")[1].at("change").is_null()) << "a run with too few windows has no change of its own";
  EXPECT_EQ(w.at("runs")[1].at("status"), 1);
  const std::string text = format_profile_summary(r);
  const auto headline = text.find("overhead on the application's own steps: +2.1 % time per graph launch [+1.3, +2.5 %] (outside the noise)");
  ASSERT_NE(headline, std::string::npos) << text;
  EXPECT_EQ(headline, text.find('\n', text.find("profile: serving_loop.py")) + 3) << "the line after the header\n" << text;
  for (const char* want : {"41 recording windows of 2 runs", "every 50 ms from 300 ms after the first graph launch", "+2.3 %",
                           "162 µs", "159 µs", "a further run, recorded throughout"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

TEST(OverheadWindows, ThePageSaysItWhereItNamesTheApplication) {
  const std::string page = render_html_report(profile_report(windows_run(true), {}));
  EXPECT_NE(page.find("<dt>overhead on its steps</dt><dd>+2.1 % time per graph launch [+1.3, +2.5 %], outside the noise (41 recording windows"),
            std::string::npos);
  EXPECT_NE(render_html_report(profile_report(windows_run(false), {})).find("no verdict: too few windows"), std::string::npos);
  ProfileRun plain = windows_run(true);
  plain.overhead_windows.reset();
  EXPECT_EQ(render_html_report(profile_report(plain, {})).find("overhead on its steps"), std::string::npos);
}

TEST(OverheadWindows, TooFewWindowsGiveNoVerdictAndSayWhy) {
  const Report r = profile_report(windows_run(false), {});
  EXPECT_TRUE(to_json(*r.results.at(0).sections.profile).at("overhead_windows").at("change").is_null());
  const std::string text = format_profile_summary(r);
  EXPECT_NE(text.find("no verdict: 4 recording windows between timed paused ones, fewer than 6"), std::string::npos) << text;
}

TEST(OverheadWindows, RunsObservedThroughCuptiGiveNoVerdictAndNameThePathAndTheAlternative) {
  ProfileRun run = windows_run(false);
  for (auto& r : run.overhead_windows->runs) r.through_cupti = 1;  // a process that could not be interposed
  const std::string text = format_profile_summary(profile_report(run, {}));
  EXPECT_NE(text.find("no verdict: 2 runs were observed through CUPTI"), std::string::npos) << text;
  EXPECT_NE(text.find("--overhead N"), std::string::npos) << text;
  EXPECT_EQ(text.find("recording windows between timed paused ones"), std::string::npos) << "the path, not a count of windows\n" << text;
}

TEST(OverheadWindows, AProfileWithoutThemSaysNothingOfThem) {
  ProfileRun run = windows_run(true);
  run.overhead_windows.reset();
  const Report r = profile_report(run, {});
  EXPECT_TRUE(to_json(*r.results.at(0).sections.profile).at("overhead_windows").is_null());
  EXPECT_EQ(format_profile_summary(r).find("overhead"), std::string::npos);
}

}  // namespace
