// Tables align by display columns ("µ" and "±" are two bytes, one column), and figures against
// eager read "-" where no eager baseline exists.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/report/trace_summary_text.hpp"
#include "graphprof/core/name_match.hpp"
#include "graphprof/core/json_text.hpp"
#include "graphprof/core/utf8_text.hpp"

namespace gp {
namespace {

std::string data(const std::string& name) { return std::string(GRAPHPROF_TEST_DATA) + "/" + name; }

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The code point at display column `col` of a line ("" past its end).
std::string char_at(const std::string& line, std::size_t col) {
  std::size_t c = 0;
  for (std::size_t i = 0; i < line.size();) {
    std::size_t n = 1;
    while (i + n < line.size() && (static_cast<unsigned char>(line[i + n]) & 0xC0) == 0x80) ++n;
    if (c == col) return line.substr(i, n);
    ++c;
    i += n;
  }
  return "";
}

TEST(TextFormat, StrfPrintsLikePrintfWhateverTheLength) {
  EXPECT_EQ(strf("%.2f µs", 4.3149), "4.31 µs");
  EXPECT_EQ(strf("%+.1f%%", 12.34), "+12.3%");
  const std::string wide = strf("%.0f", 1e300);  // 301 digits: longer than any fixed buffer it replaced
  EXPECT_EQ(wide.size(), 301u);
  EXPECT_EQ(wide.substr(0, 2), "10");
  EXPECT_EQ(strf("%s|%s", std::string(300, 'a').c_str(), "b"), std::string(300, 'a') + "|b");
}

TEST(TextFormat, DisplayWidthCountsCodePoints) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("812 ns"), 6u);
  EXPECT_EQ(display_width("4.31 µs"), 7u);  // 8 bytes
  EXPECT_EQ(std::string("4.31 µs").size(), 8u);
  EXPECT_EQ(display_width("±CI95"), 5u);
  EXPECT_EQ(pad_left("1.00 µs", 9), "  1.00 µs");
  EXPECT_EQ(pad_right("µs", 4), "µs  ");
  EXPECT_EQ(pad_right("too long", 3), "too long");  // never cut
  EXPECT_EQ(padding("ab", 5), "   ");
}

// Every row of every console table of a real H200 run (its cells hold µs values) is exactly as
// wide, in columns, as the rule under the header: right-aligned columns line up.
TEST(TextFormat, RunConsoleTablesWithMicroAlign) {
  std::ostringstream o;
  RunConsoleReporter(/*verbose=*/true).write(read_report(data("h200/chain_run1.json")), o);
  const auto lines = lines_of(o.str());
  std::size_t tables = 0, micro_rows = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].find("---") == std::string::npos || lines[i].find_first_not_of(" -") != std::string::npos) continue;
    ++tables;
    const std::size_t w = display_width(lines[i]);
    EXPECT_EQ(display_width(lines[i - 1]), w) << lines[i - 1];
    for (std::size_t k = i + 1; k < lines.size() && !lines[k].empty(); ++k) {
      EXPECT_EQ(display_width(lines[k]), w) << lines[k];
      micro_rows += lines[k].find("µ") != std::string::npos;
    }
  }
  EXPECT_GE(tables, 4u);      // three mode tables and a summary
  EXPECT_GE(micro_rows, 5u);  // the check saw µ cells
}

// The trace summary's columns (left-aligned) start at the same display column in every row,
// though the GPU/iter cells before them hold "µs" and the header does not.
TEST(TextFormat, TraceSummaryColumnsAlignAfterMicroCells) {
  Report rep = read_report(data("h200/chain_run1.json"));
  ASSERT_FALSE(rep.results.empty());
  TraceSection t;
  t.status = "ok";
  t.level = "node";
  t.replays = 123;
  t.perturbation.traced.median_ns = 12345.0;
  t.perturbation.traced.ci_low_ns = 12000.0;
  t.perturbation.traced.ci_high_ns = 12600.0;
  TraceSpread untraced;
  untraced.median_ns = 4310.0;
  untraced.ci_low_ns = 4300.0;
  untraced.ci_high_ns = 4320.0;
  t.perturbation.untraced = untraced;
  t.perturbation.ratio = 2.86;
  for (auto& r : rep.results) r.sections.trace = t;
  const auto lines = lines_of(format_trace_summary(rep));
  std::size_t header = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find("traced/untraced") != std::string::npos) header = i;
  ASSERT_LT(header, lines.size());
  const std::string& h = lines[header];
  const std::size_t col = display_width(h.substr(0, h.find("replays")));
  std::size_t rows = 0;
  for (std::size_t k = header + 1; k < lines.size() && !lines[k].empty(); ++k, ++rows) {
    ASSERT_NE(lines[k].find("µs"), std::string::npos) << lines[k];
    EXPECT_EQ(char_at(lines[k], col), "1") << lines[k];  // "123" starts under "replays"
    EXPECT_EQ(char_at(lines[k], col - 1), " ") << lines[k];
  }
  EXPECT_EQ(rows, rep.results.size());
}

