// The injection library's call sites end to end (src/inject/common/call_site.cpp), without CUDA: calls
// from two places of this program are handed in as the interposer hands them, and the line file
// is read back. A new site is named (ELF symbols, demangling) on one thread of the library's own,
// not on the calling thread; what is still waiting at the end is named by the flush; every site a
// call names has its `site` line, with this program's function in it; the `site_cost` line counts
// the sites named off the calling threads.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "call_site.hpp"
#include "inject_output.hpp"
#include "ledger_samples.hpp"

// The ledger's CUDA calls are not part of this test: call_site.cpp calls these two for captures,
// instantiations and cuMemCreate only.
namespace gp::inject {
void take_sample(Sample, std::uint32_t) {}
void note_mem_create(std::uint32_t, const void*) {}
}  // namespace gp::inject

namespace {

std::uint32_t g_co = 0;

std::size_t threads_now() {
  std::size_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

}  // namespace

extern "C" __attribute__((noinline)) void gp_sites_test_from_a() {
  gp::inject::on_interposed_call("cudaLaunchKernel", ++g_co, gp::inject::kSiteEager);
  asm volatile("" ::: "memory");
}
extern "C" __attribute__((noinline)) void gp_sites_test_from_b() {
  gp::inject::on_interposed_call("cudaMemcpyAsync", ++g_co, gp::inject::kSiteEager);
  asm volatile("" ::: "memory");
}

TEST(InjectSites, NewSitesAreNamedOffTheCallingThreadAndEveryCalledSiteHasItsLine) {
  const std::string path = ::testing::TempDir() + "/inject_sites_test_" + std::to_string(getpid()) + ".jsonl";
  ::setenv("GRAPHPROF_PROFILE_SITES", "native", 1);
  ::setenv("GRAPHPROF_PROFILE_SITE_SAMPLE", "all", 1);
  ASSERT_TRUE(gp::inject::open_output(path));
  gp::inject::init_call_sites();
  ASSERT_TRUE(gp::inject::call_sites_enabled());

  const std::size_t before = threads_now();
  gp_sites_test_from_a();
  const std::size_t after_first = threads_now();
  for (int i = 0; i < 50; ++i) {
    gp_sites_test_from_a();
    gp_sites_test_from_b();
  }
  // One thread of the library's names the new sites; later new sites start no other.
  EXPECT_EQ(after_first, before + 1);
  EXPECT_EQ(threads_now(), after_first);
  gp::inject::flush_call_sites(true);

  std::ifstream in(path);
  ASSERT_TRUE(in.good());
  std::map<std::uint32_t, nlohmann::json> sites;
  std::map<std::uint32_t, std::size_t> calls_of;
  std::set<std::uint32_t> correlations;
  nlohmann::json cost;
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    const std::string t = j.at("t");
    if (t == "site") {
      EXPECT_EQ(sites.count(j.at("s").get<std::uint32_t>()), 0u) << "a site written twice: " << line;
      sites[j.at("s")] = j;
    } else if (t == "sc") {
      for (const auto& co : j.at("co")) {
        calls_of[j.at("s")] += 1;
        correlations.insert(co.get<std::uint32_t>());
      }
    } else if (t == "site_cost") {
      cost = j;
    }
  }
  std::remove(path.c_str());
  EXPECT_EQ(correlations.size(), g_co) << "every call is counted once";
  ASSERT_FALSE(calls_of.empty());
  std::size_t from_a = 0, from_b = 0;
  for (const auto& [id, n] : calls_of) {
    ASSERT_EQ(sites.count(id), 1u) << "site " << id << " has calls but no site line";
    const std::string frames = sites[id].at("n").dump();
    if (frames.find("gp_sites_test_from_a") != std::string::npos) from_a += n;
    if (frames.find("gp_sites_test_from_b") != std::string::npos) from_b += n;
  }
  // Each call is named by the function it was made from (ELF symbols of this program).
  EXPECT_EQ(from_a, 51u);
  EXPECT_EQ(from_b, 50u);
  ASSERT_TRUE(cost.is_object());
  EXPECT_EQ(cost.at("named").get<std::uint64_t>(), cost.at("new").get<std::uint64_t>());
  EXPECT_EQ(cost.at("named").get<std::uint64_t>(), sites.size());
  EXPECT_GT(cost.at("named_ns").get<std::uint64_t>(), 0u);
}
