// The record lines of CUPTI's activity records (the format is at the top of
// src/profile/profile_records.cpp), written from the views of src/trace/cupti_activity.hpp: the
// reading of CUPTI's structs is shared with the trace session's Converter, only the writing is
// here. Header-only: included by activity_records.cpp and by the CPU
// test that checks the two writers agree (tests/unit/trace_cupti_conversion_test.cpp).
#pragma once
#include <string>
#include <utility>

#include "cupti_activity.hpp"  // src/trace (an include directory of the targets that use it)
#include "inject_output.hpp"
#include "interpose_records.hpp"

namespace gp::inject {

namespace ca = gp::cupti_activity;

// The GPU fields kernel, memcpy and memset records share, in the line format's short keys.
inline void append_gpu_fields(std::string& s, const ca::Span& r) {
  appendf(s, "\"s\":%llu,\"e\":%llu,\"d\":%u,\"c\":%u,\"st\":%u,\"co\":%u,\"g\":%u,\"gn\":%llu",
          static_cast<unsigned long long>(r.start), static_cast<unsigned long long>(r.end), r.device, r.context, r.stream,
          r.correlation, r.graph, static_cast<unsigned long long>(r.graph_node));
}

inline void append_line(std::string& s, const ca::Kernel& k) {
  s += "{\"t\":\"k\",\"n\":";
  append_json_string(s, k.name);
  s += ',';
  append_gpu_fields(s, k.span);
  appendf(s, ",\"gr\":[%d,%d,%d],\"bl\":[%d,%d,%d],\"sh\":%d,\"rg\":%d}\n", k.grid[0], k.grid[1], k.grid[2], k.block[0],
          k.block[1], k.block[2], k.shared_bytes, k.registers);
}

inline void append_line(std::string& s, const ca::Memcpy& m) {
  appendf(s, "{\"t\":\"mc\",\"k\":\"%s\",\"b\":%llu,", m.copy_kind, static_cast<unsigned long long>(m.bytes));
  append_gpu_fields(s, m.span);
  s += "}\n";
}

inline void append_line(std::string& s, const ca::Memset& m) {
  appendf(s, "{\"t\":\"ms\",\"v\":%u,\"b\":%llu,", m.value, static_cast<unsigned long long>(m.bytes));
  append_gpu_fields(s, m.span);
  s += "}\n";
}

// `name`: the API's name without CUPTI's version suffix.
inline void append_line(std::string& s, const ca::Api& a, const std::string& name) {
  s += "{\"t\":\"a\",\"n\":";
  append_json_string(s, name.c_str());
  appendf(s, ",\"cb\":%u,\"dr\":%d,\"s\":%llu,\"e\":%llu,\"p\":%u,\"th\":%u,\"co\":%u,\"r\":%u}\n", a.cbid, a.runtime ? 0 : 1,
          static_cast<unsigned long long>(a.start), static_cast<unsigned long long>(a.end), a.process, a.thread,
          a.correlation, a.return_value);
}

inline void append_line(std::string& s, const ca::GraphTrace& g) {
  appendf(s, "{\"t\":\"gt\",\"co\":%u,\"g\":%u,\"s\":%llu,\"e\":%llu,\"d\":%u,\"c\":%u,\"st\":%u}\n", g.span.correlation,
          g.span.graph, static_cast<unsigned long long>(g.span.start), static_cast<unsigned long long>(g.span.end),
          g.span.device, g.span.context, g.span.stream);
}

// The memory ledger's allocations and frees.
inline void append_line(std::string& s, const ca::Memory& m) {
  s += gp::interpose::memory_op_line(m.operation, m.memory_kind, m.bytes, m.address, m.timestamp, m.correlation, m.stream,
                                     m.is_async != 0, m.pool_type, m.pool_address);
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
