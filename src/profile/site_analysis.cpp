// Call sites and eager work by call site (site_analysis.hpp, docs/profile.md "Call sites").
#include "site_analysis.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>

#include "graphprof/graph/graph_model.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Frames of the CUDA runtime and driver, CUPTI and graphprof: how the call reached the API, not
// where the application made it.
bool runtime_function(const std::string& fn) {
  // libcudart_static_<hash>: the static runtime's internal functions (nvcc links it by default).
  if (starts_with(fn, "cuda") || starts_with(fn, "__cuda") || starts_with(fn, "cudart::") || starts_with(fn, "__device_stub") ||
      starts_with(fn, "void __device_stub") || starts_with(fn, "libcudart_static"))
    return true;
  return fn.size() > 2 && fn[0] == 'c' && fn[1] == 'u' && std::isupper(static_cast<unsigned char>(fn[2]));  // cuLaunchKernel
}

bool runtime_frame(const NativeFrameRecord& f) {
  const std::string b = base_name(f.module);
  for (const char* lib : {"libcudart.so", "libcuda.so", "libcupti.so", "libgraphprof_inject.so", "libgraphprof_interpose.so"})
    if (starts_with(b, lib)) return true;
  return runtime_function(f.function);
}

// A source line inside the CUDA runtime's headers (cuda_runtime.h's cudaLaunchKernel<T> inlined
// into the application) or nvcc's generated kernel stubs: not the application's line.
bool runtime_location(const SourceLocation& s) {
  if (runtime_function(s.function) || s.file.find(".cudafe1.") != std::string::npos) return true;
  const std::string b = base_name(s.file);
  return starts_with(b, "cuda_runtime") || starts_with(b, "cuda_device_runtime") || s.file.find("/include/crt/") != std::string::npos;
}

// "name(args)" -> "name" (templates and namespaces kept).
std::string without_arguments(const std::string& fn) {
  int depth = 0;
  for (std::size_t i = 0; i < fn.size(); ++i) {
    if (fn[i] == '<') ++depth;
    if (fn[i] == '>') --depth;
    if (fn[i] == '(' && depth == 0 && i > 0) return fn.substr(0, i);
  }
  return fn;
}

// An allocation call: its site names the memory ledger's allocations, it is no eager work.
bool allocation_api(const std::string& api) {
  return api.find("Malloc") != std::string::npos || starts_with(api, "cuMemAlloc") || api == "cuMemCreate";
}

// A frame of an allocator (PyTorch's c10::cuda::CUDACachingAllocator): an allocation's site is
// named by the first frame that called it, not by the allocator that made the CUDA call.
bool allocator_frame(const NativeFrameRecord& f) {
  return f.function.find("Allocator") != std::string::npos || f.function.find("allocator") != std::string::npos;
}

bool is_stub_of(const NativeFrameRecord& f, const std::vector<std::string>& kernels) {
  const std::string name = without_arguments(f.function);
  const std::size_t colon = name.rfind("::");
  const std::string last = colon == std::string::npos ? name : name.substr(colon + 2);
  return std::find(kernels.begin(), kernels.end(), last) != kernels.end();
}

std::string python_line(const PythonFrameRecord& f, bool full_path) {
  return (full_path ? f.file : base_name(f.file)) + ":" + std::to_string(f.line) + " in " + f.function;
}

std::string line_of(const SourceLocation& s) { return " at " + s.file + ":" + std::to_string(s.line); }

// A native frame's stack lines: the calls inlined at it first (innermost first), then the frame.
void native_lines(const NativeFrameRecord& f, std::vector<std::string>& out) {
  for (std::size_t i = 0; i + 1 < f.source.size(); ++i)
    out.push_back((f.source[i].function.empty() ? std::string("(inlined)") : f.source[i].function + " (inlined)") +
                  line_of(f.source[i]));
  const std::string module = f.module.empty() ? "(no module)" : f.module;
  const std::string at = f.source.empty() ? "" : line_of(f.source.back());
  if (f.function.empty()) {
    out.push_back(module + "+" + strf("0x%llx", static_cast<unsigned long long>(f.offset)) + at);
    return;
  }
  out.push_back(f.function + strf("+0x%llx", static_cast<unsigned long long>(f.function_offset)) + " in " + module +
                strf(" (0x%llx)", static_cast<unsigned long long>(f.offset)) + at);
}

