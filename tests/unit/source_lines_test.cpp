// file:line of native call sites (src/profile/source_lines.cpp): frames of a small library loaded
// here (tests/unit/source_lines/source_lines_fixture.cpp, with and without debug information),
// named as the injection library names them (module, pc minus the module's load bias), resolved
// with addr2line to the lines the fixture's MARKER comments mark. Modules that cannot be read
// (no debug information, another build, gone, not ELF, no addr2line) keep function + offset.
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "graphprof/core/elf_identity.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/profile/source_lines.hpp"
#include "../../src/profile/site_analysis.hpp"

namespace gp {
namespace {

// The line of the fixture's source that holds `marker`.
int marker_line(const std::string& marker) {
  std::ifstream in(GRAPHPROF_SOURCE_LINES_SOURCE);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  ADD_FAILURE() << "no line with " << marker;
  return -1;
}

ModuleIdentityRecord identity_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  const std::string bytes = data.str();
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return ModuleIdentityRecord{elf_build_id(bytes.data(), bytes.size()), static_cast<std::uint64_t>(st.st_size),
                              static_cast<std::int64_t>(st.st_mtime)};
}

// A frame of `library` as the injection library records it: the return address of the call that
// `function` (a fixture function) makes, minus the library's load bias.
NativeFrameRecord frame_from(const char* library, const char* function) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(handle, nullptr) << dlerror();
  auto* fn = reinterpret_cast<std::uintptr_t (*)()>(dlsym(handle, function));
  EXPECT_NE(fn, nullptr) << function;
  const std::uintptr_t pc = fn();
  Dl_info info{};
  link_map* lm = nullptr;
  EXPECT_NE(dladdr1(reinterpret_cast<void*>(pc - 1), &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP), 0);
  NativeFrameRecord f;
  f.module = lm->l_name;
  f.offset = pc - lm->l_addr;
  f.function = function;
  f.function_offset = info.dli_saddr != nullptr ? pc - reinterpret_cast<std::uintptr_t>(info.dli_saddr) : 0;
  return f;  // the library stays loaded: its address must not be reused by another
}

SiteRecords one_site(const NativeFrameRecord& f, bool identified = true) {
  SiteRecords r;
  CallSiteRecord s;
  s.id = 1;
  s.api = "cudaLaunchKernel";
  s.native.push_back(f);
  r.sites.push_back(s);
  if (identified) r.modules[f.module] = identity_of(f.module);
  return r;
}

std::string base(const std::string& path) { return path.substr(path.rfind('/') + 1); }

TEST(SourceLines, FixtureHasABuildId) {
  EXPECT_FALSE(identity_of(GRAPHPROF_SOURCE_LINES_DEBUG).build_id.empty());
  EXPECT_EQ(identity_of(GRAPHPROF_SOURCE_LINES_SOURCE).build_id, "");  // not ELF
}

TEST(SourceLines, DirectCallResolvesToItsLine) {
  SiteRecords r = one_site(frame_from(GRAPHPROF_SOURCE_LINES_DEBUG, "fixture_direct"));
  SourceLineResolver().resolve(r);
  const auto& f = r.sites[0].native[0];
  ASSERT_EQ(f.source.size(), 1u);
  EXPECT_EQ(base(f.source[0].file), "source_lines_fixture.cpp");
  EXPECT_EQ(f.source[0].line, marker_line("MARKER: direct call"));
  EXPECT_NE(f.source[0].function.find("fixture_direct"), std::string::npos);
  EXPECT_EQ(r.source_lines_missing.at(f.module), "");

  const SiteSummary s = summarize_site(r.sites[0]);
  EXPECT_EQ(s.where, "source_lines_fixture.cpp:" + std::to_string(marker_line("MARKER: direct call")) + " in fixture_direct");
  EXPECT_EQ(s.function_where, "fixture_direct in " + base(GRAPHPROF_SOURCE_LINES_DEBUG));
  EXPECT_EQ(s.module, f.module);
  ASSERT_EQ(s.frames.size(), 1u);
  EXPECT_EQ(s.frames[0].line, marker_line("MARKER: direct call"));
  EXPECT_FALSE(s.frames[0].inlined);
  ASSERT_EQ(s.stack.size(), 1u);
  EXPECT_NE(s.stack[0].find(" at "), std::string::npos) << s.stack[0];
}

