// Benchmark (not a test) of the offline graph commands on generated dumps in the driver's format:
//  - analyze: load + analyze a 100 000-node dump (target <= 2 s);
//  - render:  load + analyze + fold + lay out + write PNG/SVG of a 10 000-node dump (target <= 5 s).
//  - dense:   render of a dense fork-join (10 000 nodes, ~500 000 edges; target <= 10 s).
// Usage: graph_bench [--out DIR] [--analyze-nodes N] [--render-nodes N] [--dense-links L] [--repeat R]
//        graph_bench --write chain|layers|dense[-default] NODES [LINKS] FILE   (only write a dump
//        in the verbose or default form, e.g. for
//        measuring `graphprof analyze/render` under /usr/bin/time -v)
//        graph_bench --measure FILE   (load + analyze FILE once: time and the process's peak
//        memory, against the goal of "within about 4x the file")
// Prints the best and median of R runs per step; the pictures and dumps stay in DIR.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "dot_generator.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/graph/graph_render.hpp"
#include "graphprof/graph/graph_view.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// Wall time, and the process's CPU time, which other load on a shared machine disturbs less.
struct Timing {
  double best = 0, median = 0, cpu_median = 0;
};

Timing time_runs(int repeat, const std::function<void()>& body) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    body();
    cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    wall.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return Timing{wall.front(), wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void row(const std::string& what, const Timing& t, double target = 0) {
  std::printf("  %-56s wall best %6.3f s, median %6.3f s; cpu median %6.3f s", what.c_str(), t.best, t.median,
              t.cpu_median);
  if (target > 0) std::printf("  (target <= %.0f s: %s)", target, t.median <= target ? "met" : "missed");
  std::printf("\n");
}

std::string write_dump(const fs::path& dir, const std::string& name, const gp::bench::GeneratedDump& d) {
  const std::string path = (dir / name).string();
  gp::write_file_atomic(path, d.text);
  std::printf("  wrote %s: %zu nodes, %zu edges, %.1f MB\n", path.c_str(), d.nodes, d.edges,
              static_cast<double>(d.text.size()) / 1e6);
  return path;
}

// The process's peak resident memory so far (VmHWM), in bytes; 0 where /proc is missing.
double peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) * 1024.0;
  return 0;
}

