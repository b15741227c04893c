// The record lines' codec (src/records/record_lines.hpp): every kind's writer gives one JSON line
// of its kind, the kinds with a reader read back what was written, a few lines are pinned to the
// byte, and a file of version 1 (no "v" in its process line) reads as before.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/profile/profile.hpp"
#include "record_lines.hpp"

namespace gp {
namespace {

using nlohmann::json;

// The one line `write` gave, parsed; its kind checked.
template <typename Line>
json written(const Line& line, const char* kind) {
  std::string s;
  records::write(s, line);
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.back(), '\n');
  EXPECT_EQ(s.find('\n'), s.size() - 1) << "one line: " << s;
  const json j = json::parse(s);
  EXPECT_EQ(j.at("t"), kind) << s;
  return j;
}

constexpr std::uint64_t kT0 = 1'700'000'000'000'000'000ull;

records::GpuSpan span() { return records::GpuSpan{kT0 + 10, kT0 + 20, 1, 2, 3, 4, 5, (5ull << 32) | 7}; }

void expect_span(const records::GpuSpan& a, const records::GpuSpan& b, bool node) {
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.context, b.context);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.correlation, b.correlation);
  EXPECT_EQ(a.graph, b.graph);
  if (node) EXPECT_EQ(a.graph_node, b.graph_node);
}

TEST(RecordLines, ProcessLineCarriesTheVersionAndReadsBack) {
  records::ProcessLine p;
  p.pid = 41;
  p.ppid = 1;
  p.ts = kT0;
  p.cupti = 130000;
  p.level = 0;
  p.observed = "interpose";
  p.cmdline = "python \"serve.py\"";
  p.observed_at = "runtime";
  p.observe_note = "a note";
  const json j = written(p, "process");
  EXPECT_EQ(j.at("v"), records::kFormatVersion);
  records::ProcessLine r;
  records::read(j, r);
  EXPECT_EQ(r.version, records::kFormatVersion);
  EXPECT_EQ(r.pid, 41);
  EXPECT_EQ(r.ts, kT0);
  EXPECT_EQ(r.level, 0);
  EXPECT_EQ(r.observed, "interpose");
  EXPECT_EQ(r.cmdline, p.cmdline);
  EXPECT_EQ(r.observed_at, "runtime");
  EXPECT_EQ(r.observe_note, "a note");
  EXPECT_EQ(j.count("observed_at_why"), 0u) << "written only when there is one";
  records::ProcessLine old;
  records::read(json::parse(R"({"t":"process","pid":1,"ppid":0,"ts":5,"cupti":1,"level":2,"cmdline":"a"})"), old);
  EXPECT_EQ(old.version, 1) << "a line without v is version 1";
  EXPECT_EQ(old.observed, "cupti");
}