TEST(SourceLines, InlinedCallGivesBothLines) {
  SiteRecords r = one_site(frame_from(GRAPHPROF_SOURCE_LINES_DEBUG, "fixture_through_inline"));
  SourceLineResolver().resolve(r);
  const auto& f = r.sites[0].native[0];
  ASSERT_EQ(f.source.size(), 2u);
  EXPECT_EQ(f.source[0].line, marker_line("MARKER: inlined call"));
  EXPECT_NE(f.source[0].function.find("fixture::inlined_call"), std::string::npos) << f.source[0].function;
  EXPECT_EQ(f.source[1].line, marker_line("MARKER: inlined into"));
  EXPECT_NE(f.source[1].function.find("fixture_through_inline"), std::string::npos);

  const SiteSummary s = summarize_site(r.sites[0]);
  EXPECT_EQ(s.where, "source_lines_fixture.cpp:" + std::to_string(marker_line("MARKER: inlined call")) + " in fixture::inlined_call");
  ASSERT_EQ(s.frames.size(), 2u);
  EXPECT_TRUE(s.frames[0].inlined);
  EXPECT_FALSE(s.frames[1].inlined);
  EXPECT_EQ(s.frames[1].line, marker_line("MARKER: inlined into"));
}

TEST(SourceLines, WithoutDebugInformationKeepsFunctionAndOffset) {
  SiteRecords r = one_site(frame_from(GRAPHPROF_SOURCE_LINES_NODEBUG, "fixture_direct"));
  SourceLineResolver().resolve(r);
  const auto& f = r.sites[0].native[0];
  EXPECT_TRUE(f.source.empty());
  EXPECT_NE(r.source_lines_missing.at(f.module).find("no debug information"), std::string::npos) << r.source_lines_missing.at(f.module);
  const SiteSummary s = summarize_site(r.sites[0]);
  EXPECT_EQ(s.where, "fixture_direct in " + base(GRAPHPROF_SOURCE_LINES_NODEBUG));
  EXPECT_EQ(s.where, s.function_where);
}

TEST(SourceLines, AnotherBuildIsNotRead) {
  SiteRecords r = one_site(frame_from(GRAPHPROF_SOURCE_LINES_DEBUG, "fixture_direct"));
  r.modules.begin()->second.build_id = "00112233445566778899aabbccddeeff00112233";
  SourceLineResolver().resolve(r);
  EXPECT_TRUE(r.sites[0].native[0].source.empty());
  EXPECT_NE(r.source_lines_missing.begin()->second.find("another build"), std::string::npos);
}

TEST(SourceLines, OlderRecordsWithoutIdentityAreNotRead) {
  SiteRecords r = one_site(frame_from(GRAPHPROF_SOURCE_LINES_DEBUG, "fixture_direct"), false);
  SourceLineResolver().resolve(r);
  EXPECT_TRUE(r.sites[0].native[0].source.empty());
  EXPECT_NE(r.source_lines_missing.begin()->second.find("do not identify"), std::string::npos);
}

TEST(SourceLines, BogusModulesDoNotCrash) {
  SiteRecords r;
  CallSiteRecord s;
  s.id = 1;
  s.api = "cudaLaunchKernel";
  s.native = {NativeFrameRecord{"/nonexistent/libgone.so", 0x1234, "gone", 4, {}},
              NativeFrameRecord{GRAPHPROF_SOURCE_LINES_SOURCE, 0x10, "", 0, {}},  // not an ELF file
              NativeFrameRecord{"/", 0x10, "", 0, {}},                            // a folder
              NativeFrameRecord{"", 0x7f0000001000, "", 0, {}}};                 // JIT code: no module
  r.sites.push_back(s);
  r.modules["/nonexistent/libgone.so"] = ModuleIdentityRecord{"abcd", 10, 1};
  r.modules[GRAPHPROF_SOURCE_LINES_SOURCE] = identity_of(GRAPHPROF_SOURCE_LINES_SOURCE);
  r.modules["/"] = ModuleIdentityRecord{"", 4096, 0};
  SourceLineResolver().resolve(r);
  for (const auto& f : r.sites[0].native) EXPECT_TRUE(f.source.empty()) << f.module;
  EXPECT_NE(r.source_lines_missing.at("/nonexistent/libgone.so").find("not there"), std::string::npos);
  EXPECT_NE(r.source_lines_missing.at(GRAPHPROF_SOURCE_LINES_SOURCE).find("no debug information"), std::string::npos);
  EXPECT_FALSE(r.source_lines_missing.at("/").empty());
  EXPECT_EQ(r.source_lines_missing.count(""), 0u);
  EXPECT_EQ(summarize_site(r.sites[0]).where, "gone in libgone.so");
}

TEST(SourceLines, MissingToolIsSaidAndNothingResolved) {
  SiteRecords r = one_site(frame_from(GRAPHPROF_SOURCE_LINES_DEBUG, "fixture_direct"));
  SourceLineResolver("graphprof-no-such-addr2line").resolve(r);
  EXPECT_TRUE(r.sites[0].native[0].source.empty());
  EXPECT_NE(r.source_lines_missing.begin()->second.find("not found"), std::string::npos) << r.source_lines_missing.begin()->second;
}

