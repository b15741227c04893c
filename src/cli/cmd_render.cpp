// graphprof render FILE.dot -o out.png|svg|pdf: a readable picture of a CUDA graph dump, laid
// out by Graphviz in process. Short labels, colour by kind (or by measured time with --report),
// critical path in blue, long runs folded into counted boxes for large graphs.
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "graphprof/atomic_file.hpp"
#include "graphprof/error.hpp"
#include "graphprof/graph_analysis.hpp"
#include "graphprof/graph_render.hpp"
#include "graphprof/graph_view.hpp"
#include "graphprof/report.hpp"

namespace gp::cli {

namespace {

struct RenderCliOptions {
  std::string dot;
  std::string output;
  std::string format;
  std::string report;
  std::string workload;
  std::string mode;
  bool collapse = false;
  bool no_collapse = false;
  std::size_t max_boxes = 400;
};

int render_command(const RenderCliOptions& o) {
  if (o.report.empty() && (!o.workload.empty() || !o.mode.empty()))
    throw usage_error("--workload and --mode pick a result of --report; there is no --report");
  if (o.collapse && o.no_collapse) throw usage_error("--collapse and --no-collapse contradict each other");
  RenderOptions ro{o.output, o.format};
  render_format(ro);  // a bad -o name is a usage error before any work
  check_output_path("-o", o.output);
  const GraphModel model = load_dot(o.dot);
  for (const auto& w : model.warnings) std::cerr << "graphprof: warning: " << o.dot << ": " << w << "\n";
  std::optional<NodeTimes> times;
  if (!o.report.empty()) times = node_times_from_report(read_report(o.report), o.report, o.dot, o.workload, o.mode);
  if (times) add_gap_times(model, *times);
  const GraphMetrics metrics = analyze(model, times ? &*times : nullptr);
  ViewOptions vo;
  vo.collapse = o.collapse ? CollapseMode::kOn : (o.no_collapse ? CollapseMode::kOff : CollapseMode::kAuto);
  vo.max_boxes = o.max_boxes;
  const GraphView view = build_view(model, metrics, times ? &*times : nullptr, vo);
  const RenderResult r = render_view(view, ro);
  for (const auto& note : r.notes) std::cerr << "graphprof: " << note << "\n";
  (writes_to_stdout(o.output) ? std::cerr : std::cout) << "wrote " << o.output << " (" << r.format << ", " << r.bytes << " bytes): " << model.nodes.size()
            << " nodes drawn as " << view.boxes.size() << (view.boxes.size() == 1 ? " box" : " boxes")
            << (view.collapsed ? " (folded)" : "")
            << (view.heat_map ? ", coloured by measured time" : "") << "\n";
  return 0;
}

}  // namespace

void setup_render(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<RenderCliOptions>();
  auto* sub = app.add_subcommand("render", "Render a CUDA graph DOT dump as a readable PNG, SVG or PDF");
  sub->add_option("dot", opts->dot, "DOT file written by cudaGraphDebugDotPrint (default or verbose flags)")
      ->required();
  sub->add_option("-o,--output", opts->output, "picture to write: .png, .svg or .pdf")->required();
  sub->add_option("--format", opts->format, "png, svg or pdf, when the output name does not say");
  sub->add_option("--report", opts->report, "report of `graphprof run` with per-node times: heat map and timed critical path");
  sub->add_option("--workload", opts->workload, "with --report: the result's workload, when the dump's name does not pick it");
  sub->add_option("--mode", opts->mode, "with --report: the result's mode (capture or graph)");
  sub->add_flag("--collapse", opts->collapse, "fold runs of similar nodes into counted boxes (default: above 200 nodes)");
  sub->add_flag("--no-collapse", opts->no_collapse, "draw every node, however large the graph");
  sub->add_option("--max-boxes", opts->max_boxes, "when folding, fold harder until at most this many boxes remain")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  sub->footer("Exit codes: 0 ok, 2 usage, 3 unreadable or malformed DOT/report, 4 Graphviz lacks a plugin.");
  sub->callback([opts, &exit_code] { exit_code = render_command(*opts); });
}

}  // namespace gp::cli
