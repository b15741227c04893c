// The NVTX side of `profile --step-range NAME` (nvtx_steps.hpp): the injection library's one
// translation unit that includes nvtx3. NVTX may initialise the library before CUDA does (a
// program's first range can come before its first CUDA call): the ranges are kept in memory until
// the line file is open, and written in batches after that.
#include "nvtx_steps.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "inject_output.hpp"
#include "record_lines.hpp"

#define GP_EXPORT __attribute__((visibility("default")))

namespace gp::inject {

namespace {

constexpr std::size_t kBatch = 1024;
constexpr std::uint64_t kOurs = 1ull << 63;  // a start/end id of a NAME range: kOurs | its start

std::once_flag g_name_once;
std::string g_name;  // NAME; empty: no step range asked for

std::mutex g_mu;
std::vector<std::pair<std::uint64_t, std::uint64_t>> g_pending;  // closed NAME ranges not yet written
bool g_output_open = false;                                      // init_step_ranges ran: lines can be written
std::atomic<unsigned> g_inits{0};
std::atomic<unsigned long long> g_others{0};
std::atomic<long long> g_open{0};  // NAME ranges started and not yet ended

// Per thread, the push/pop stack: the start of each pushed NAME range, 0 for another name.
thread_local std::vector<std::uint64_t> t_stack;

void read_name() {
  std::call_once(g_name_once, [] {
    const char* v = std::getenv("GRAPHPROF_PROFILE_STEP_RANGE");
    if (v != nullptr) g_name = v;
  });
}

bool is_name(const char* s) { return s != nullptr && g_name == s; }

bool is_name(const wchar_t* s) {
  if (s == nullptr) return false;
  std::size_t i = 0;
  for (; s[i] != L'\0'; ++i)
    if (i >= g_name.size() || static_cast<unsigned long>(s[i]) != static_cast<unsigned char>(g_name[i])) return false;
  return i == g_name.size();
}

// A registered string (nvtxDomainRegisterStringA/W): the handle is this library's copy of it.
struct Registered {
  bool name = false;
};

bool is_name(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return false;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return is_name(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE: return is_name(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered != nullptr && reinterpret_cast<const Registered*>(a->message.registered)->name;
    default: return false;
  }
}

// The pending ranges as an nvtx line ("" when none), emptied; under g_mu.
std::string take_pending_line() {
  std::string line;
  if (g_pending.empty()) return line;
  records::write(line, records::NvtxRangesLine{g_pending.data(), g_pending.size()});
  g_pending.clear();
  return line;
}

void closed(std::uint64_t start) {
  const std::uint64_t end = realtime_ns();
  g_open.fetch_sub(1, std::memory_order_relaxed);
  std::string line;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_pending.emplace_back(start, end);
    if (!g_output_open || g_pending.size() < kBatch) return;
    line = take_pending_line();
  }
  (void)write_lines(line, false);
}

int push(bool ours) {
  if (ours) g_open.fetch_add(1, std::memory_order_relaxed);
  else g_others.fetch_add(1, std::memory_order_relaxed);
  t_stack.push_back(ours ? realtime_ns() : 0);
  return static_cast<int>(t_stack.size()) - 1;
}

int pop() {
  if (t_stack.empty()) return -1;
  const std::uint64_t start = t_stack.back();
  t_stack.pop_back();
  if (start != 0) closed(start);
  return static_cast<int>(t_stack.size());
}

nvtxRangeId_t start(bool ours) {
  if (!ours) {
    g_others.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  g_open.fetch_add(1, std::memory_order_relaxed);
  return kOurs | realtime_ns();
}

void end(nvtxRangeId_t id) {
  if ((id & kOurs) != 0) closed(id & ~kOurs);
}

int NVTX_API push_a(const char* m) { return push(is_name(m)); }
int NVTX_API push_w(const wchar_t* m) { return push(is_name(m)); }
int NVTX_API push_ex(const nvtxEventAttributes_t* a) { return push(is_name(a)); }
int NVTX_API pop_core() { return pop(); }
nvtxRangeId_t NVTX_API start_a(const char* m) { return start(is_name(m)); }
nvtxRangeId_t NVTX_API start_w(const wchar_t* m) { return start(is_name(m)); }
nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t* a) { return start(is_name(a)); }
void NVTX_API end_core(nvtxRangeId_t id) { end(id); }
int NVTX_API domain_push(nvtxDomainHandle_t, const nvtxEventAttributes_t* a) { return push(is_name(a)); }
int NVTX_API domain_pop(nvtxDomainHandle_t) { return pop(); }
nvtxRangeId_t NVTX_API domain_start(nvtxDomainHandle_t, const nvtxEventAttributes_t* a) { return start(is_name(a)); }
void NVTX_API domain_end(nvtxDomainHandle_t, nvtxRangeId_t id) { end(id); }
// Registered strings live as long as the process (NVTX has no call to unregister one): kept in a
// list that is never destroyed (a handle may be used while the process exits), reachable to the end.
nvtxStringHandle_t keep_registered(bool name) {
  static std::mutex* mu = new std::mutex();
  static std::deque<Registered>* kept = new std::deque<Registered>();  // addresses stay put
  std::lock_guard<std::mutex> lock(*mu);
  kept->push_back(Registered{name});
  return reinterpret_cast<nvtxStringHandle_t>(&kept->back());
}
nvtxStringHandle_t NVTX_API register_a(nvtxDomainHandle_t, const char* s) { return keep_registered(is_name(s)); }
nvtxStringHandle_t NVTX_API register_w(nvtxDomainHandle_t, const wchar_t* s) { return keep_registered(is_name(s)); }

template <typename F>
void put(NvtxFunctionTable table, unsigned int size, unsigned int id, F f) {
  if (table != nullptr && id < size && table[id] != nullptr) *table[id] = reinterpret_cast<NvtxFunctionPointer>(f);
}

}  // namespace

void init_step_ranges() {
  read_name();
  if (g_name.empty()) return;
  std::string line;
  records::write(line, records::StepRangeLine{g_name});
  (void)write_lines(line, true);
  std::lock_guard<std::mutex> lock(g_mu);
  g_output_open = true;
}

std::string step_range_lines(bool may_wait) {
  read_name();
  std::string s;
  if (g_name.empty()) return s;
  std::unique_lock<std::mutex> lock(g_mu, std::defer_lock);
  if (may_wait) lock.lock();
  else if (!lock.try_lock()) return s;
  s = take_pending_line();
  records::write(s, records::NvtxEndLine{g_inits.load(), g_others.load(), std::max(0LL, g_open.load())});
  return s;
}

}  // namespace gp::inject

