// The injection library's state (inject_state.hpp).
#include "inject_state.hpp"

#include <time.h>

#include "record_lines.hpp"

namespace gp::inject {

int g_level = 2;
gp::NodeSampling g_sample_rule;
bool g_dump_dot = true;
gp::inject::DevSwitches g_on;
bool g_api_selected = false;
std::string g_dir;
std::atomic<bool> g_end_written{false};
CUpti_SubscriberHandle g_subscriber = nullptr;
void (*g_interposer_end)(int) = nullptr;
std::atomic<unsigned long long> g_lost_buffers{0};
std::atomic<unsigned long long> g_buffers_done{0};
bool g_probe_enabled = false;
thread_local bool t_probing = false;
std::atomic<bool> g_probe_fired{false};
std::atomic<std::uint32_t> g_probe_correlation{0};
std::atomic<bool> g_probe_record_seen{false};
std::atomic<bool> g_callback_proven{false};
std::atomic<bool> g_record_proven{false};

std::uint64_t now_ns() {
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) == CUPTI_SUCCESS) return t;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::string cupti_error(CUptiResult r) {
  const char* name = nullptr;
  if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || name == nullptr) return "CUPTI error " + std::to_string(r);
  return name;
}

void write_error(const std::string& what) {
  std::string line;
  gp::records::write(line, gp::records::MessageLine{true, what});
  write_lines(line, true);
}

}  // namespace gp::inject
