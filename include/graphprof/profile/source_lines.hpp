// file:line for the native frames of call sites, read after the run in graphprof's own process
// (never in the profiled program): the records name each frame by module and module-relative
// address (pc minus the module's load bias, what a PIE executable's or a shared library's debug
// information is addressed by) and each module by its build ID, size and modification time. Per
// module whose file is still the one that ran, the addresses are looked up in one batch with
// binutils' addr2line (inlined frames included; a call stopped after a minute). A module without debug information, a file that
// changed or is gone, records of an older library without module identities, or no addr2line:
// the frames keep function + offset, and the module's reason is recorded once. Host-only;
// src/profile/source_lines.cpp is the one file that runs the tool.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "graphprof/profile/profile_sites.hpp"

namespace gp {

class SourceLineResolver {
 public:
  // `tool`: the addr2line to run (looked up in PATH when it has no '/'). One call that takes
  // longer than `timeout_ms` is stopped and its module keeps function + offset.
  explicit SourceLineResolver(std::string tool = "addr2line", int timeout_ms = 60000);

  // Fills NativeFrameRecord::source of every frame it can and records.source_lines_missing for
  // every module the sites name. Never throws for a module it cannot read; keeps what it learned
  // for later calls (the runs of `profile --repeat` share their modules).
  void resolve(SiteRecords& records);

 private:
  struct Module {
    std::string missing;  // why it has no lines ("" : it has)
    bool checked = false;
    std::map<std::uint64_t, std::vector<SourceLocation>> lines;  // by looked-up address
  };
  using Key = std::tuple<std::string, std::string, std::uint64_t, std::int64_t>;  // path + identity
  Module& check(const std::string& path, const ModuleIdentityRecord& id);
  void look_up(const std::string& path, Module& m, const std::vector<std::uint64_t>& addresses);

  std::string tool_;
  int timeout_ms_;
  std::map<Key, Module> modules_;
};

// The parse of addr2line's output for `-f -C -i -a` (exposed for its test): per address, the
// locations innermost first; a location it could not name ("??:0") is left out.
std::map<std::uint64_t, std::vector<SourceLocation>> parse_addr2line_output(const std::string& text);

}  // namespace gp