void native_frames(const NativeFrameRecord& f, std::vector<SiteFrame>& out) {
  for (std::size_t i = 0; i + 1 < f.source.size(); ++i)
    out.push_back(SiteFrame{f.module, f.offset, f.source[i].function, f.source[i].file, f.source[i].line, true});
  SiteFrame frame{f.module, f.offset, f.function, "", 0, false};
  if (!f.source.empty()) {
    frame.file = f.source.back().file;
    frame.line = f.source.back().line;
  }
  out.push_back(std::move(frame));
}

// Once per module that names a site (an eager site, a graph's capture or instantiation) whose
// frames could not be given a source line: which module and why.
void note_missing_lines(const SiteRecords& r, SiteProfile& sp) {
  std::set<std::string> modules;
  for (const auto& e : sp.eager_sites) modules.insert(e.site.module);
  for (const auto& g : sp.graphs)
    for (const auto* site : {&g.capture_site, &g.instantiate_site})
      if (*site) modules.insert((*site)->module);
  for (const auto& m : modules) {
    const auto why = r.source_lines_missing.find(m);
    if (m.empty() || why == r.source_lines_missing.end() || why->second.empty()) continue;
    sp.source_line_notes.push_back("no file:line for the sites in " + base_name(m) + ": " + why->second);
  }
}

// The text of line `line` of a source file (trimmed, at most 240 bytes, control characters and
// bytes that are not UTF-8 replaced by '?'), or "" when it cannot be read. Only files named like
// source code are opened (a record may name any path); each file is read once.
std::string source_text(const std::string& path, int line) {
  static std::mutex mu;
  static std::map<std::string, std::vector<std::string>> files;
  if (line <= 0 || path.empty()) return {};
  static const char* const kSource[] = {".py", ".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl"};
  const std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || std::none_of(std::begin(kSource), std::end(kSource), [&](const char* e) { return path.compare(dot, std::string::npos, e) == 0; }))
    return {};
  std::lock_guard<std::mutex> lock(mu);
  auto it = files.find(path);
  if (it == files.end()) {
    std::vector<std::string> lines;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) < (16u << 20) && !ec) {
      std::ifstream in(path, std::ios::binary);
      for (std::string l; std::getline(in, l);) lines.push_back(std::move(l));
    }
    it = files.emplace(path, std::move(lines)).first;
  }
  if (static_cast<std::size_t>(line) > it->second.size()) return {};
  const std::string& raw = it->second[static_cast<std::size_t>(line) - 1];
  const std::size_t from = raw.find_first_not_of(" \t\r");
  if (from == std::string::npos) return {};
  const std::size_t to = raw.find_last_not_of(" \t\r");
  std::string text = raw.substr(from, std::min<std::size_t>(to + 1 - from, 240));
  for (char& ch : text)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
  return text;
}

}  // namespace

SiteSummary summarize_site(const CallSiteRecord& s, const std::vector<std::string>& kernels) {
  SiteSummary out;
  out.id = s.id;
  for (const auto& f : s.python) out.stack.push_back(python_line(f, true));
  for (const auto& f : s.native) {
    native_lines(f, out.stack);
    native_frames(f, out.frames);
  }
  auto named = [&out](std::string where, const char* from) {
    out.where = std::move(where);
    out.from = from;
    if (out.function_where.empty()) out.function_where = out.where;
    return out;
  };
  auto anchored = [&out](const std::string& file, const std::string& function, int line) {
    out.source_file = base_name(file);
    out.source_function = function;
    out.source_text = source_text(file, line);
  };
  for (const auto& f : s.python)
    if (!library_python(f.file)) {
      anchored(f.file, f.function, f.line);
      return named(python_line(f, false), "python");
    }
  if (!s.python.empty()) return named(python_line(s.python.front(), false) + " (library code)", "python");
  const bool allocation = allocation_api(s.api);
  for (auto it = s.native.begin(); it != s.native.end(); ++it) {
    const NativeFrameRecord& f = *it;
    if (runtime_frame(f) || is_stub_of(f, kernels) || (allocation && allocator_frame(f))) continue;
    out.module = f.module;
    // An allocation inside a library without symbols for its own frames (cuBLAS allocating under
    // cublasCreate): named by the library's entry point that was called, its first frame further
    // out that has a name, when only that library's frames lie between.
    const auto entry = allocation && f.function.empty() && !f.module.empty()
                           ? std::find_if(it, s.native.end(), [&](const NativeFrameRecord& g) { return g.module != f.module || !g.function.empty(); })
                           : s.native.end();
    if (entry != s.native.end() && entry->module == f.module)
      return named(without_arguments(entry->function) + " in " + base_name(f.module), "native");
    if (f.function.empty())
      out.function_where = (f.module.empty() ? std::string("(no module)") : base_name(f.module)) +
                           strf("+0x%llx", static_cast<unsigned long long>(f.offset));
    else
      out.function_where = without_arguments(f.function) + " in " + base_name(f.module);
    // With debug information: the innermost source line of the call outside the CUDA runtime's
    // headers (a function inlined there first), named by the function that line is in.
    auto line = std::find_if(f.source.begin(), f.source.end(), [](const SourceLocation& l) { return !runtime_location(l); });
    if (line != f.source.end()) {
      const SourceLocation& at = *line;
      const std::string fn = !at.function.empty() ? at.function : f.function;
      anchored(at.file, without_arguments(fn), at.line);
      return named(base_name(at.file) + ":" + std::to_string(at.line) + (fn.empty() ? "" : " in " + without_arguments(fn)), "native");
    }
    return named(out.function_where, f.function.empty() ? "module+offset" : "native");
  }
  return named("(no frame outside CUDA)", "unknown");
}