ModeResult graph_result(Mode m) {
  ModeResult r;
  r.workload = "chain";
  r.mode = m;
  r.status = Status::kOk;
  return r;
}

TEST(TextFormat, FiguresAgainstEagerWithoutBaselineReadDash) {
  ModeResult g = graph_result(Mode::kGraph);
  EXPECT_EQ(speedup_cell(g), "-");
  EXPECT_EQ(break_even_cell(g), "-");
  g.derived["speedup_gpu_time_vs_eager"] = 3.2;
  g.derived["break_even_replays"] = 2;
  EXPECT_EQ(speedup_cell(g), "3.20x");
  EXPECT_EQ(break_even_cell(g), "2");
  g.derived["break_even_replays"] = std::numeric_limits<double>::infinity();  // not faster: never pays back
  EXPECT_EQ(break_even_cell(g), "never");
  g.derived["speedup_gpu_time_vs_eager"] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(speedup_cell(g), "-");
  EXPECT_EQ(speedup_cell(graph_result(Mode::kEager)), "1.00x");
  EXPECT_EQ(break_even_cell(graph_result(Mode::kEager)), "-");
}

// A real sweep with its eager rows taken out, as `sweep --mode capture,graph` would write it:
// no "nanx", no "never", and the speedup/break-even cells are "-".
Report sweep_without_eager() {
  Report rep = read_report(data("h200/sweep_chain.json"));
  std::vector<ModeResult> kept;
  for (auto& r : rep.results) {
    if (r.mode == Mode::kEager) continue;
    for (const char* k : {"speedup_gpu_time_vs_eager", "speedup_wall_time_vs_eager", "cpu_submit_saving_per_iter_ns",
                          "one_off_total_ns", "break_even_replays"})
      r.derived.erase(k);
    r.checksum_matches_eager.reset();
    kept.push_back(r);
  }
  rep.results = kept;
  return rep;
}

TEST(TextFormat, SweepWithoutEagerPrintsDash) {
  const Report rep = sweep_without_eager();
  ASSERT_EQ(rep.results.size(), 10u);
  std::ostringstream sweep, brief_sweep, run, md;
  SweepConsoleReporter(/*verbose=*/true).write(rep, sweep);
  SweepConsoleReporter().write(rep, brief_sweep);
  RunConsoleReporter().write(rep, run);
  MarkdownReporter().write(rep, md);
  for (const std::string& s : {sweep.str(), brief_sweep.str(), run.str(), md.str()}) {
    EXPECT_EQ(s.find("nan"), std::string::npos) << s;
    EXPECT_EQ(s.find("never"), std::string::npos) << s;
  }
  // Sweep rows end "... speedup break-even status": "-  -  ok" (padded).
  std::size_t rows = 0;
  for (const auto& l : lines_of(sweep.str()))
    if (l.size() > 2 && l.compare(l.size() - 2, 2, "ok") == 0) {
      ++rows;
      EXPECT_TRUE(std::regex_search(l, std::regex(" - +- +ok$"))) << l;
    }
  EXPECT_EQ(rows, 10u);
}


// A device-launched graph's work is not in CUPTI's records: the trace text says how much GPU time
// that is (the H200's device-launch workload: a 3.87 µs traced span against 191 µs of GPU time).
TEST(TextFormat, TraceSummarySaysWhatCuptiDidNotRecord) {
  Report rep = read_report(data("h200/chain_run1.json"));
  ASSERT_FALSE(rep.results.empty());
  ModeResult r = rep.results.back();
  r.workload = "device-launch";
  Metric m;
  m.unit = "ns";
  m.repetitions = {{191000.0, 191000.0, 191000.0}};
  m.resummarize();
  r.metrics["gpu_time_per_iter"] = m;
  TraceSection t;
  t.status = "ok";
  t.level = "node";
  TraceStats span;
  span.count = 200;
  span.median_ns = 3870.0;
  t.graph_span = span;
  r.sections.trace = t;
  rep.results = {r};
  const std::string text = format_trace_summary(rep);
  EXPECT_NE(text.find("not in CUPTI's records: 187 µs of the 191 µs GPU time per iteration"), std::string::npos) << text;
  // A span that covers the measured time says nothing of the kind.
  span.median_ns = 190000.0;
  rep.results[0].sections.trace->graph_span = span;
  EXPECT_EQ(format_trace_summary(rep).find("not in CUPTI's records"), std::string::npos);
}

