// graphprof render FILE.dot -o out.png|svg|pdf: a readable picture of a CUDA graph dump, laid
// out by Graphviz in process. Short labels, colour by kind (or by measured time with --report),
// critical path in blue, long runs folded into counted boxes for large graphs.
#include <iostream>

#include "commands.hpp"
#include "help_format.hpp"
#include "graph_input.hpp"
#include "option_checks.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/graph/graph_render.hpp"
#include "graphprof/graph/graph_view.hpp"

namespace gp::cli {

namespace {

struct RenderCliOptions {
  GraphInputOptions input;
  std::string output;
  std::string format;
  bool collapse = false;
  bool no_collapse = false;
  std::size_t max_boxes = 400;
};

int render_command(const RenderCliOptions& o) {
  check_graph_input(o.input);
  if (o.collapse && o.no_collapse) throw usage_error("--collapse and --no-collapse contradict each other");
  RenderOptions ro{o.output, o.format};
  if (o.output.empty())
    throw usage_error("render: -o/--output is required: the picture to write, e.g. -o graph.svg (.png, .svg or .pdf)");
  render_format(ro);  // a bad -o name is a usage error before any work
  check_output_path("-o", o.output);
  outputs_apart({{"the DOT dump", o.input.dot}, {"--report", o.input.report}}, {{"-o", o.output}});
  const GraphInput in = load_graph_input(o.input);
  ViewOptions vo;
  vo.collapse = o.collapse ? CollapseMode::kOn : (o.no_collapse ? CollapseMode::kOff : CollapseMode::kAuto);
  vo.max_boxes = o.max_boxes;
  const GraphView view = build_view(in.model, in.metrics, in.times_or_null(), vo);
  const RenderResult r = render_view(view, ro);
  for (const auto& note : r.notes) std::cerr << "graphprof: " << note << "\n";
  (writes_to_stdout(o.output) ? std::cerr : std::cout) << "wrote " << o.output << " (" << r.format << ", " << r.bytes << " bytes): " << in.model.nodes.size()
            << " nodes drawn as " << plural(view.boxes.size(), "box", "boxes")
            << (view.collapsed ? " (folded)" : "")
            << (view.heat_map ? ", coloured by measured time" : "") << "\n";
  return 0;
}

}  // namespace

void setup_render(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<RenderCliOptions>();
  auto* sub = app.add_subcommand("render", "Render a CUDA graph DOT dump as a readable PNG, SVG or PDF");
  add_dot_argument(*sub, opts->input);
  sub->add_option("-o,--output", opts->output, "picture to write: .png, .svg or .pdf (required)");
  sub->add_option("--format", opts->format, "png, svg or pdf, when the output name does not say");
  add_report_options(*sub, opts->input,
                     "report of `graphprof run` with per-node times: heat map and timed critical path");
  sub->add_flag("--collapse", opts->collapse, "fold runs of similar nodes into counted boxes (default: above 200 nodes)");
  sub->add_flag("--no-collapse", opts->no_collapse, "draw every node, however large the graph");
  sub->add_option("--max-boxes", opts->max_boxes, "when folding, fold harder until at most this many boxes remain")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  help_footer(sub, "Exit codes: 0 ok, 2 usage, 3 unreadable or malformed DOT/report, 4 Graphviz lacks a plugin.",
              {"graphprof render graph.dot -o graph.svg",
               "graphprof render out/dot/chain_capture.dot --report out/report.json -o heat.png"});
  sub->callback([opts, &exit_code] { exit_code = render_command(*opts); });
}

}  // namespace gp::cli
