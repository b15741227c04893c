// graphprof info: the GPU and software versions measurements will be made with.
#include <iostream>

#include "commands.hpp"
#include "help_format.hpp"
#include "graphprof/cuda/device.hpp"
#include "graphprof/core/version.hpp"

namespace gp::cli {

namespace {
std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }
}  // namespace

void setup_info(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("info", "Show the GPU, driver, runtime and CUPTI versions, clocks and host");
  auto device = std::make_shared<int>(0);
  sub->add_option("--device", *device, "CUDA device ordinal")->check(CLI::NonNegativeNumber)->capture_default_str();
  help_footer(sub, "Exit codes: 0 ok, 4 no GPU/driver.", {"graphprof info", "graphprof info --device 1"});
  sub->callback([device, &exit_code] {
    const HostInfo h = collect_host_info();
    const GpuInfo g = query_gpu(*device);
    std::cout << "graphprof " << kToolVersion << " (" << kGitRevision << ")\n"
              << "GPU " << g.ordinal << ":        " << g.name << "\n"
              << "  UUID:          " << g.uuid << "\n"
              << "  PCI bus:       " << g.pci_bus_id << "\n"
              << "  compute cap.:  " << g.cc_major << "." << g.cc_minor << "\n"
              << "  SMs:           " << g.sm_count << "\n"
              << "  memory:        " << g.global_memory_bytes / (1024 * 1024) << " MiB\n"
              << "  max SM clock:  " << g.clock_khz / 1000 << " MHz\n"
              << "  memory clock:  " << g.memory_clock_khz / 1000 << " MHz\n"
              << "driver (CUDA):   " << version_text(g.driver_version) << "\n"
              << "runtime:         " << version_text(g.runtime_version) << "\n"
              << "CUPTI:           " << (g.cupti_version ? std::to_string(g.cupti_version) : "unavailable") << "\n"
              << "NCCL:            " << kNcclStatus << "\n"
              << "host:            " << h.hostname << ", " << h.os << ", kernel " << h.kernel << "\n"
              << "CPU:             " << h.cpu_model << " (" << h.cpu_count << " threads)\n";
    exit_code = 0;
  });
}

}  // namespace gp::cli