// cuda_runtime.h's cudaLaunchKernel<T> inlined into the application's function: the site is the
// application's line, the runtime's stays in the stack.
TEST(SourceLines, TheRuntimesInlinedHeadersAreNotTheSite) {
  CallSiteRecord s;
  s.id = 3;
  s.api = "cudaLaunchKernel";
  NativeFrameRecord f{"/src/build/app", 0x1a2b, "main", 0x40, {}};
  f.source = {SourceLocation{"cudaError cudaLaunchKernel<char>(char const*, dim3, dim3, void**, unsigned long, CUstream_st*)",
                             "/usr/local/cuda/include/cuda_runtime.h", 216},
              SourceLocation{"main", "/src/app.cu", 40}};
  s.native.push_back(f);
  const SiteSummary sum = summarize_site(s);
  EXPECT_EQ(sum.where, "app.cu:40 in main");
  EXPECT_EQ(sum.function_where, "main in app");
  ASSERT_EQ(sum.stack.size(), 2u);
  EXPECT_NE(sum.stack[0].find("cuda_runtime.h:216"), std::string::npos) << sum.stack[0];
  EXPECT_NE(sum.stack[1].find("at /src/app.cu:40"), std::string::npos) << sum.stack[1];
}

// A tool that does not finish (a module with gigabytes of debug information) is stopped: the
// report does not wait for it.
TEST(SourceLines, ASlowToolIsStopped) {
  const std::string tool = ::testing::TempDir() + "graphprof_slow_addr2line.sh";
  {
    std::ofstream script(tool);
    script << "#!/bin/sh\nexec sleep 30\n";
  }
  ASSERT_EQ(::chmod(tool.c_str(), 0755), 0);
  SiteRecords r = one_site(frame_from(GRAPHPROF_SOURCE_LINES_DEBUG, "fixture_direct"));
  SourceLineResolver(tool, 200).resolve(r);  // had it waited the 30 s, the reason would be "no debug information"
  EXPECT_TRUE(r.sites[0].native[0].source.empty());
  EXPECT_NE(r.source_lines_missing.begin()->second.find("did not finish"), std::string::npos) << r.source_lines_missing.begin()->second;
  std::remove(tool.c_str());
}

TEST(SourceLines, ParsesInlinedDiscriminatorsAndUnknowns) {
  const auto out = parse_addr2line_output(
      "0x0000000000001139\n"
      "inner(int)\n"
      "/src/a.h:12 (discriminator 3)\n"
      "outer()\n"
      "/src/a.cpp:40\n"
      "0x0000000000002000\n"
      "??\n"
      "??:0\n"
      "0x0000000000002010\n"
      "f\n"
      "/src/b.cpp:?\n");
  ASSERT_EQ(out.size(), 1u);
  const auto& locs = out.at(0x1139);
  ASSERT_EQ(locs.size(), 2u);
  EXPECT_EQ(locs[0].function, "inner(int)");
  EXPECT_EQ(locs[0].file, "/src/a.h");
  EXPECT_EQ(locs[0].line, 12);
  EXPECT_EQ(locs[1].line, 40);
}

TEST(SourceLines, SiteLinesCarryModuleIdentities) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":7,\"ppid\":1,\"ts\":1,\"cupti\":\"13.0\",\"level\":2,\"sample\":\"all\",\"cmdline\":\"app\"}\n"
      "{\"t\":\"site\",\"s\":0,\"api\":\"cudaLaunchKernel\",\"n\":[[\"/x/app\",\"0x1a2b\",\"main\",43]],\"ni\":2,"
      "\"mi\":[[\"/x/app\",\"beef\",1234,1700000000]]}\n"
      "{\"t\":\"site\",\"s\":1,\"api\":\"cudaLaunchKernel\",\"n\":[[\"/x/app\",\"0x1a3b\",\"main\",59]],\"ni\":2}\n"
      "{\"t\":\"site\",\"s\":2,\"api\":\"cudaLaunchKernel\",\"n\":[],\"ni\":2,\"mi\":[[\"/x/app\",\"beef\"]]}\n");
  const ProcessRecords p = parse_process_records(in, "test");
  ASSERT_EQ(p.sites.sites.size(), 2u);  // the site with a bad `mi` is an unreadable line
  EXPECT_EQ(p.malformed_lines, 1u);
  ASSERT_EQ(p.sites.modules.count("/x/app"), 1u);
  EXPECT_EQ(p.sites.modules.at("/x/app").build_id, "beef");
  EXPECT_EQ(p.sites.modules.at("/x/app").size, 1234u);
  EXPECT_EQ(p.sites.modules.at("/x/app").mtime, 1700000000);
}

}  // namespace
}  // namespace gp