// Called by NVTX (each copy of it in the process: the program's, PyTorch's...) at its first call,
// because NVTX_INJECTION64_PATH names this library. 0 leaves that copy's NVTX calls as no-ops.
extern "C" GP_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  using namespace gp::inject;
  read_name();
  if (get_table == nullptr || g_name.empty()) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr)
    return 0;
  NvtxFunctionTable core = nullptr, core2 = nullptr;
  unsigned int core_size = 0, core2_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size) == 0 || core == nullptr) return 0;
  put(core, core_size, NVTX_CBID_CORE_RangePushA, push_a);
  put(core, core_size, NVTX_CBID_CORE_RangePushW, push_w);
  put(core, core_size, NVTX_CBID_CORE_RangePushEx, push_ex);
  put(core, core_size, NVTX_CBID_CORE_RangePop, pop_core);
  put(core, core_size, NVTX_CBID_CORE_RangeStartA, start_a);
  put(core, core_size, NVTX_CBID_CORE_RangeStartW, start_w);
  put(core, core_size, NVTX_CBID_CORE_RangeStartEx, start_ex);
  put(core, core_size, NVTX_CBID_CORE_RangeEnd, end_core);
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size) != 0 && core2 != nullptr) {
    put(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, domain_push);
    put(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, domain_pop);
    put(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx, domain_start);
    put(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd, domain_end);
    put(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA, register_a);
    put(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringW, register_w);
  }
  g_inits.fetch_add(1);
  return 1;
}