// Counts and nouns the way a person writes them: never "1 replays", "3e+04 count" or "10.000000".
TEST(TextFormat, CountsAndPluralsReadAsWritten) {
  EXPECT_EQ(plural(1, "replay", "replays"), "1 replay");
  EXPECT_EQ(plural(std::size_t{2}, "launch", "launches"), "2 launches");
  EXPECT_EQ(plural(0, "node", "nodes"), "0 nodes");
  EXPECT_EQ(plural(30000u, "node", "nodes"), "30,000 nodes");
  EXPECT_EQ(plural(1.0, "launch", "launches"), "1 launch");
  EXPECT_EQ(plural(std::round(1.4), "replay", "replays"), "1 replay");
  EXPECT_EQ(plural(2.5, "run", "runs"), "2.5 runs");
  EXPECT_EQ(format_count(30000), "30,000");
  EXPECT_EQ(format_count(30000.5), "30,000.5");
  EXPECT_EQ(format_count(10.0), "10");
  EXPECT_EQ(format_count(2.25), "2.25");
  EXPECT_EQ(format_count(-1234567), "-1,234,567");
  EXPECT_EQ(format_count(0.125), "0.125");
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(NAN), "-");
  for (double v : {3e4, 3e4 + 0.5, 1e6, 123456.789, 1e15})
    EXPECT_EQ(format_count(v).find('e'), std::string::npos) << format_count(v);
}

// Kernel names of one model differ at their ends: a cut in the middle keeps them apart.
TEST(NameMatch, ClipMiddleKeepsBothEnds) {
  const std::string a = "triton_per_fused__fused_rms_norm__unsafe_view_mul_3";
  const std::string b = "triton_per_fused__fused_rms_norm__unsafe_view_mul_7";
  EXPECT_NE(clip_middle(a, 30), clip_middle(b, 30));
  EXPECT_EQ(display_width(clip_middle(a, 30)), 30u);
  EXPECT_EQ(clip_middle(a, 30).substr(0, 10), "triton_per");
  EXPECT_EQ(clip_middle("short", 30), "short");
  EXPECT_EQ(clip_middle("µµµµµµµµµµµµ", 5), "µµµ…µ");  // cut between code points
}

// A table column of kernel names: per-layer triton names (the suffix tells them apart) and the
// H200 serving app's nvjet names (the tile shape does) stay apart when cut, and fit the column.
TEST(NameMatch, ClipNamesApartKeepsEveryNameDistinct) {
  std::vector<std::string> names;
  for (int layer : {0, 1, 2, 3, 4, 5, 6}) names.push_back("triton_per_fused__fused_rms_norm__unsafe_view_mul_" + std::to_string(layer));
  names.push_back("nvjet_sm90_hsh_8x64_64x16_2x1_v_bz_bias_TNN");
  names.push_back("nvjet_sm90_hsh_64x8_64x16_4x2_h_bz_bias_TNT");
  names.push_back("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_bias_TNT");
  names.push_back("triton_per_fused__fused_rms_norm__unsafe_view_mul_3");  // a repeat stays equal to its twin
  for (std::size_t width : {40u, 30u, 20u, 12u}) {
    const std::vector<std::string> cut = clip_names_apart(names, width);
    ASSERT_EQ(cut.size(), names.size());
    for (std::size_t i = 0; i < cut.size(); ++i) {
      EXPECT_LE(display_width(cut[i]), width) << cut[i];
      for (std::size_t j = i + 1; j < cut.size(); ++j)
        EXPECT_EQ(cut[i] == cut[j], names[i] == names[j]) << width << ": " << cut[i] << " / " << cut[j];
    }
    EXPECT_EQ(cut[0].substr(0, 6), "triton") << cut[0];
  }
  // What the old 40-column cut from the right made of them: one row for seven layers.
  EXPECT_EQ(clip_columns(names[0], 40), clip_columns(names[6], 40));
  // Names that differ only in their middle (the tile shape) keep that part.
  const std::vector<std::string> tiles{"nvjet_sm90_hsh_8x64_64x16_2x1_v_bz_bias_TNN", "nvjet_sm90_hsh_8x64_64x16_4x2_v_bz_bias_TNN"};
  EXPECT_EQ(clip_middle(tiles[0], 24), clip_middle(tiles[1], 24));
  const std::vector<std::string> cut = clip_names_apart(tiles, 24);
  EXPECT_NE(cut[0], cut[1]);
  EXPECT_NE(cut[0].find("2x1"), std::string::npos) << cut[0];
  EXPECT_NE(cut[1].find("4x2"), std::string::npos) << cut[1];
  // Two that share even that window are numbered.
  const std::vector<std::string> late{"kernel_common_prefix_a_long_shared_middle_Q_part_x1",
                                      "kernel_common_prefix_a_long_shared_middle_R_part_x1",
                                      "kernel_common_prefix_b_long_shared_middle_Q_part_x1"};
  const std::vector<std::string> n = clip_names_apart(late, 20);
  EXPECT_EQ(n[0].substr(n[0].size() - 2), "~1") << n[0];
  EXPECT_EQ(n[1].substr(n[1].size() - 2), "~2") << n[1];
  EXPECT_NE(n[0], n[1]);
  EXPECT_NE(n[0], n[2]);
  EXPECT_NE(n[1], n[2]);
  for (const auto& x : n) EXPECT_LE(display_width(x), 20u) << x;
  // Names that fit are left alone.
  EXPECT_EQ(clip_names_apart({"fj_step", "fj_join"}, 40), (std::vector<std::string>{"fj_step", "fj_join"}));
}

