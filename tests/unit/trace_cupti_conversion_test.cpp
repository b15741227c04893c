// CUPTI records -> plain records, on the CPU: synthetic records are built in CUPTI's own structs
// (inside the trace layer's CUPTI files) and converted by the code that converts live buffers.
// Linked against graphprof_trace_cupti (see tests/cli/trace_cli_tests.cmake); needs no GPU.
#include <gtest/gtest.h>

#include <sstream>

#include "activity_lines.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/trace/cupti_session.hpp"

namespace gp {
namespace {

using Kind = SyntheticCuptiRecord::Kind;

TEST(CuptiConversion, KernelRecordsKeepTimesIdsAndLaunchShape) {
  SyntheticCuptiRecord k;
  k.kind = Kind::kKernel;
  k.start = 1000;
  k.end = 1700;
  k.device = 0;
  k.context = 1;
  k.stream = 17;
  k.correlation = 42;
  k.graph_id = 16;
  k.graph_node_id = (std::uint64_t{16} << 32) | 3;
  k.name = "_Z2kAPfi";
  k.grid[0] = 4096;
  k.block[0] = 256;
  k.static_shared = 128;
  k.dynamic_shared = 64;
  k.registers = 32;
  const TraceData d = convert_synthetic_cupti_records({k});
  ASSERT_EQ(d.kernels.size(), 1u);
  const KernelRecord& r = d.kernels[0];
  EXPECT_EQ(r.name, "_Z2kAPfi");
  EXPECT_EQ(r.start_ns, 1000u);
  EXPECT_EQ(r.end_ns, 1700u);
  EXPECT_EQ(r.context_id, 1u);
  EXPECT_EQ(r.stream_id, 17u);
  EXPECT_EQ(r.correlation_id, 42u);
  EXPECT_EQ(r.graph_id, 16u);
  EXPECT_EQ(r.graph_node_id, (std::uint64_t{16} << 32) | 3);
  EXPECT_EQ(r.grid, (std::array<int, 3>{{4096, 0, 0}}));
  EXPECT_EQ(r.block[0], 256);
  EXPECT_EQ(r.shared_bytes, 192);
  EXPECT_EQ(r.registers_per_thread, 32);
}

TEST(CuptiConversion, UnnamedKernelsGetAPlaceholder) {
  SyntheticCuptiRecord k;
  k.kind = Kind::kKernel;
  const TraceData d = convert_synthetic_cupti_records({k});
  ASSERT_EQ(d.kernels.size(), 1u);
  EXPECT_FALSE(d.kernels[0].name.empty());
}

TEST(CuptiConversion, CopiesAndMemsets) {
  SyntheticCuptiRecord c;
  c.kind = Kind::kMemcpy;
  c.copy_kind = 2;  // CUPTI_ACTIVITY_MEMCPY_KIND_DTOH
  c.bytes = 4096;
  c.start = 5;
  c.end = 9;
  c.correlation = 8;
  c.graph_id = 16;
  c.graph_node_id = (std::uint64_t{16} << 32) | 5;
  SyntheticCuptiRecord c2 = c;
  c2.copy_kind = 8;  // DTOD
  SyntheticCuptiRecord c3 = c;
  c3.copy_kind = 200;  // not a kind CUPTI defines
  SyntheticCuptiRecord m;
  m.kind = Kind::kMemset;
  m.value = 7;
  m.bytes = 1024;
  m.start = 1;
  m.end = 2;
  m.graph_node_id = 99;
  const TraceData d = convert_synthetic_cupti_records({c, c2, c3, m});
  ASSERT_EQ(d.memcpys.size(), 3u);
  EXPECT_EQ(d.memcpys[0].copy_kind, "DtoH");
  EXPECT_EQ(d.memcpys[1].copy_kind, "DtoD");
  EXPECT_EQ(d.memcpys[2].copy_kind, "unknown");
  EXPECT_EQ(d.memcpys[0].bytes, 4096u);
  EXPECT_EQ(d.memcpys[0].graph_node_id, (std::uint64_t{16} << 32) | 5);
  ASSERT_EQ(d.memsets.size(), 1u);
  EXPECT_EQ(d.memsets[0].value, 7u);
  EXPECT_EQ(d.memsets[0].bytes, 1024u);
  EXPECT_EQ(d.memsets[0].graph_node_id, 99u);
}

TEST(CuptiConversion, RuntimeRecordsAreNamedWithoutTheVersionSuffix) {
  SyntheticCuptiRecord a;
  a.kind = Kind::kRuntime;
  a.cbid = 311;  // cudaGraphLaunch_v10000
  a.start = 10;
  a.end = 30;
  a.pid = 4;
  a.tid = 5;
  a.correlation = 77;
  SyntheticCuptiRecord b = a;
  b.cbid = 211;  // cudaLaunchKernel_v7000
  SyntheticCuptiRecord c = a;
  c.cbid = 505;  // __cudaLaunchKernel_v13000, what <<<>>> compiles to in CUDA 13
  const TraceData d = convert_synthetic_cupti_records({a, b, c});
  ASSERT_EQ(d.api.size(), 3u);
  EXPECT_EQ(d.api[0].name, "cudaGraphLaunch");
  EXPECT_EQ(d.api[0].cbid, 311u);
  EXPECT_EQ(d.api[0].correlation_id, 77u);
  EXPECT_EQ(d.api[0].thread_id, 5u);
  EXPECT_EQ(d.api[1].name, "cudaLaunchKernel");
  EXPECT_EQ(d.api[2].name, "__cudaLaunchKernel");
}

TEST(CuptiConversion, MarkerFlagsBecomeRangeStartsEndsAndInstants) {
  SyntheticCuptiRecord start;
  start.kind = Kind::kMarker;
  start.marker_flags = 1u << 1;  // START
  start.marker_id = 3;
  start.start = 100;
  start.name = "launch loop";
  start.domain = "graphprof";
  start.pid = 10;
  start.tid = 11;
  SyntheticCuptiRecord end = start;
  end.marker_flags = 1u << 2;  // END: CUPTI sends no name and no domain
  end.name = nullptr;
  end.domain = nullptr;
  end.start = 200;
  SyntheticCuptiRecord mark = start;
  mark.marker_flags = 1u << 0;  // INSTANTANEOUS
  mark.domain = nullptr;        // NVTX's default domain
  const TraceData d = convert_synthetic_cupti_records({start, end, mark});
  ASSERT_EQ(d.markers.size(), 3u);
  EXPECT_EQ(d.markers[0].kind, MarkerRecord::Kind::kStart);
  EXPECT_EQ(d.markers[0].name, "launch loop");
  EXPECT_EQ(d.markers[0].domain, "graphprof");
  EXPECT_EQ(d.markers[0].timestamp_ns, 100u);
  EXPECT_EQ(d.markers[0].thread_id, 11u);
  EXPECT_EQ(d.markers[1].kind, MarkerRecord::Kind::kEnd);
  EXPECT_EQ(d.markers[1].id, 3u);
  EXPECT_TRUE(d.markers[1].name.empty());
  EXPECT_EQ(d.markers[2].kind, MarkerRecord::Kind::kInstant);
  EXPECT_TRUE(d.markers[2].domain.empty());
}

TEST(CuptiConversion, GraphTracesAndUnknownKinds) {
  SyntheticCuptiRecord g;
  g.kind = Kind::kGraphTrace;
  g.correlation = 9;
  g.graph_id = 16;
  g.start = 50;
  g.end = 90;
  g.stream = 13;
  SyntheticCuptiRecord other;
  other.kind = Kind::kOther;
  const TraceData d = convert_synthetic_cupti_records({g, other, other});
  ASSERT_EQ(d.graph_traces.size(), 1u);
  EXPECT_EQ(d.graph_traces[0].correlation_id, 9u);
  EXPECT_EQ(d.graph_traces[0].graph_id, 16u);
  EXPECT_EQ(d.graph_traces[0].stream_id, 13u);
  EXPECT_EQ(d.graph_traces[0].end_ns, 90u);
  EXPECT_EQ(d.other_records, 2u);
}

// The two writers of cupti_activity.hpp's views: the trace session's Converter (records in memory)
// and the injection library's line writer, whose lines `profile` parses back. Fed the same CUPTI
// structs, they must keep the same fields with the same values.
TEST(CuptiConversion, TheInjectionLinesAndTheConverterKeepTheSameFields) {
  std::vector<SyntheticCuptiRecord> in;
  SyntheticCuptiRecord k;
  k.kind = Kind::kKernel;
  k.start = 1000, k.end = 1700, k.device = 1, k.context = 2, k.stream = 17, k.correlation = 42, k.graph_id = 16;
  k.graph_node_id = (std::uint64_t{16} << 32) | 3;
  k.name = "_Z6reduceILi256EEvPKfPf\"quoted\"";
  k.grid[0] = 4096, k.grid[1] = 2, k.grid[2] = 1;
  k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
  k.static_shared = 128, k.dynamic_shared = 4096, k.registers = 40;
  in.push_back(k);
  SyntheticCuptiRecord unnamed = k;
  unnamed.name = nullptr;
  unnamed.correlation = 43;
  in.push_back(unnamed);
  SyntheticCuptiRecord c;
  c.kind = Kind::kMemcpy;
  c.copy_kind = 1;  // HtoD
  c.bytes = 1u << 20;
  c.start = 2000, c.end = 2300, c.stream = 7, c.correlation = 50, c.graph_id = 3, c.graph_node_id = (std::uint64_t{3} << 32) | 1;
  in.push_back(c);
  SyntheticCuptiRecord m;
  m.kind = Kind::kMemset;
  m.value = 255, m.bytes = 64, m.start = 2400, m.end = 2410, m.correlation = 51;
  in.push_back(m);
  SyntheticCuptiRecord a;
  a.kind = Kind::kRuntime;
  a.cbid = 311, a.start = 900, a.end = 950, a.pid = 4, a.tid = 5, a.correlation = 42;
  in.push_back(a);
  SyntheticCuptiRecord g;
  g.kind = Kind::kGraphTrace;
  g.correlation = 9, g.graph_id = 16, g.start = 50, g.end = 90, g.stream = 13, g.device = 1, g.context = 2;
  in.push_back(g);
  SyntheticCuptiRecord marker;
  marker.kind = Kind::kMarker;
  marker.marker_flags = 1u;
  marker.name = "step";
  in.push_back(marker);
  SyntheticCuptiRecord other;
  other.kind = Kind::kOther;
  in.push_back(other);

  const TraceData conv = convert_synthetic_cupti_records(in);
  std::string lines = "{\"t\":\"process\",\"pid\":4,\"ppid\":1,\"ts\":1,\"cupti\":130001,\"level\":2,\"cmdline\":\"app\"}\n";
  auto name = [](const cupti_activity::Api& r) {
    static std::string n;
    n = "api" + std::to_string(r.cbid);
    return &n;
  };
  for (const SyntheticCuptiActivity& raw : synthetic_cupti_activity(in))
    inject::append_record(lines, reinterpret_cast<const CUpti_Activity*>(raw.data()), name);
  std::istringstream text(lines);
  const ProcessRecords parsed = parse_process_records(text, "lines");
  EXPECT_EQ(parsed.malformed_lines, 0u);
  const TraceData& line = parsed.trace;

  auto same_span = [](const GpuSpan& x, const GpuSpan& y) {
    EXPECT_EQ(x.start_ns, y.start_ns);
    EXPECT_EQ(x.end_ns, y.end_ns);
    EXPECT_EQ(x.device_id, y.device_id);
    EXPECT_EQ(x.context_id, y.context_id);
    EXPECT_EQ(x.stream_id, y.stream_id);
    EXPECT_EQ(x.correlation_id, y.correlation_id);
    EXPECT_EQ(x.graph_id, y.graph_id);
  };
  ASSERT_EQ(conv.kernels.size(), 2u);
  ASSERT_EQ(line.kernels.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    same_span(conv.kernels[i], line.kernels[i]);
    EXPECT_EQ(conv.kernels[i].graph_node_id, line.kernels[i].graph_node_id);
    EXPECT_EQ(conv.kernels[i].name, line.kernels[i].name);
    EXPECT_EQ(conv.kernels[i].grid, line.kernels[i].grid);
    EXPECT_EQ(conv.kernels[i].block, line.kernels[i].block);
    EXPECT_EQ(conv.kernels[i].shared_bytes, line.kernels[i].shared_bytes);
    EXPECT_EQ(conv.kernels[i].registers_per_thread, line.kernels[i].registers_per_thread);
  }
  EXPECT_EQ(line.kernels[0].name, "_Z6reduceILi256EEvPKfPf\"quoted\"");
  EXPECT_EQ(line.kernels[0].shared_bytes, 4224);
  ASSERT_EQ(conv.memcpys.size(), 1u);
  ASSERT_EQ(line.memcpys.size(), 1u);
  same_span(conv.memcpys[0], line.memcpys[0]);
  EXPECT_EQ(conv.memcpys[0].graph_node_id, line.memcpys[0].graph_node_id);
  EXPECT_EQ(conv.memcpys[0].copy_kind, line.memcpys[0].copy_kind);
  EXPECT_EQ(line.memcpys[0].copy_kind, "HtoD");
  EXPECT_EQ(conv.memcpys[0].bytes, line.memcpys[0].bytes);
  ASSERT_EQ(conv.memsets.size(), 1u);
  ASSERT_EQ(line.memsets.size(), 1u);
  same_span(conv.memsets[0], line.memsets[0]);
  EXPECT_EQ(conv.memsets[0].value, line.memsets[0].value);
  EXPECT_EQ(conv.memsets[0].bytes, line.memsets[0].bytes);
  ASSERT_EQ(conv.api.size(), 1u);
  ASSERT_EQ(line.api.size(), 1u);
  EXPECT_EQ(line.api[0].name, "api311");  // the writer's own name lookup
  EXPECT_EQ(conv.api[0].cbid, line.api[0].cbid);
  EXPECT_EQ(conv.api[0].start_ns, line.api[0].start_ns);
  EXPECT_EQ(conv.api[0].end_ns, line.api[0].end_ns);
  EXPECT_EQ(conv.api[0].process_id, line.api[0].process_id);
  EXPECT_EQ(conv.api[0].thread_id, line.api[0].thread_id);
  EXPECT_EQ(conv.api[0].correlation_id, line.api[0].correlation_id);
  ASSERT_EQ(conv.graph_traces.size(), 1u);
  ASSERT_EQ(line.graph_traces.size(), 1u);
  same_span(conv.graph_traces[0], line.graph_traces[0]);
  // What each keeps on purpose: the trace pass its NVTX markers, the line files none.
  EXPECT_EQ(conv.markers.size(), 1u);
  EXPECT_TRUE(line.markers.empty());
}

TEST(CuptiSession, WithoutAGpuTheSessionSaysWhyAndRecordsNothing) {
  // On the CPU-only CI machine CUPTI cannot subscribe; on a GPU host it can. Either way the
  // session must not throw, and a failed one must explain itself.
  TraceSession off(TraceLevel::kNone, 1 << 20);
  EXPECT_FALSE(off.ok());
  EXPECT_FALSE(off.reason().empty());
  TraceSession s(TraceLevel::kNode, 1 << 20);
  if (!s.ok()) EXPECT_FALSE(s.reason().empty());
  const TraceData d = s.collect();
  EXPECT_TRUE(d.kernels.empty());
  EXPECT_THROW(s.collect(), Error);
  trace_shutdown();
}

TEST(CuptiSession, TheInjectionLibraryIsCupti) {
  const std::string lib = nvtx_injection_library();
  ASSERT_FALSE(lib.empty());
  EXPECT_NE(lib.find("cupti"), std::string::npos) << lib;
  EXPECT_EQ(lib.front(), '/');
}

}  // namespace
}  // namespace gp