namespace {

std::string strip_version(const std::string& api) {
  const std::size_t v = api.rfind("_v");
  if (v != std::string::npos && v + 2 < api.size() && api.find_first_not_of("0123456789", v + 2) == std::string::npos)
    return api.substr(0, v);
  return api;
}

std::string kind_of_api(const std::string& api) {
  if (api.find("LaunchHostFunc") != std::string::npos) return "host function";
  if (api.find("Launch") != std::string::npos) return "kernel launch";
  if (api.find("Memcpy") != std::string::npos) return "copy";
  if (api.find("Memset") != std::string::npos) return "memset";
  if (api.find("Synchronize") != std::string::npos) return "sync";
  return "call";
}

struct GpuWork {
  double ns = 0;
  std::vector<std::string> kernels;  // short names, one per kernel
};

std::string hint_for(const EagerSite& s, const StepDefinition& step, std::uint64_t first_call_ns) {
  const bool sync = s.kind == "sync";
  const char* unit_one = s.kind == "copy" ? "copy" : s.kind == "memset" ? "memset" : sync ? "wait" : "launch";
  const char* unit_many = s.kind == "copy" ? "copies" : s.kind == "memset" ? "memsets" : sync ? "waits" : "launches";
  if (step.steps == 0) {
    if (sync) return "the host waits for the GPU here; no graph is launched in this process";
    return "no graph is launched in this process: capturing the loop that makes these calls would turn " +
           plural(s.calls, unit_one, unit_many) + " into graph launches";
  }
  const std::string graph = step.other_graphs > 0 ? "the step's graphs"
                            : step.graph_id == 0  ? "a graph of the step"
                                                  : "graph_" + std::to_string(step.graph_id);
  if (s.calls_in_steps == 0)
    return first_call_ns < step.first_ns ? "start-up only (before the first step): capturing it saves nothing per step"
                                         : "after the last step only: capturing it saves nothing per step";
  const double per = s.per_step.value_or(0);
  if (sync)
    return "the host waits for the GPU here " + plural(std::round(per), "time", "times") +
           " per step: a graph cannot hold a host wait; move it out of the step or make it asynchronous";
  if (per >= 0.95)
    return "runs between launches of " + graph + " every step: capturing it into " + graph + " would remove " +
           plural(std::round(per), unit_one, unit_many) + " per step";
  return strf("runs in %.0f %% of the steps: capture it with the step (one graph per variant)", 100.0 * per);
}

// --step-range NAME: a step is one occurrence of the NVTX range NAME when the records have any;
// otherwise the graph rule stays and range_missing says why.
void use_step_ranges(const StepRangeRecords& r, StepDefinition& step) {
  if (r.name.empty()) return;
  step.range_name = r.name;
  if (r.ranges.empty()) {
    if (!r.ended) step.range_missing = "the NVTX range '" + r.name + "' was not seen (the process ended before writing its ranges)";
    else if (r.nvtx_inits == 0) step.range_missing = "the NVTX range '" + r.name + "' never occurred: the process made no NVTX call";
    else
      step.range_missing = "the NVTX range '" + r.name + "' never occurred (" +
                           plural(r.other_ranges, "range", "ranges") + " of other names" +
                           (r.open_ranges > 0 ? ", " + plural(r.open_ranges, "range", "ranges") + " named so never ended" : "") + ")";
    return;
  }
  step.from = "nvtx range";
  step.steps = r.ranges.size();
  auto sorted = r.ranges;
  std::sort(sorted.begin(), sorted.end());
  step.windows.clear();
  for (const auto& w : sorted) {
    if (!step.windows.empty() && w.first <= step.windows.back().second) step.windows.back().second = std::max(step.windows.back().second, w.second);
    else step.windows.push_back(w);
  }
  step.first_ns = step.windows.front().first;
  step.last_ns = step.windows.back().second;
}

}  // namespace