TEST(NameMatch, ClosestNameSuggestsWithinTheEdits) {
  EXPECT_EQ(edit_distance("compre", "compare"), 1u);
  EXPECT_EQ(edit_distance("comapre", "compare"), 1u);  // a swap is one edit
  const std::vector<std::string> names{"analyze", "compare", "merge", "render", "report"};
  EXPECT_EQ(closest_name("compre", names, 2), "compare");
  EXPECT_EQ(closest_name("reprot", names, 2), "report");
  EXPECT_EQ(closest_name("frobnicate", names, 2), "");
}

}  // namespace
}  // namespace gp

TEST(WrapClauses, BreaksBetweenClausesAndKeepsShortSentencesWhole) {
  const std::string answer =
      "answer: graphs pay off (1.10x faster on the GPU or more) in 9 of 11 workloads; host never breaks even; "
      "device-launch (1.10x) gains less; fork-join gains most, 19.22x";
  EXPECT_EQ(gp::wrap_clauses(answer, 110),
            "answer: graphs pay off (1.10x faster on the GPU or more) in 9 of 11 workloads; host never breaks even;\n"
            "  device-launch (1.10x) gains less; fork-join gains most, 19.22x\n");
  EXPECT_EQ(gp::wrap_clauses("a; b", 110), "a; b\n");
  EXPECT_EQ(gp::wrap_clauses("", 110), "\n");
}

TEST(WrapClauses, BreaksAClauseWiderThanALineAtSpaces) {
  const std::string a(50, 'a'), b(50, 'b'), c(50, 'c');
  EXPECT_EQ(gp::wrap_clauses(a + " " + b + " " + c + "; d", 60), a + "\n  " + b + "\n  " + c + "; d\n");
  // No line is wider than the width unless one word is.
  const std::string text = "more: the same command with --verbose (every metric with its CI, the trace pass's detail); "
                           "graphprof report /a/very/long/path/to/the/report/of/this/run/report.json -o report.html (charts)";
  const std::string w = gp::wrap_clauses(text, 60);
  std::size_t start = 0;
  while (start < w.size()) {
    const std::size_t end = w.find('\n', start);
    EXPECT_LE(gp::display_width(w.substr(start, end - start)), 60u) << w;
    start = end + 1;
  }
}

TEST(WrapWords, WordLongerThanALineStaysWhole) {
  EXPECT_EQ(gp::wrap_words("x " + std::string(20, 'y') + " z", 10), "x\n  " + std::string(20, 'y') + "\n  z\n");
}

// Bytes that are not UTF-8 (a Latin-1 path, byte 0xff in an argument) become U+FFFD one byte at a
// time; well-formed text, multi-byte characters included, is kept as it is.
TEST(ValidUtf8, ReplacesEachByteOutsideAWellFormedSequence) {
  EXPECT_EQ(gp::valid_utf8("plain µs → ok 🙂"), "plain µs → ok 🙂");
  EXPECT_EQ(gp::valid_utf8("r\xe9sultats"), "r\xef\xbf\xbdsultats");
  EXPECT_EQ(gp::valid_utf8("x\xffy"), "x\xef\xbf\xbdy");
  EXPECT_EQ(gp::valid_utf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd") << "overlong";
  EXPECT_EQ(gp::valid_utf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd") << "surrogate";
  EXPECT_EQ(gp::valid_utf8("\xf4\x90\x80\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd") << "past U+10FFFF";
  EXPECT_EQ(gp::valid_utf8("end\xe2\x82"), "end\xef\xbf\xbd\xef\xbf\xbd") << "cut short";
  EXPECT_EQ(gp::valid_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));
  EXPECT_EQ(gp::json_text(nlohmann::json("r\xe9sultats")), "\"r\xef\xbf\xbdsultats\"");
}
