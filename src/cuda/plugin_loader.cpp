// The host side of the plugin boundary: dlopen, version checks, and a gp::Workload that calls
// through the plugin's C table. The one file that calls dlopen/dlsym.
#include "graphprof/cuda/plugin_loader.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/cuda/plugin_abi.h"

namespace gp {

namespace {

// What the plugin reported as a failure, thrown again on this side as the same category.
[[noreturn]] void rethrow(const gp_plugin_error& err, const std::string& where) {
  if (err.kind == GP_PLUGIN_ERROR_CUDA)
    throw CudaError(static_cast<cudaError_t>(err.cuda_code), err.api[0] != '\0' ? err.api : where, where.c_str(), 0);
  const std::string text = err.message[0] != '\0' ? std::string(err.message) : where + " failed";
  switch (err.kind) {
    case static_cast<int>(ExitCode::kUsage): throw usage_error(text);
    case static_cast<int>(ExitCode::kBadInput): throw input_error(text);
    case static_cast<int>(ExitCode::kEnvironment): throw environment_error(text);
    default: throw internal_error(where + ": " + text);
  }
}

void check(int32_t rc, const gp_plugin_error& err, const std::string& where) {
  if (rc != GP_PLUGIN_OK) rethrow(err, where);
}

// A workload of a loaded plugin; every call crosses the C table.
class PluginWorkload final : public Workload {
 public:
  PluginWorkload(const gp_plugin* p, uint32_t index, std::string name) : p_(p), name_(std::move(name)) {
    gp_plugin_error err{};
    h_ = p_->create(index, &err);
    if (h_ == nullptr) rethrow(err, name_ + ": create");
  }
  ~PluginWorkload() override { p_->destroy(h_); }
  PluginWorkload(const PluginWorkload&) = delete;
  PluginWorkload& operator=(const PluginWorkload&) = delete;

  void setup(const Params& params) override {
    std::vector<const char*> keys, values;
    for (const auto& [k, v] : params.values()) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
    }
    gp_plugin_error err{};
    check(p_->setup(h_, static_cast<uint32_t>(keys.size()), keys.data(), values.data(), &err), err, name_ + ": setup");
  }
  void reset(cudaStream_t s) override {
    gp_plugin_error err{};
    check(p_->reset(h_, s, &err), err, name_ + ": reset");
  }
  void enqueue(LaunchContext& ctx) override {
    gp_plugin_launch l = launch_of(ctx);
    gp_plugin_error err{};
    const int32_t rc = p_->enqueue(h_, &l, &err);
    ctx.add_calls(l.calls);
    check(rc, err, name_ + ": enqueue");
  }
  void build_graph(cudaGraph_t g) override {
    gp_plugin_error err{};
    check(p_->build_graph(h_, g, &err), err, name_ + ": build_graph");
  }
  std::string unsupported_reason(Mode m) const override {
    char buf[1024] = {};
    gp_plugin_error err{};
    check(p_->unsupported_reason(h_, static_cast<int32_t>(m), buf, sizeof(buf), &err), err,
          name_ + ": unsupported_reason");
    return buf;
  }
  std::string checksum(cudaStream_t s) override {
    char buf[1024] = {};
    gp_plugin_error err{};
    check(p_->checksum(h_, s, buf, sizeof(buf), &err), err, name_ + ": checksum");
    return buf;
  }
  void before_replay(cudaGraph_t g, GraphExec& exec, LaunchContext& ctx) override {
    gp_plugin_launch l = launch_of(ctx);
    gp_plugin_error err{};
    cudaGraphExec_t e = exec.release();
    const int32_t rc = p_->before_replay(h_, g, &e, &l, &err);
    exec.reset(e);
    ctx.add_calls(l.calls);
    check(rc, err, name_ + ": before_replay");
  }
  std::map<std::string, double> extra_metrics() override {
    std::map<std::string, double> out;
    gp_plugin_error err{};
    auto emit = [](void* user, const char* k, double v) { (*static_cast<std::map<std::string, double>*>(user))[k] = v; };
    check(p_->extra_metrics(h_, emit, &out, &err), err, name_ + ": extra_metrics");
    return out;
  }

 private:
  static gp_plugin_launch launch_of(const LaunchContext& ctx) {
    return gp_plugin_launch{ctx.stream(), ctx.iteration(), ctx.call_sink(), ctx.call_sink_user(), 0};
  }

  const gp_plugin* p_;
  std::string name_;
  void* h_ = nullptr;
};

std::string file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return digest_bytes(bytes.data(), bytes.size());
}

std::string text_or(const char* s, const char* fallback) { return s != nullptr && *s != '\0' ? s : fallback; }

}  // namespace