TEST(RecordLines, ActivityAndApiLinesReadBack) {
  records::KernelLine k;
  k.name = "gemm<\"x\">";
  k.span = span();
  k.grid = {4, 2, 1};
  k.block = {128, 1, 1};
  k.shared_bytes = 1024;
  k.registers = 32;
  records::KernelLine kr;
  records::read(written(k, "k"), kr, kT0);
  EXPECT_EQ(kr.name, k.name);
  expect_span(kr.span, k.span, true);
  EXPECT_EQ(kr.grid, k.grid);
  EXPECT_EQ(kr.block, k.block);
  EXPECT_EQ(kr.shared_bytes, 1024);
  EXPECT_EQ(kr.registers, 32);

  records::MemcpyLine m{"HtoD", 4096, span()};
  records::MemcpyLine mr;
  records::read(written(m, "mc"), mr, kT0);
  EXPECT_EQ(mr.copy_kind, "HtoD");
  EXPECT_EQ(mr.bytes, 4096u);
  expect_span(mr.span, m.span, true);

  records::MemsetLine s{7, 64, span()};
  records::MemsetLine sr;
  records::read(written(s, "ms"), sr, kT0);
  EXPECT_EQ(sr.value, 7u);
  EXPECT_EQ(sr.bytes, 64u);
  expect_span(sr.span, s.span, true);

  records::GraphTraceLine g{span()};
  records::GraphTraceLine gr;
  records::read(written(g, "gt"), gr, kT0);
  expect_span(gr.span, g.span, false);

  records::ApiLine a;
  a.name = "cudaGraphLaunch";
  a.cbid = 311;
  a.driver = false;
  a.start = kT0 + 1;
  a.end = kT0 + 2;
  a.process = 9;
  a.thread = 10;
  a.correlation = 11;
  a.result = 0;
  std::string text;
  records::write(text, a);
  EXPECT_EQ(text, "{\"t\":\"a\",\"n\":\"cudaGraphLaunch\",\"cb\":311,\"dr\":0,\"s\":" + std::to_string(kT0 + 1) + ",\"e\":" +
                      std::to_string(kT0 + 2) + ",\"p\":9,\"th\":10,\"co\":11,\"r\":0}\n");
  records::ApiRead ar;
  records::read(json::parse(text), ar, kT0);
  EXPECT_EQ(ar.name, "cudaGraphLaunch");
  EXPECT_EQ(ar.line.cbid, 311u);
  EXPECT_EQ(ar.line.correlation, 11u);
  EXPECT_EQ(ar.line.thread, 10u);

  records::ApiLine reversed = a;
  reversed.end = kT0;
  std::string bad;
  records::write(bad, reversed);
  EXPECT_THROW(records::read(json::parse(bad), ar, kT0), records::EndsBeforeStart);

  const json op = written(records::MemoryOpLine{1, 3, 512, 0x1000, kT0, 12, 13, true, 1, 0x2000}, "mem_op");
  EXPECT_EQ(op.at("b"), 512);
  EXPECT_EQ(op.at("async"), 1);
  EXPECT_EQ(op.at("pa"), 0x2000);
}

TEST(RecordLines, GraphLinesReadBack) {
  records::ExecLine e{3, 4, 10, 9, 77, kT0, "/tmp/p1-exec3.dot", ""};
  records::ExecLine er;
  records::read(written(e, "exec"), er, kT0);
  EXPECT_EQ(er.exec, 3u);
  EXPECT_EQ(er.graph, 4u);
  EXPECT_EQ(er.nodes, 10u);
  EXPECT_EQ(er.edges, 9u);
  EXPECT_EQ(er.correlation, 77u);
  EXPECT_EQ(er.dot, e.dot);

  records::CaptureLine begin;
  begin.stream = 8;
  begin.mode = 1;
  begin.correlation = 5;
  records::CaptureLine br;
  records::read(written(begin, "capture_begin"), br);
  EXPECT_EQ(br.stream, 8u);
  EXPECT_EQ(br.mode, 1);
  records::CaptureLine end;
  end.begin = false;
  end.graph = 6;
  end.result = 900;
  records::CaptureLine cr;
  records::read(written(end, "capture_end"), cr);
  EXPECT_EQ(cr.graph, 6u);
  EXPECT_EQ(cr.result, 900);
  EXPECT_EQ(cr.mode, -1) << "capture_end has no mode";

  records::ExecCallLine ur;
  records::read(written(records::ExecCallLine{3, 78}, "upload"), ur);
  EXPECT_EQ(ur.exec, 3u);
  EXPECT_EQ(ur.correlation, 78u);

  records::ExecChangesLine xr;
  records::read(written(records::ExecChangesLine{3, 5, 2}, "ux"), xr);
  EXPECT_EQ(xr.set_params, 5u);
  EXPECT_EQ(xr.updates, 2u);

  const std::vector<std::uint32_t> co = {100, 101, 102};
  records::ExecLaunchesRead lr;
  records::read(written(records::ExecLaunchesLine{3, co.data(), co.size()}, "lx"), lr);
  EXPECT_EQ(lr.exec, 3u);
  EXPECT_EQ(lr.correlations, co);

  records::ClockLine clr;
  records::read(written(records::ClockLine{3, 50, kT0, kT0 + 9, kT0 + 12}, "clock"), clr);
  EXPECT_EQ(clr.launches, 50u);
  EXPECT_EQ(clr.settled, kT0 + 12);

  records::NodeCloneLine nr;
  records::read(written(records::NodeCloneLine{(3ull << 32) | 1, 44}, "nm"), nr);
  EXPECT_EQ(nr.original_node, 44u);

  records::KernelSwitchLine ks;
  ks.ts = kT0 + 3;
  ks.done_before = 9;
  ks.done_stream = 2;
  records::KernelSwitchLine ksr;
  records::read(written(ks, "ks"), ksr, kT0);
  EXPECT_FALSE(ksr.on);
  EXPECT_EQ(ksr.done_before, 9u);

  records::SwitchFailLine fr;
  records::read(written(records::SwitchFailLine{"cuEventQuery", 700}, "ks_fail"), fr);
  EXPECT_EQ(fr.call, "cuEventQuery");
  EXPECT_EQ(fr.result, 700);
  EXPECT_EQ(written(records::SwitchStatsLine{1, 2, 3, 4, 5, true, false}, "ks_stats").at("offs"), 5);
  EXPECT_EQ(written(records::MemoryNodesLine{3, 4, 2, 3u << 20, 1}, "mem_nodes").at("bytes"), 3u << 20);
}

