// duration_stats, which summarize_trace calls for every traced node, kernel name and API call:
// the same figures as summarize() to the last bit, found by selection in the caller's own vector
// (no copy, no sort). Its own binary: it replaces the global operator new to count allocations.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <utility>
#include <vector>

#include "graphprof/core/stats.hpp"
#include "graphprof/trace/trace_analysis.hpp"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace gp {
namespace {

void expect_as_summarize(const std::vector<double>& values) {
  const Summary want = summarize(values);
  const DurationStats got = duration_stats(values);
  ASSERT_EQ(got.count, want.n);
  // Bit for bit: the goldens of the trace outputs must not move.
  EXPECT_EQ(got.median, want.median);
  EXPECT_EQ(got.p10, want.p10);
  EXPECT_EQ(got.p90, want.p90);
  EXPECT_EQ(got.mean, want.mean);
  double total = 0;
  for (double v : values) total += v;
  if (std::isnan(total)) EXPECT_TRUE(std::isnan(got.total));
  else EXPECT_EQ(got.total, total);
}

TEST(DurationStats, SameFiguresAsSummarize) {
  std::mt19937_64 rng(7);
  for (std::size_t n : {1, 2, 3, 4, 5, 9, 10, 11, 20, 21, 99, 100, 101, 1000, 4097}) {
    std::vector<double> durations(n), ties(n);
    std::uniform_int_distribution<long> ns(400, 90000), few(1, 4);
    for (std::size_t i = 0; i < n; ++i) {
      durations[i] = static_cast<double>(ns(rng));  // trace durations: whole nanoseconds
      ties[i] = static_cast<double>(few(rng)) * 1000;
    }
    expect_as_summarize(durations);
    expect_as_summarize(ties);
    std::vector<double> sorted = durations, reversed = durations;
    std::sort(sorted.begin(), sorted.end());
    std::sort(reversed.rbegin(), reversed.rend());
    expect_as_summarize(sorted);
    expect_as_summarize(reversed);
  }
  expect_as_summarize({5, std::numeric_limits<double>::quiet_NaN(), 1, 3});  // not counted, as summarize
  const DurationStats none = duration_stats({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.median, 0);
}

// The samples handed over are selected in place: no copy, and no sort of a copy (summarize sorted
// a copy, then two more copies for the median absolute deviation that traces never print).
TEST(DurationStats, WorksInTheCallersVectorWithoutAllocating) {
  std::vector<double> durations;
  for (int i = 0; i < 100000; ++i) durations.push_back(static_cast<double>((i * 7919) % 100003));
  const long before = g_allocations.load();
  const DurationStats s = duration_stats(std::move(durations));
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(s.count, 100000u);
}

}  // namespace
}  // namespace gp
