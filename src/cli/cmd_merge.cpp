// graphprof merge: combine reports of the same build and GPU made by separate runs (processes,
// CI jobs) into one whose metrics hold all their repetitions. Needs no GPU. The rules are the
// ones `compare` uses to pool a folder (graphprof/compare/report_merge.hpp).
#include <iostream>

#include "commands.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/core/error.hpp"

namespace gp::cli {

void setup_merge(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("merge", "Merge reports of separate runs of the same build and GPU (no GPU needed)");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  sub->add_option("reports", *inputs, "reports to merge (graphprof run --json), each file once")
      ->required()
      ->expected(2, 1000);
  sub->add_option("--output,-o", *output, "merged report")->required();
  sub->callback([inputs, output, &exit_code] {
    check_output_path("-o", *output);
    const Report merged = merge_reports(read_distinct_reports(*inputs), *inputs);
    write_report(merged, *output);
    (writes_to_stdout(*output) ? std::cerr : std::cout) << "merged " << inputs->size() << " reports (" << merged.results.size() << " results) into " << *output
              << "\n";
    exit_code = 0;
  });
}

}  // namespace gp::cli
