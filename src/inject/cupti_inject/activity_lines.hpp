// The record lines of CUPTI's activity records (src/records/record_lines.hpp), from the views of
// src/trace/cupti_activity.hpp: the reading of CUPTI's structs is shared with the trace session's
// Converter, the lines are the codec's. Header-only: included by activity_records.cpp and by the CPU
// test that checks the two writers agree (tests/unit/trace_cupti_conversion_test.cpp).
#pragma once
#include <string>
#include <utility>

#include "cupti_activity.hpp"  // src/trace (an include directory of the targets that use it)
#include "record_lines.hpp"

namespace gp::inject {

namespace ca = gp::cupti_activity;

inline gp::records::GpuSpan gpu_span(const ca::Span& r) {
  return gp::records::GpuSpan{r.start, r.end, r.device, r.context, r.stream, r.correlation, r.graph, r.graph_node};
}

inline void append_line(std::string& s, const ca::Kernel& k) {
  gp::records::KernelLine line;
  line.name = k.name;
  line.span = gpu_span(k.span);
  line.grid = {k.grid[0], k.grid[1], k.grid[2]};
  line.block = {k.block[0], k.block[1], k.block[2]};
  line.shared_bytes = k.shared_bytes;
  line.registers = k.registers;
  gp::records::write(s, line);
}

inline void append_line(std::string& s, const ca::Memcpy& m) {
  gp::records::write(s, gp::records::MemcpyLine{m.copy_kind, m.bytes, gpu_span(m.span)});
}

inline void append_line(std::string& s, const ca::Memset& m) {
  gp::records::write(s, gp::records::MemsetLine{m.value, m.bytes, gpu_span(m.span)});
}

// `name`: the API's name without CUPTI's version suffix.
inline void append_line(std::string& s, const ca::Api& a, const std::string& name) {
  gp::records::ApiLine line;
  line.name = name.c_str();
  line.cbid = a.cbid;
  line.driver = !a.runtime;
  line.start = a.start;
  line.end = a.end;
  line.process = a.process;
  line.thread = a.thread;
  line.correlation = a.correlation;
  line.result = a.return_value;
  gp::records::write(s, line);
}

inline void append_line(std::string& s, const ca::GraphTrace& g) {
  gp::records::write(s, gp::records::GraphTraceLine{gpu_span(g.span)});
}

// The memory ledger's allocations and frees.
inline void append_line(std::string& s, const ca::Memory& m) {
  gp::records::write(s, gp::records::MemoryOpLine{static_cast<int>(m.operation), static_cast<int>(m.memory_kind), m.bytes, m.address,
                                                  m.timestamp, m.correlation, m.stream, m.is_async != 0,
                                                  static_cast<int>(m.pool_type), m.pool_address});
}

// A sink for cupti_activity::read that writes every kind the line format has (NVTX markers are
// not recorded by the injection library). `ApiNames` is called with each API record and returns its
// name without the version suffix, or nullptr for a record that is not to be written.
template <typename ApiNames>
struct LineWriter {
  std::string& s;
  ApiNames api_names;
  template <typename View>
  void operator()(const View& v) {
    append_line(s, v);
  }
  void operator()(const ca::Api& a) {
    if (const std::string* name = api_names(a)) append_line(s, a, *name);
  }
  void operator()(const ca::Marker&) {}
  void other(CUpti_ActivityKind) {}
};

template <typename ApiNames>
void append_record(std::string& s, const CUpti_Activity* r, ApiNames api_names) {
  LineWriter<ApiNames> w{s, std::move(api_names)};
  ca::read(r, w);
}

}  // namespace gp::inject
