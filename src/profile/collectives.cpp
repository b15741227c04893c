// NCCL kernels named as collectives (graphprof/profile/profile_ranks.hpp). NCCL names each device kernel
// after what it runs: ncclDevKernel_<Collective>_<Op>_<type>_<ALGORITHM>_<PROTOCOL> since 2.19
// (ncclDevKernel_AllReduce_Sum_f32_RING_LL, as recorded on two H200s with NCCL 2.28:
// tests/data/dot/allreduce_2ranks_graph_verbose.dot), ncclKernel_<Collective>_<ALGO>_<PROTO>_<Op>_<type>
// before; ncclDevKernel_Generic carries a batch of any kind. Neither the name nor CUPTI's kernel
// record tells the message size.
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "graphprof/graph/graph_model.hpp"
#include "graphprof/profile/profile_ranks.hpp"

namespace gp {

namespace {

std::vector<std::string> tokens_of(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == '_') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// CamelCase collective words, most specific first ("ReduceScatter" before "Reduce").
constexpr std::array<std::pair<const char*, const char*>, 10> kKinds{{{"ReduceScatter", "reduce-scatter"},
                                                                       {"AllReduce", "all-reduce"},
                                                                       {"AllGather", "all-gather"},
                                                                       {"AllToAll", "all-to-all"},
                                                                       {"AlltoAll", "all-to-all"},
                                                                       {"Broadcast", "broadcast"},
                                                                       {"SendRecv", "send-recv"},
                                                                       {"Generic", "collective (generic kernel)"},
                                                                       {"Reduce", "reduce"},
                                                                       {"Send", "send-recv"}}};

std::string dtype_of(const std::string& t) {
  static const std::array<std::pair<const char*, const char*>, 22> kTypes{{
      {"i8", "i8"},          {"u8", "u8"},       {"i32", "i32"},        {"u32", "u32"},       {"i64", "i64"},
      {"u64", "u64"},        {"f16", "f16"},     {"f32", "f32"},        {"f64", "f64"},       {"bf16", "bf16"},
      {"f8e4m3", "f8e4m3"},  {"f8e5m2", "f8e5m2"}, {"int8", "i8"},      {"uint8", "u8"},      {"int32", "i32"},
      {"uint32", "u32"},     {"int64", "i64"},   {"uint64", "u64"},     {"half", "f16"},      {"float", "f32"},
      {"double", "f64"},     {"bfloat16", "bf16"}}};
  const std::string l = lower(t);
  for (const auto& [word, name] : kTypes)
    if (l == word) return name;
  return {};
}

bool is_algorithm(const std::string& t) {
  for (const char* a : {"RING", "TREE", "NVLS", "NVLSTREE", "COLLNET", "DIRECT", "CHAIN", "PAT"})
    if (t == a) return true;
  return false;
}

bool is_protocol(const std::string& t) { return t == "LL" || t == "LL128" || t == "SIMPLE"; }

}  // namespace

std::optional<CollectiveKernel> nccl_collective_of(const std::string& recorded) {
  const std::string name = short_kernel_name(recorded);
  if (name.rfind("nccl", 0) != 0 || name.find("Kernel") == std::string::npos) return std::nullopt;
  CollectiveKernel c;
  for (const auto& [word, kind] : kKinds)
    if (name.find(word) != std::string::npos) {
      c.kind = kind;
      break;
    }
  // ncclDevKernel_* / ncclKernel_* are NCCL's device kernels whatever they run; another nccl...Kernel
  // name counts only when it names a collective (the oldest NCCL: ncclAllReduceRingLLKernel_sum_f32).
  const bool device_kernel = name.rfind("ncclDevKernel", 0) == 0 || name.rfind("ncclKernel", 0) == 0;
  if (c.kind.empty() && !device_kernel) return std::nullopt;
  if (c.kind.empty()) c.kind = "collective (kernel name not known)";
  std::vector<std::string> algo;
  for (const std::string& t : tokens_of(name)) {
    const std::string l = lower(t);
    if (c.op.empty() && (l == "sum" || l == "prod" || l == "min" || l == "max" || l == "avg" || l == "premulsum" ||
                         l == "sumpostdiv"))
      c.op = l;
    else if (c.dtype.empty() && !dtype_of(t).empty())
      c.dtype = dtype_of(t);
    else if (is_algorithm(t) || is_protocol(t))
      algo.push_back(t);
  }
  for (std::size_t i = 0; i < algo.size(); ++i) c.algorithm += (i ? "_" : "") + algo[i];
  return c;
}

}  // namespace gp