// graph_bench --measure FILE: one load + analyze in a fresh process, so the peak is theirs.
int measure(const std::string& file) {
  const double size = static_cast<double>(fs::file_size(file));
  gp::GraphMetrics m;
  std::size_t nodes = 0, edges = 0;
  const Timing t = time_runs(1, [&] {
    const gp::GraphModel model = gp::load_dot(file);
    nodes = model.nodes.size();
    edges = model.edges.size();
    m = gp::analyze(model);
  });
  const double peak = peak_rss_bytes();
  std::printf("load + analyze %s (%.1f MB, %zu nodes, %zu edges): wall %.2f s, cpu %.2f s, peak RSS %.1f MB (%.1fx the file)\n",
              file.c_str(), size / 1e6, nodes, edges, t.median, t.cpu_median, peak / 1e6, peak / size);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path out = fs::temp_directory_path() / "graphprof_bench";
  std::size_t analyze_nodes = 100000, render_nodes = 10000;
  std::size_t dense_links = 50;
  int repeat = 3;
  if (argc == 3 && std::string(argv[1]) == "--measure") {
    try {
      return measure(argv[2]);
    } catch (const gp::Error& e) {
      std::cerr << "graph_bench: " << e.what() << "\n";
      return static_cast<int>(e.code());
    }
  }
  if (argc >= 5 && std::string(argv[1]) == "--write") {
    std::string kind = argv[2];
    const bool verbose = kind.size() < 8 || kind.compare(kind.size() - 8, 8, "-default") != 0;
    if (!verbose) kind.resize(kind.size() - 8);
    const std::size_t nodes = std::strtoull(argv[3], nullptr, 10);
    const bool with_links = argc >= 6;
    const std::string file = argv[with_links ? 5 : 4];
    const std::size_t links = with_links ? std::strtoull(argv[4], nullptr, 10) : dense_links;
    gp::bench::GeneratedDump d;
    if (kind == "chain") d = gp::bench::chain_dump(nodes, verbose);
    else if (kind == "layers") d = gp::bench::layered_dump(nodes, verbose);
    else if (kind == "dense") d = gp::bench::dense_dump(nodes, links, verbose);
    else {
      std::cerr << "graph_bench: --write takes chain, layers or dense (with -default: the default form)\n";
      return 2;
    }
    write_dump(fs::path(file).parent_path().empty() ? fs::path(".") : fs::path(file).parent_path(),
               fs::path(file).filename().string(), d);
    return 0;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--out") out = argv[i + 1];
    else if (a == "--analyze-nodes") analyze_nodes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--render-nodes") render_nodes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--dense-links") dense_links = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::cerr << "graph_bench: unknown option " << a << "\n";
      return 2;
    }
  }
  try {
    fs::create_directories(out);
    std::printf("graph_bench: %d runs per step, files in %s\n\n", repeat, out.string().c_str());

    std::printf("analyze (load + analysis)\n");
    for (bool verbose : {true, false}) {
      const std::string path = write_dump(out, std::string("layers_") + std::to_string(analyze_nodes) +
                                                   (verbose ? "_verbose.dot" : ".dot"),
                                          gp::bench::layered_dump(analyze_nodes, verbose));
      gp::GraphModel model;
      const Timing load = time_runs(repeat, [&] { model = gp::load_dot(path); });
      gp::GraphMetrics m;
      const Timing an = time_runs(repeat, [&] { m = gp::analyze(model); });
      const Timing both = time_runs(repeat, [&] { m = gp::analyze(gp::load_dot(path)); });
      const std::string form = verbose ? "verbose" : "default";
      row("load_dot, " + form + " form", load);
      row("analyze", an);
      row("load + analyze (= graphprof analyze), " + form, both, 2.0);
      std::printf("    -> depth %zu, max parallelism %zu, %zu findings\n", m.depth, m.max_parallelism, m.findings.size());
    }

    std::printf("\nrender (load + analyze + fold + Graphviz layout + write)\n");
    struct Case {
      std::string name;
      gp::bench::GeneratedDump dump;
    };
    std::vector<Case> cases;
    cases.push_back({"layers_" + std::to_string(render_nodes) + "_verbose", gp::bench::layered_dump(render_nodes, true)});
    cases.push_back({"chain_" + std::to_string(render_nodes) + "_verbose", gp::bench::chain_dump(render_nodes, true)});
    cases.push_back({"dense_" + std::to_string(render_nodes) + "x" + std::to_string(dense_links) + "_verbose",
                     gp::bench::dense_dump(render_nodes, dense_links, true)});
    for (const auto& c : cases) {
      const std::string path = write_dump(out, c.name + ".dot", c.dump);
      for (const char* fmt : {"png", "svg"}) {
        const std::string picture = (out / (c.name + "." + fmt)).string();
        std::size_t boxes = 0;
        const Timing t = time_runs(repeat, [&] {
          const gp::GraphModel model = gp::load_dot(path);
          const gp::GraphMetrics m = gp::analyze(model);
          const gp::GraphView v = gp::build_view(model, m, nullptr);
          boxes = v.boxes.size();
          gp::render_view(v, {picture, ""});
        });
        row("render " + c.name + " -> " + fmt + " (" + std::to_string(boxes) + " boxes)", t, 5.0);
      }
    }
    // Without folding, for scale: a tenth of the render size, every node drawn.
    const std::size_t small = std::max<std::size_t>(100, render_nodes / 10);
    const std::string path = write_dump(out, "layers_" + std::to_string(small) + "_verbose.dot",
                                        gp::bench::layered_dump(small, true));
    const Timing t = time_runs(1, [&] {
      const gp::GraphModel model = gp::load_dot(path);
      const gp::GraphMetrics m = gp::analyze(model);
      gp::ViewOptions o;
      o.collapse = gp::CollapseMode::kOff;
      gp::render_view(gp::build_view(model, m, nullptr, o), {(out / "layers_unfolded.svg").string(), ""});
    });
    row("render " + std::to_string(small) + " nodes unfolded -> svg (for scale; 1 run)", t);
  } catch (const gp::Error& e) {
    std::cerr << "graph_bench: " << e.what() << "\n";
    return static_cast<int>(e.code());
  }
  return 0;
}