std::vector<std::string> load_plugin(const std::string& path) {
  const std::string what = "--load " + path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw input_error(what + ": no such file");
  // An absolute path, so dlopen never searches the library path for a bare file name.
  const std::string abs = std::filesystem::absolute(path).lexically_normal().string();
  dlerror();
  void* lib = dlopen(abs.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    throw input_error(what + ": cannot load it as a shared library: " + text_or(why, "unknown dlopen error"));
  }
  // The library is never closed: its workloads may run until the process ends, and unloading a
  // library that linked the CUDA runtime is not worth the risk.
  auto* entry = reinterpret_cast<gp_plugin_entry_fn>(dlsym(lib, GP_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr)
    throw input_error(what + ": not a graphprof plugin (it exports no " GP_PLUGIN_ENTRY_SYMBOL
                             "(); build it with graphprof_add_workload, docs/api.md)");
  const gp_plugin* p = entry();
  if (p == nullptr) throw input_error(what + ": " GP_PLUGIN_ENTRY_SYMBOL "() returned no plugin table");
  const std::string theirs = std::to_string(p->api_major) + "." + std::to_string(p->api_minor);
  if (p->api_major != GP_PLUGIN_API_MAJOR)
    throw input_error(what + ": built for graphprof plugin API " + theirs + ", this graphprof reads API " +
                      std::to_string(GP_PLUGIN_API_MAJOR) + ".x; rebuild the plugin against this graphprof's package");
  // The fields of API 1.0. A later 1.x appends fields: this check must then stay at the 1.0 sizes and
  // the new fields be read only when struct_size / workload_desc_size show the plugin has them.
  if (p->struct_size < sizeof(gp_plugin) || p->workload_desc_size < sizeof(gp_plugin_workload))
    throw input_error(what + ": plugin table of " + std::to_string(p->struct_size) + "/" +
                      std::to_string(p->workload_desc_size) + " bytes, API " + theirs + " needs at least " +
                      std::to_string(sizeof(gp_plugin)) + "/" + std::to_string(sizeof(gp_plugin_workload)) +
                      "; rebuild the plugin against this graphprof's package");
  if (p->create == nullptr || p->destroy == nullptr || p->setup == nullptr || p->reset == nullptr ||
      p->enqueue == nullptr || p->build_graph == nullptr || p->unsupported_reason == nullptr ||
      p->checksum == nullptr || p->before_replay == nullptr || p->extra_metrics == nullptr ||
      (p->workload_count > 0 && p->workloads == nullptr))
    throw input_error(what + ": plugin table is incomplete (a function pointer is missing)");

  auto origin = std::make_shared<PluginOrigin>();
  origin->library = path;
  origin->name = text_or(p->plugin_name, "?");
  origin->version = text_or(p->plugin_version, "?");
  origin->file_fnv1a64 = file_digest(abs);
  origin->api_major = p->api_major;
  origin->api_minor = p->api_minor;

  // Validate every entry before registering any, so a refused plugin leaves nothing behind.
  std::vector<WorkloadEntry> entries;
  for (uint32_t i = 0; i < p->workload_count; ++i) {
    const auto* d = reinterpret_cast<const gp_plugin_workload*>(reinterpret_cast<const char*>(p->workloads) +
                                                                 std::size_t{i} * p->workload_desc_size);
    if (d->name == nullptr || *d->name == '\0') throw input_error(what + ": workload " + std::to_string(i) + " has no name");
    WorkloadInfo info{d->name, text_or(d->description, ""), {}};
    for (uint32_t k = 0; k < d->param_count; ++k) {
      const gp_plugin_param& q = d->params[k];
      if (q.name == nullptr) throw input_error(what + ": workload " + info.name + " has a parameter without a name");
      info.params.push_back({q.name, text_or(q.default_value, ""), text_or(q.help, "")});
    }
    if (find_workload(info.name) != nullptr)
      throw input_error(what + ": workload '" + info.name + "' is already registered (bundled or loaded before)");
    for (const auto& e : entries)
      if (e.info.name == info.name) throw input_error(what + ": two workloads named '" + info.name + "'");
    std::string name = info.name;
    entries.push_back(WorkloadEntry{std::move(info),
                                    [p, i, name]() -> std::unique_ptr<Workload> {
                                      return std::make_unique<PluginWorkload>(p, i, name);
                                    },
                                    d->provides_graph != 0, origin});
  }
  if (entries.empty()) throw input_error(what + ": the plugin registers no workload");
  std::vector<std::string> names;
  for (auto& e : entries) {
    names.push_back(e.info.name);
    register_workload(std::move(e));
  }
  return names;
}

}  // namespace gp
