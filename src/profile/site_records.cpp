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

}  // namespace

bool read_site_line(const std::string& t, const json& j, SiteRecords& out, std::uint64_t begin_ns) {
  if (t == "site") {
    CallSiteRecord site = read_site(j);
    read_module_identities(j, out.modules);
    out.sites.push_back(std::move(site));
  } else if (t == "sc") {
    records::SiteCallsRead line;
    records::read_site_calls(j, line);
    for (std::uint32_t co : line.correlations) {
      out.site_of_call[co] = line.site;
      if (line.weight != 1) out.weight_of_call[co] = line.weight;
    }
  } else if (t == "ap") {
    records::SiteCallsRead line;
    records::read_allocation_python(j, line);
    for (std::uint32_t co : line.correlations) out.python_of_allocation[co] = AllocationPythonRecord{line.site, line.shared};
  } else if (t == "mem") {
    records::MemorySampleLine line;
    records::read(j, line, begin_ns);
    MemorySample m;
    m.at = std::move(line.at);
    m.correlation_id = line.correlation;
    m.ts = line.ts;
    m.free = line.free;
    m.total = line.total;
    m.graph_used = line.graph_used;
    m.graph_used_high = line.graph_used_high;
    m.graph_reserved = line.graph_reserved;
    m.graph_reserved_high = line.graph_reserved_high;
    out.memory_samples.push_back(m);
  } else if (t == "mem_nodes") {
    records::MemoryNodesLine line;
    records::read(j, line);
    out.memory_nodes.push_back(MemoryNodesRecord{line.exec, line.graph, line.allocs, line.frees, line.bytes});
  } else if (t == "mem_op") {
    records::MemoryOpLine line;
    records::read(j, line, begin_ns);
    MemoryOpRecord m;
    m.op = line.op;
    m.memory_kind = line.memory_kind;
    m.pool_type = line.pool_type;
    m.bytes = line.bytes;
    m.address = line.address;
    m.ts = line.ts;
    m.pool_address = line.pool_address;
    m.correlation_id = line.correlation;
    m.async = line.is_async;
    out.memory_ops.push_back(m);
  } else if (t == "vmm") {
    records::VmmLine line;
    records::read(j, line, begin_ns);
    out.vmm_creates.push_back(VmmCreateRecord{line.correlation, line.ts, line.bytes});
  } else if (t == "py") {
    records::PythonFramesLine line;
    records::read(j, line);
    out.python_frames = PythonFramesRecord{std::move(line.mode), line.held, line.taken, line.wait_ns, line.slow, line.stopped, line.can_take};
  } else if (t == "site_cost") {
    records::SiteCostLine c;
    records::read(j, c);
    out.site_cost = SiteCostRecord{c.calls, c.ns, c.new_sites, c.new_ns, c.full_unwinds, c.skipped, c.first, c.every, c.every_max, c.named,
                                   c.named_ns};
  } else if (t == "step_range") {
    records::StepRangeLine line;
    records::read(j, line);
    out.step_ranges.name = std::move(line.name);
  } else if (t == "nvtx") {
    const auto ranges = records::read_nvtx_ranges(j);
    out.step_ranges.ranges.insert(out.step_ranges.ranges.end(), ranges.begin(), ranges.end());
  } else if (t == "nvtx_end") {
    records::NvtxEndRead line;
    records::read(j, line);
    out.step_ranges.ended = true;
    out.step_ranges.nvtx_inits = line.inits;
    out.step_ranges.other_ranges = line.others;
    out.step_ranges.open_ranges = line.open;
  } else if (t == "proc_start") {
    records::ProcessStartLine line;
    records::read(j, line, begin_ns);
    out.process_start_ns = line.ts;
    out.process_start_resolution_ns = static_cast<std::uint64_t>(line.resolution_ns);
  } else {
    return false;
  }
  return true;
}

}  // namespace gp
