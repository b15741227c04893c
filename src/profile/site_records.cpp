// Reading the call-site and ledger lines (site_records.hpp).
#include "site_records.hpp"

#include <cstdlib>
#include <utility>

#include "record_fields.hpp"

namespace gp {

using nlohmann::json;
using records::field;

namespace {

// "0x1a2b" -> 0x1a2b; anything else makes the line unreadable.
std::uint64_t hex_offset(const json& v) {
  const std::string s = v.get<std::string>();
  if (s.size() < 3 || s.size() > 18 || s[0] != '0' || s[1] != 'x') throw std::out_of_range("offset: not a hex number");
  char* end = nullptr;
  const unsigned long long x = std::strtoull(s.c_str() + 2, &end, 16);
  if (end == nullptr || *end != '\0') throw std::out_of_range("offset: not a hex number");
  return x;
}

std::uint64_t non_negative(const json& v) {
  if (!v.is_number_unsigned()) throw std::out_of_range("not a non-negative integer");
  return v.get<std::uint64_t>();
}

// `mi`: [[module, build id, size, mtime], ...] (records of an older library have none).
void read_module_identities(const json& j, std::map<std::string, ModuleIdentityRecord>& out) {
  auto mi = j.find("mi");
  if (mi == j.end() || mi->is_null()) return;
  std::vector<std::pair<std::string, ModuleIdentityRecord>> read;
  for (const json& m : mi->get_ref<const json::array_t&>()) {
    if (!m.is_array() || m.size() != 4 || !m[3].is_number_integer())
      throw std::out_of_range("mi: a module is [path, build id, size, mtime]");
    read.emplace_back(m[0].get<std::string>(), ModuleIdentityRecord{m[1].get<std::string>(), non_negative(m[2]), m[3].get<std::int64_t>()});
  }
  for (auto& [path, id] : read) out[path] = std::move(id);
}

CallSiteRecord read_site(const json& j) {
  CallSiteRecord s;
  s.id = field<std::uint32_t>(j, "s");
  s.api = field<std::string>(j, "api");
  s.internal_frames = field<std::size_t>(j, "ni");
  // More frames than the library ever takes is an unreadable line: a site of a million frames cost
  // gigabytes in the analysis and the report.
  const auto frames = [](const json& list, const char* key) -> const json::array_t& {
    const auto& a = list.get_ref<const json::array_t&>();
    if (a.size() > records::kMaxSiteFrames) throw std::out_of_range(std::string(key) + ": more frames than a stack is read with");
    return a;
  };
  if (auto n = j.find("n"); n != j.end() && !n->is_null())
    for (const json& f : frames(*n, "n")) {
      if (!f.is_array() || f.size() != 4) throw std::out_of_range("n: a frame is [module, offset, function, offset]");
      s.native.push_back(NativeFrameRecord{f[0].get<std::string>(), hex_offset(f[1]), f[2].get<std::string>(), non_negative(f[3]), {}});
    }
  if (auto py = j.find("py"); py != j.end() && !py->is_null())
    for (const json& f : frames(*py, "py")) {
      if (!f.is_array() || f.size() != 3 || !f[1].is_number_integer())
        throw std::out_of_range("py: a frame is [file, line, function]");
      s.python.push_back(PythonFrameRecord{f[0].get<std::string>(), f[1].get<int>(), f[2].get<std::string>()});
    }
  return s;
}

// A line's `co` list of correlation ids, all read before any is kept: a bad line adds nothing.
std::vector<std::uint32_t> correlation_ids(const json& j) {
  std::vector<std::uint32_t> calls;
  for (const json& co : j.at("co").get_ref<const json::array_t&>()) {
    const std::uint64_t c = non_negative(co);
    if (c > UINT32_MAX) throw std::out_of_range("co: not a correlation id");
    calls.push_back(static_cast<std::uint32_t>(c));
  }
  return calls;
}

}  // namespace

bool read_site_line(const std::string& t, const json& j, SiteRecords& out, std::uint64_t begin_ns) {
  if (t == "site") {
    CallSiteRecord site = read_site(j);
    read_module_identities(j, out.modules);
    out.sites.push_back(std::move(site));
  } else if (t == "sc") {
    const std::uint32_t site = field<std::uint32_t>(j, "s");
    const std::vector<std::uint32_t> calls = correlation_ids(j);
    const std::uint32_t weight = field<std::uint32_t>(j, "w", 1u);
    if (weight == 0) throw std::out_of_range("w: a sampled call stands for at least itself");
    for (std::uint32_t c : calls) {
      out.site_of_call[c] = site;
      if (weight != 1) out.weight_of_call[c] = weight;
    }
  } else if (t == "ap") {
    const std::uint32_t site = field<std::uint32_t>(j, "s");
    const std::size_t shared = field<std::size_t>(j, "k");
    for (std::uint32_t c : correlation_ids(j)) out.python_of_allocation[c] = AllocationPythonRecord{site, shared};
  } else if (t == "mem") {
    MemorySample m;
    m.at = field<std::string>(j, "at");
    m.correlation_id = field<std::uint32_t>(j, "co");
    m.ts = records::timestamp(j, "ts", begin_ns, true);
    m.free = field<std::uint64_t>(j, "free");
    m.total = field<std::uint64_t>(j, "total");
    m.graph_used = field<std::uint64_t>(j, "gu");
    m.graph_used_high = field<std::uint64_t>(j, "guh");
    m.graph_reserved = field<std::uint64_t>(j, "gr");
    m.graph_reserved_high = field<std::uint64_t>(j, "grh");
    out.memory_samples.push_back(m);
  } else if (t == "mem_nodes") {
    out.memory_nodes.push_back(MemoryNodesRecord{field<std::uint32_t>(j, "exec"), field<std::uint32_t>(j, "graph"),
                                                 field<std::size_t>(j, "allocs"), field<std::size_t>(j, "frees"),
                                                 field<std::uint64_t>(j, "bytes")});
  } else if (t == "mem_op") {
    MemoryOpRecord m;
    m.op = field<int>(j, "op");
    m.memory_kind = field<int>(j, "mk");
    m.pool_type = field<int>(j, "pt");
    m.bytes = field<std::uint64_t>(j, "b");
    m.address = field<std::uint64_t>(j, "a");
    m.ts = records::timestamp(j, "ts", begin_ns, true);
    m.pool_address = field<std::uint64_t>(j, "pa");
    m.correlation_id = field<std::uint32_t>(j, "co");
    m.async = field<std::uint32_t>(j, "async") != 0;
    out.memory_ops.push_back(m);
  } else if (t == "vmm") {
    out.vmm_creates.push_back(
        VmmCreateRecord{field<std::uint32_t>(j, "co"), records::timestamp(j, "ts", begin_ns, true), field<std::uint64_t>(j, "b")});
  } else if (t == "py") {
    PythonFramesRecord p;
    p.mode = field<std::string>(j, "mode");
    p.held = field<std::uint64_t>(j, "held");
    p.taken = field<std::uint64_t>(j, "taken");
    p.wait_ns = field<std::uint64_t>(j, "wait_ns");
    p.slow = field<std::uint64_t>(j, "slow");
    p.stopped = field<int>(j, "stopped") != 0;
    p.can_take = field<int>(j, "can_take") != 0;
    out.python_frames = p;
  } else if (t == "site_cost") {
    out.site_cost = SiteCostRecord{field<std::uint64_t>(j, "calls"), field<std::uint64_t>(j, "ns"), field<std::uint64_t>(j, "new"),
                                   field<std::uint64_t>(j, "new_ns"), field<std::uint64_t>(j, "full_unwinds"),
                                   field<std::uint64_t>(j, "skipped", std::uint64_t{0}), field<std::uint32_t>(j, "first", 0u),
                                   std::max(1u, field<std::uint32_t>(j, "every", 1u)),
                                   std::max(1u, field<std::uint32_t>(j, "every_max", field<std::uint32_t>(j, "every", 1u))),
                                   field<std::uint64_t>(j, "named", std::uint64_t{0}), field<std::uint64_t>(j, "named_ns", std::uint64_t{0})};
  } else if (t == "step_range") {
    out.step_ranges.name = field<std::string>(j, "name");
  } else if (t == "nvtx") {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // all read before any is kept
    for (const json& r : j.at("r").get_ref<const json::array_t&>()) {
      const std::uint64_t start = non_negative(r.at(0)), end = non_negative(r.at(1));
      if (end < start) throw std::out_of_range("r: a range that ends before it starts");
      ranges.emplace_back(start, end);
    }
    out.step_ranges.ranges.insert(out.step_ranges.ranges.end(), ranges.begin(), ranges.end());
  } else if (t == "nvtx_end") {
    out.step_ranges.ended = true;
    out.step_ranges.nvtx_inits = field<std::uint64_t>(j, "inits");
    out.step_ranges.other_ranges = field<std::uint64_t>(j, "others");
    out.step_ranges.open_ranges = field<std::uint64_t>(j, "open");
  } else if (t == "proc_start") {
    out.process_start_ns = records::timestamp(j, "ts", begin_ns, true);
    out.process_start_resolution_ns = field<std::uint64_t>(j, "resolution_ns");
  } else {
    return false;
  }
  return true;
}

}  // namespace gp