TEST(RecordLines, ProcessEventLinesReadBack) {
  records::MessageLine mr;
  records::read(written(records::MessageLine{true, "no CUPTI"}, "error"), mr);
  EXPECT_EQ(mr.what, "no CUPTI");
  records::read(written(records::MessageLine{false, "a remark"}, "warning"), mr);
  EXPECT_EQ(mr.what, "a remark");

  records::EndLine e;
  e.reason = "SIGTERM";
  e.ts = kT0 + 100;
  e.dropped = 3;
  e.lost_buffers = 1;
  e.cupti = "graphprof";
  e.diagnosis = true;
  e.exit_ms = 1.25;
  e.fired = true;
  const json ej = written(e, "end");
  EXPECT_EQ(ej.at("probe").at("fired"), 1);
  records::EndLine er;
  records::read(ej, er, kT0);
  EXPECT_EQ(er.reason, "SIGTERM");
  EXPECT_EQ(er.dropped, 3u);
  EXPECT_EQ(er.lost_buffers, 1u);
  EXPECT_EQ(er.cupti, "graphprof");
  records::EndLine interposed;
  interposed.reason = "SIGSEGV";
  interposed.ts = 7;
  interposed.cupti = "unused";
  std::string text;
  records::write(text, interposed);
  EXPECT_EQ(text, "{\"t\":\"end\",\"reason\":\"SIGSEGV\",\"ts\":7,\"dropped\":0,\"lost_buffers\":0,\"cupti\":\"unused\"}\n");

  records::RankLine rank{"node1", "HOSTNAME", {{"RANK", "3"}, {"WORLD_SIZE", "8"}}};
  const json rj = written(rank, "rank");
  EXPECT_EQ(rj.at("env").at("RANK"), "3");
  EXPECT_EQ(rj.at("host_from"), "HOSTNAME");

  records::DeviceLine dr;
  records::read(written(records::DeviceLine{1, "0000:1b:00.0", "GPU-1234"}, "device"), dr);
  EXPECT_EQ(dr.ordinal, 1u);
  EXPECT_EQ(dr.uuid, "GPU-1234");

  records::CuptiNoticeLine cn;
  records::read(written(records::CuptiNoticeLine{"warning", "CUPTI_ERROR_X", "said"}, "cupti_notice"), cn);
  EXPECT_EQ(cn.kind, "warning");
  EXPECT_EQ(cn.message, "said");

  records::CuptiRefusedLine rr;
  records::read(written(records::CuptiRefusedLine{2, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED", "libtorch.so"}, "cupti_refused"), rr);
  EXPECT_EQ(rr.n, 2u);
  EXPECT_EQ(rr.caller, "libtorch.so");

  records::DroppedLine drop;
  records::read(written(records::DroppedLine{12}, "dropped"), drop);
  EXPECT_EQ(drop.n, 12u);
}

TEST(RecordLines, InterposerLinesReadBack) {
  records::InterposeCostLine cr;
  records::read(written(records::InterposeCostLine{1000, 16}, "ip_cost"), cr);
  EXPECT_EQ(cr.calls, 1000u);

  std::vector<std::pair<std::uint32_t, std::uint64_t>> pairs = {{1, 10}, {2, 20}, {3, 30}};
  std::string s;
  records::write_correlated(s, records::kLaunchGpuKind, pairs, 2);
  EXPECT_TRUE(pairs.empty());
  std::istringstream lines(s);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const auto a = records::read_correlated(json::parse(first), "gl", 100);
  const auto b = records::read_correlated(json::parse(second), "gl", 100);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0], (std::pair<std::uint32_t, std::uint64_t>{3, 30}));
  EXPECT_THROW(records::read_correlated(json::parse(first), "gl", 15), std::out_of_range) << "a value above the maximum";

  records::PauseWindowLine pr;
  records::read(written(records::PauseWindowLine{true, kT0, kT0 + 5, 4, 3}, "pw"), pr);
  EXPECT_TRUE(pr.recording);
  EXPECT_EQ(pr.launches, 4u);
}

TEST(RecordLines, SiteLedgerAndNvtxLinesAreTheirKind) {
  records::SiteLine site;
  site.id = 2;
  site.api = "cudaLaunchKernel";
  site.native = {{"/lib/libx.so", 0x1a2b, "f()", 16}};
  site.internal = 3;
  site.modules = {{"/lib/libx.so", "abcd", 4096, 17}};
  site.python = true;
  site.py = {{"model.py", 12, "forward"}};
  const json sj = written(site, "site");
  EXPECT_EQ(sj.at("n").at(0).at(1), "0x1a2b");
  EXPECT_EQ(sj.at("ni"), 3);
  EXPECT_EQ(sj.at("mi").at(0).at(1), "abcd");
  EXPECT_EQ(sj.at("py").at(0).at(2), "forward");
  const std::vector<std::uint32_t> co = {5, 6};
  EXPECT_EQ(written(records::SiteCallsLine{2, 1, co.data(), co.size()}, "sc").count("w"), 0u) << "w only when not 1";
  records::SiteCallsRead sc;
  records::read_site_calls(written(records::SiteCallsLine{2, 8, co.data(), co.size()}, "sc"), sc);
  EXPECT_EQ(sc.site, 2u);
  EXPECT_EQ(sc.weight, 8u);
  EXPECT_EQ(sc.correlations, co);
  records::SiteCallsRead ap;
  records::read_allocation_python(written(records::AllocationPythonLine{2, 4, co.data(), co.size()}, "ap"), ap);
  EXPECT_EQ(ap.shared, 4u);
  EXPECT_EQ(ap.correlations, co);
  records::SiteCostLine cost;
  cost.calls = 10;
  cost.every = 4;
  cost.every_max = 16;
  records::SiteCostLine cr;
  records::read(written(cost, "site_cost"), cr);
  EXPECT_EQ(cr.calls, 10u);
  EXPECT_EQ(cr.every_max, 16u);
  records::PythonFramesLine pr;
  records::read(written(records::PythonFramesLine{"held", 1, 2, 3, 4, false, true}, "py"), pr);
  EXPECT_EQ(pr.mode, "held");
  EXPECT_TRUE(pr.can_take);
  records::MemorySampleLine mr;
  records::read(written(records::MemorySampleLine{"capture_begin", 5, kT0, 100, 200, 1, 2, 3, 4}, "mem"), mr, kT0);
  EXPECT_EQ(mr.at, "capture_begin");
  EXPECT_EQ(mr.graph_reserved_high, 4u);
  records::MemoryNodesLine nr;
  records::read(written(records::MemoryNodesLine{3, 4, 2, 3u << 20, 1}, "mem_nodes"), nr);
  EXPECT_EQ(nr.bytes, 3u << 20);
  EXPECT_EQ(nr.frees, 1u);
  records::MemoryOpLine opr;
  records::read(written(records::MemoryOpLine{2, 3, 512, 0x1000, kT0, 12, 13, false, 0, 0}, "mem_op"), opr, kT0);
  EXPECT_EQ(opr.op, 2);
  EXPECT_EQ(opr.address, 0x1000u);
  records::VmmLine vr;
  records::read(written(records::VmmLine{5, kT0, 2u << 20}, "vmm"), vr, kT0);
  EXPECT_EQ(vr.bytes, 2u << 20);
  records::ProcessStartLine psr;
  records::read(written(records::ProcessStartLine{kT0, 10000000}, "proc_start"), psr, kT0);
  EXPECT_EQ(psr.resolution_ns, 10000000);
  records::StepRangeLine srr;
  records::read(written(records::StepRangeLine{"decode \"step\""}, "step_range"), srr);
  EXPECT_EQ(srr.name, "decode \"step\"");
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges = {{kT0, kT0 + 1}, {kT0 + 2, kT0 + 3}};
  EXPECT_EQ(records::read_nvtx_ranges(written(records::NvtxRangesLine{ranges.data(), ranges.size()}, "nvtx")), ranges);
  records::NvtxEndRead er;
  records::read(written(records::NvtxEndLine{1, 2, 0}, "nvtx_end"), er);
  EXPECT_EQ(er.others, 2u);
}

TEST(RecordLines, AFileOfVersionOneAndOneOfVersionTwoReadAlike) {
  const std::string rest = "{\"t\":\"exec\",\"exec\":1,\"graph\":2,\"nodes\":3,\"edges\":2,\"co\":4,\"ts\":0,\"dot\":\"\",\"dot_verbose\":\"\"}\n"
                           "{\"t\":\"end\",\"reason\":\"exit\",\"ts\":" + std::to_string(kT0 + 50) +
                           ",\"dropped\":0,\"lost_buffers\":0,\"cupti\":\"graphprof\"}\n";
  const std::string v1 = "{\"t\":\"process\",\"pid\":7,\"ppid\":1,\"ts\":" + std::to_string(kT0) +
                         ",\"cupti\":1,\"level\":0,\"sample\":\"\",\"observed\":\"cupti\",\"cmdline\":\"app\"}\n";
  records::ProcessLine p;
  p.pid = 7;
  p.ppid = 1;
  p.ts = kT0;
  p.cupti = 1;
  p.level = 0;
  p.cmdline = "app";
  std::string v2;
  records::write(v2, p);
  std::istringstream in1(v1 + rest), in2(v2 + rest);
  const ProcessRecords a = parse_process_records(in1, "v1"), b = parse_process_records(in2, "v2");
  for (const ProcessRecords* r : {&a, &b}) {
    EXPECT_EQ(r->malformed_lines, 0u) << r->source;
    EXPECT_EQ(r->trace.other_records, 0u) << r->source;
    EXPECT_EQ(r->pid, 7);
    EXPECT_EQ(r->begin_ns, kT0);
    EXPECT_EQ(r->end_ns, kT0 + 50);
    ASSERT_EQ(r->execs.size(), 1u);
    EXPECT_EQ(r->execs[0].nodes, 3u);
  }
}

}  // namespace
}  // namespace gp
