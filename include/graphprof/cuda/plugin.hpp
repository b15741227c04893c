// The plugin side of the C boundary (graphprof/cuda/plugin_abi.h), header-only: it turns the
// workloads a library registered with GP_REGISTER_WORKLOAD into the gp_plugin table that
// graphprof reads. graphprof_add_workload() (CMake) generates the one line a plugin needs,
//     GP_PLUGIN_ENTRY("mywork", "1.0")
// in a source of its own; without CMake, write that line in exactly one source file.
// Every call catches what the workload throws: no exception crosses the boundary.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/plugin_abi.h"

namespace gp::plugin_detail {

inline void copy_text(char* dst, std::size_t cap, const std::string& s) {
  if (cap == 0) return;
  const std::size_t n = std::min(cap - 1, s.size());
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

// Runs f(); turns whatever it throws into a filled gp_plugin_error and GP_PLUGIN_FAILED.
template <typename F>
int32_t guarded(gp_plugin_error* err, F&& f) noexcept {
  try {
    f();
    return GP_PLUGIN_OK;
  } catch (const CudaError& e) {
    err->kind = GP_PLUGIN_ERROR_CUDA;
    err->cuda_code = static_cast<int32_t>(e.cuda_code());
    copy_text(err->api, sizeof(err->api), e.api());
    copy_text(err->message, sizeof(err->message), e.what());
  } catch (const Error& e) {
    err->kind = static_cast<int32_t>(e.code());
    copy_text(err->message, sizeof(err->message), e.what());
  } catch (const std::exception& e) {
    err->kind = static_cast<int32_t>(ExitCode::kInternal);
    copy_text(err->message, sizeof(err->message), e.what());
  } catch (...) {
    err->kind = static_cast<int32_t>(ExitCode::kInternal);
    copy_text(err->message, sizeof(err->message), "unknown exception");
  }
  return GP_PLUGIN_FAILED;
}

struct Instance {
  const WorkloadEntry* entry;
  std::unique_ptr<Workload> w;
};
inline Workload& of(void* p) { return *static_cast<Instance*>(p)->w; }

// The plugin-side LaunchContext for one call: the host's sink, the calls counted back.
inline LaunchContext context_of(const gp_plugin_launch* l) {
  LaunchContext ctx(reinterpret_cast<cudaStream_t>(l->stream));
  ctx.set_iteration(l->iteration);
  ctx.record_calls_with(l->record_call, l->record_user);
  return ctx;
}

inline void* create(uint32_t index, gp_plugin_error* err) {
  Instance* made = nullptr;
  guarded(err, [&] {
    const WorkloadEntry& e = registered_workloads().at(index);
    auto inst = std::make_unique<Instance>(Instance{&e, e.create()});
    made = inst.release();
  });
  return made;
}
inline void destroy(void* p) { delete static_cast<Instance*>(p); }

inline int32_t setup(void* p, uint32_t n, const char* const* keys, const char* const* values, gp_plugin_error* err) {
  return guarded(err, [&] {
    std::map<std::string, std::string> given;
    for (uint32_t i = 0; i < n; ++i) given[keys[i]] = values[i];
    const WorkloadInfo& info = static_cast<Instance*>(p)->entry->info;
    of(p).setup(Params(info.params, given, info.name));
  });
}
inline int32_t reset(void* p, CUstream_st* s, gp_plugin_error* err) {
  return guarded(err, [&] { of(p).reset(reinterpret_cast<cudaStream_t>(s)); });
}
inline int32_t enqueue(void* p, gp_plugin_launch* l, gp_plugin_error* err) {
  LaunchContext ctx = context_of(l);
  const int32_t rc = guarded(err, [&] { of(p).enqueue(ctx); });
  l->calls = ctx.calls();
  return rc;
}
inline int32_t build_graph(void* p, CUgraph_st* g, gp_plugin_error* err) {
  return guarded(err, [&] { of(p).build_graph(reinterpret_cast<cudaGraph_t>(g)); });
}
inline int32_t unsupported_reason(void* p, int32_t mode, char* buf, std::size_t cap, gp_plugin_error* err) {
  return guarded(err, [&] { copy_text(buf, cap, of(p).unsupported_reason(static_cast<Mode>(mode))); });
}
inline int32_t checksum(void* p, CUstream_st* s, char* buf, std::size_t cap, gp_plugin_error* err) {
  return guarded(err, [&] { copy_text(buf, cap, of(p).checksum(reinterpret_cast<cudaStream_t>(s))); });
}
inline int32_t before_replay(void* p, CUgraph_st* g, CUgraphExec_st** exec, gp_plugin_launch* l, gp_plugin_error* err) {
  LaunchContext ctx = context_of(l);
  GraphExec owned(reinterpret_cast<cudaGraphExec_t>(*exec));
  const int32_t rc = guarded(err, [&] { of(p).before_replay(reinterpret_cast<cudaGraph_t>(g), owned, ctx); });
  *exec = reinterpret_cast<CUgraphExec_st*>(owned.release());  // graphprof keeps owning it
  l->calls = ctx.calls();
  return rc;
}
inline int32_t extra_metrics(void* p, void (*emit)(void*, const char*, double), void* user, gp_plugin_error* err) {
  return guarded(err, [&] {
    for (const auto& [k, v] : of(p).extra_metrics()) emit(user, k.c_str(), v);
  });
}

// The table, built on the first call (static initialisation, and with it registration, is over).
struct Table {
  std::vector<std::vector<gp_plugin_param>> params;
  std::vector<gp_plugin_workload> workloads;
  gp_plugin plugin{};
};

inline std::string compiler_text() {
#if defined(__clang__)
  return std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
  return "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." + std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

inline const gp_plugin* make_plugin(const char* name, const char* version) {
  static const std::string compiler = compiler_text();
  static const Table table = [&] {
    Table t;
    const auto& entries = registered_workloads();
    for (const auto& e : entries) {
      std::vector<gp_plugin_param> ps;
      for (const auto& p : e.info.params) ps.push_back({p.name.c_str(), p.default_value.c_str(), p.help.c_str()});
      t.params.push_back(std::move(ps));
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const WorkloadInfo& info = entries[i].info;
      t.workloads.push_back({info.name.c_str(), info.description.c_str(), t.params[i].data(),
                             static_cast<uint32_t>(t.params[i].size()), entries[i].provides_graph ? 1 : 0});
    }
    gp_plugin& p = t.plugin;
    p.api_major = GP_PLUGIN_API_MAJOR;
    p.api_minor = GP_PLUGIN_API_MINOR;
    p.struct_size = sizeof(gp_plugin);
    p.workload_desc_size = sizeof(gp_plugin_workload);
    p.plugin_name = name;
    p.plugin_version = version;
    p.compiler = compiler.c_str();
    p.workload_count = static_cast<uint32_t>(t.workloads.size());
    p.workloads = t.workloads.data();
    p.create = &create;
    p.destroy = &destroy;
    p.setup = &setup;
    p.reset = &reset;
    p.enqueue = &enqueue;
    p.build_graph = &build_graph;
    p.unsupported_reason = &unsupported_reason;
    p.checksum = &checksum;
    p.before_replay = &before_replay;
    p.extra_metrics = &extra_metrics;
    return t;
  }();
  return &table.plugin;
}

}  // namespace gp::plugin_detail

// The plugin's C entry point; one per library (graphprof_add_workload generates it).
#define GP_PLUGIN_ENTRY(plugin_name, plugin_version)                                       \
  extern "C" __attribute__((visibility("default"))) const gp_plugin* graphprof_plugin(void) { \
    return ::gp::plugin_detail::make_plugin(plugin_name, plugin_version);                   \
  }