// Python code that is not the application's: the libraries' trees, the standard library (by path:
// its sysconfig paths would take running Python code), generated code (a "<...>" file: <string>,
// <frozen ...>, FX's <eval_with_key>.N; Inductor's output).
bool library_python(const std::string& file) {
  if (file.empty() || file[0] == '<') return true;
  for (const char* p : {"/site-packages/", "/dist-packages/", "/torch/", "/triton/", "torchinductor", "/lib/python3", "/lib64/python3"})
    if (file.find(p) != std::string::npos) return true;
  return false;
}

bool StepDefinition::contains(std::uint64_t t) const {
  if (steps == 0) return false;
  if (windows.empty()) return t >= first_ns && t <= last_ns;
  auto it = std::upper_bound(windows.begin(), windows.end(), t,
                             [](std::uint64_t x, const std::pair<std::uint64_t, std::uint64_t>& w) { return x < w.first; });
  return it != windows.begin() && t <= std::prev(it)->second;
}

std::string capture_site_key(const SiteSummary& site) { return site.where.empty() ? "site " + std::to_string(site.id) : site.where; }

namespace {

// Where the capture of each graph began (capture_site_key), by graph id.
std::unordered_map<std::uint32_t, std::string> capture_sites_of_graphs(const ProcessRecords& p) {
  const SiteRecords& r = p.sites;
  std::unordered_map<std::uint32_t, std::string> capture_site_of_graph;
  std::unordered_map<std::uint32_t, const CallSiteRecord*> site_by_id;
  for (const auto& s : r.sites) site_by_id[s.id] = &s;
  std::map<std::uint32_t, std::uint32_t> open;  // stream -> its last BeginCapture's correlation
  for (const auto& c : p.captures) {
    if (c.begin) open[c.stream_id] = c.correlation_id;
    else if (c.return_value == 0 && c.graph_id != 0 && open.count(c.stream_id))
      if (auto s = r.site_of_call.find(open[c.stream_id]); s != r.site_of_call.end())
        if (auto rec = site_by_id.find(s->second); rec != site_by_id.end())
          capture_site_of_graph[c.graph_id] = capture_site_key(summarize_site(*rec->second));
  }
  return capture_site_of_graph;
}

// The step: one launch of the most-launched graph, or of any other graph captured at its site
// (the buckets of a server: one graph per batch size, one of them launched each step, however
// rarely a small bucket's sizes come; the shapes of torch.compile's CUDA-graph trees, one after
// another), but not a warm-up replay. One site as the re-captures count it (capture_site_key).
// With --step-range, one NVTX range instead where the records have any (use_step_ranges).
void find_step(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out) {
  SiteProfile& sp = out.sites;
  const GraphProfile* step_graph = nullptr;
  for (const auto& g : out.graphs)
    if (g.launches > 0 && (step_graph == nullptr || g.launches > step_graph->launches)) step_graph = &g;
  std::unordered_map<std::uint32_t, std::string> capture_site_of_graph = capture_sites_of_graphs(p);
  if (step_graph != nullptr) {
    const auto site = capture_site_of_graph.find(step_graph->exec.graph_id);
    std::vector<const ApiRecord*> launches;
    // A graph launched once before the loop began (a warm-up replay right after its capture) is not
    // a step's; one launched again, or after the most-launched graph's first launch, is.
    std::uint64_t loop_from = UINT64_MAX;
    if (auto it = in.launches_of_exec.find(step_graph->exec.exec_id); it != in.launches_of_exec.end())
      for (const ApiRecord* a : it->second) loop_from = std::min(loop_from, a->start_ns);
    auto in_loop = [&](const GraphProfile& g) {
      if (g.launches >= 2) return true;
      auto it = in.launches_of_exec.find(g.exec.exec_id);
      return it != in.launches_of_exec.end() &&
             std::any_of(it->second.begin(), it->second.end(), [&](const ApiRecord* a) { return a->start_ns > loop_from; });
    };
    for (const auto& g : out.graphs) {
      const bool same = &g == step_graph ||
                        (site != capture_site_of_graph.end() && capture_site_of_graph.count(g.exec.graph_id) &&
                         capture_site_of_graph[g.exec.graph_id] == site->second && in_loop(g));
      auto it = in.launches_of_exec.find(g.exec.exec_id);
      if (!same || it == in.launches_of_exec.end()) continue;
      launches.insert(launches.end(), it->second.begin(), it->second.end());
      if (&g != step_graph) ++sp.step.other_graphs;
    }
    if (!launches.empty()) {
      sp.step.from = sp.step.other_graphs > 0 ? "graphs captured at one site" : "most-launched graph";
      sp.step.exec_id = step_graph->exec.exec_id;
      sp.step.graph_id = step_graph->exec.graph_id;
      sp.step.steps = launches.size();
      sp.step.first_ns = UINT64_MAX;
      for (const ApiRecord* a : launches) {
        sp.step.first_ns = std::min(sp.step.first_ns, a->start_ns);
        sp.step.last_ns = std::max(sp.step.last_ns, a->end_ns);
      }
    }
  }
  use_step_ranges(p.sites.step_ranges, sp.step);
  if (!sp.step.range_missing.empty())
    out.warnings.push_back("--step-range " + sp.step.range_name + ": " + sp.step.range_missing +
                           (sp.step.steps > 0 ? "; a step is one launch of graph_" + std::to_string(sp.step.graph_id) + " instead"
                                              : "; no step is defined"));
}

// GPU work of eager calls, by correlation id.
std::unordered_map<std::uint32_t, GpuWork> eager_gpu_work(const TraceData& t) {
  std::unordered_map<std::uint32_t, GpuWork> work;
  for (const auto& k : t.kernels)
    if (k.graph_id == 0) {
      GpuWork& w = work[k.correlation_id];
      w.ns += k.end_ns > k.start_ns ? static_cast<double>(k.end_ns - k.start_ns) : 0.0;
      w.kernels.push_back(short_kernel_name(k.name));
    }
  for (const auto& m : t.memcpys)
    if (m.graph_id == 0) work[m.correlation_id].ns += m.end_ns > m.start_ns ? static_cast<double>(m.end_ns - m.start_ns) : 0.0;
  for (const auto& m : t.memsets)
    if (m.graph_id == 0) work[m.correlation_id].ns += m.end_ns > m.start_ns ? static_cast<double>(m.end_ns - m.start_ns) : 0.0;
  return work;
}

using SiteById = std::unordered_map<std::uint32_t, const CallSiteRecord*>;

// An eager site while its calls are added up.
struct SiteAcc {
  EagerSite s;
  std::map<std::string, std::size_t> kernels;
  std::uint64_t first_ns = UINT64_MAX;
};

// Eager calls grouped by site (`work`: their GPU work).
std::map<std::uint32_t, SiteAcc> eager_calls_by_site(const SiteRecords& r, const SiteInputs& in, const SiteById& site_by_id,
                                                     const std::unordered_map<std::uint32_t, GpuWork>& work, const StepDefinition& step) {
  std::map<std::uint32_t, SiteAcc> by_site;
  for (const auto& [co, site] : r.site_of_call) {
    if (in.captured_calls.count(co)) continue;
    auto sr = site_by_id.find(site);
    if (sr == site_by_id.end()) continue;
    const std::string api = strip_version(sr->second->api);
    if (api.find("BeginCapture") != std::string::npos || api.find("Instantiate") != std::string::npos || allocation_api(api)) continue;
    SiteAcc& a = by_site[site];
    if (a.s.calls == 0) {
      a.s.api = api;
      a.s.kind = kind_of_api(api);
    }
    // A call whose site was taken at random (--site-sample) stands for `weight` calls.
    const auto sampled = r.weight_of_call.find(co);
    const std::size_t weight = sampled != r.weight_of_call.end() ? sampled->second : 1;
    a.s.calls += weight;
    ++a.s.taken;
    auto ar = in.api_by_correlation.find(co);
    if (ar != in.api_by_correlation.end()) {
      const ApiRecord& call = *ar->second;
      a.s.host_ns += static_cast<double>(weight) * (call.end_ns > call.start_ns ? static_cast<double>(call.end_ns - call.start_ns) : 0.0);
      a.first_ns = std::min(a.first_ns, call.start_ns);
      if (step.contains(call.start_ns)) a.s.calls_in_steps += weight;
    }
    auto w = work.find(co);
    if (w != work.end()) {
      a.s.gpu_ns += static_cast<double>(weight) * w->second.ns;
      for (const auto& k : w->second.kernels) a.kernels[k] += weight;
    }
  }
  return by_site;
}

// Eager work by site, most GPU time first: stacks with the same innermost application frame and
// kind are one site.
void find_eager_sites(const ProcessRecords& p, const SiteInputs& in, const SiteById& site_by_id, SiteProfile& sp) {
  std::map<std::uint32_t, SiteAcc> by_site = eager_calls_by_site(p.sites, in, site_by_id, eager_gpu_work(p.trace), sp.step);
  std::map<std::pair<std::string, std::string>, SiteAcc> merged;
  for (auto& [id, a] : by_site) {
    std::vector<std::string> names;
    for (const auto& [name, n] : a.kernels) names.push_back(name);
    a.s.site = summarize_site(*site_by_id.at(id), names);
    auto [it, fresh] = merged.try_emplace({a.s.site.where, a.s.kind}, a);
    if (fresh) continue;
    SiteAcc& m = it->second;
    ++m.s.stacks;
    m.s.calls += a.s.calls;
    m.s.taken += a.s.taken;
    m.s.calls_in_steps += a.s.calls_in_steps;
    m.s.gpu_ns += a.s.gpu_ns;
    m.s.host_ns += a.s.host_ns;
    m.first_ns = std::min(m.first_ns, a.first_ns);
    for (const auto& [name, n] : a.kernels) m.kernels[name] += n;
  }
  for (auto& [key, a] : merged) {
    for (const auto& [name, n] : a.kernels) a.s.kernels.push_back(KernelCount{name, n});
    std::sort(a.s.kernels.begin(), a.s.kernels.end(),
              [](const KernelCount& x, const KernelCount& y) { return x.count != y.count ? x.count > y.count : x.name < y.name; });
    if (sp.step.steps > 0) a.s.per_step = static_cast<double>(a.s.calls_in_steps) / static_cast<double>(sp.step.steps);
    a.s.hint = hint_for(a.s, sp.step, a.first_ns);
    sp.eager_sites.push_back(std::move(a.s));
  }
  std::sort(sp.eager_sites.begin(), sp.eager_sites.end(), [](const EagerSite& a, const EagerSite& b) {
    if (a.gpu_ns != b.gpu_ns) return a.gpu_ns > b.gpu_ns;
    if (a.host_ns != b.host_ns) return a.host_ns > b.host_ns;
    return a.site.id < b.site.id;
  });
}

// cudaGraphExecUpdate and the exec SetParams calls.
void count_exec_changes(const std::vector<ApiRecord>& api, SiteProfile& sp) {
  for (const auto& a : api) {
    const bool update = starts_with(a.name, "cudaGraphExecUpdate") || starts_with(a.name, "cuGraphExecUpdate");
    const bool set_params = (starts_with(a.name, "cudaGraphExec") || starts_with(a.name, "cuGraphExec")) &&
                            a.name.find("SetParams") != std::string::npos;
    UpdateCounts* c = update ? &sp.exec_updates : set_params ? &sp.set_params : nullptr;
    if (c == nullptr) continue;
    ++c->calls;
    if (a.return_value != 0) ++c->failures;
  }
}

}  // namespace

void analyze_sites(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out) {
  SiteProfile& sp = out.sites;
  const SiteRecords& r = p.sites;
  sp.sites_recorded = !r.sites.empty();
  sp.ledgers_recorded = !r.memory_samples.empty() || r.process_start_ns != 0;
  sp.process_start_resolution_ns = r.process_start_resolution_ns;
  sp.python_frames = r.python_frames;
  sp.site_cost = r.site_cost;
  find_step(p, in, out);
  SiteById site_by_id;
  for (const auto& s : r.sites) site_by_id[s.id] = &s;
  find_eager_sites(p, in, site_by_id, sp);
  // Capture trouble, joined to where its capture began.
  for (auto& t : out.capture_trouble) {
    auto s = r.site_of_call.find(t.begin_correlation);
    if (t.begin_correlation != 0 && s != r.site_of_call.end() && site_by_id.count(s->second))
      t.site = summarize_site(*site_by_id[s->second]);
  }
  count_exec_changes(p.trace.api, sp);
  fill_ledgers(p, in, out);
  note_missing_lines(r, sp);
  analyze_step_kinds(p, in, out);
}

}  // namespace gp
