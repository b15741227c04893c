// graphprof merge: combine reports of the same build and GPU made by separate runs (processes,
// CI jobs) into one whose metrics hold all their repetitions. Needs no GPU. The rules are the
// ones `compare` uses to pool a folder (graphprof/compare_merge.hpp).
#include <iostream>

#include "commands.hpp"
#include "graphprof/atomic_file.hpp"
#include "graphprof/compare_merge.hpp"
#include "graphprof/error.hpp"

namespace gp::cli {

void setup_merge(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("merge", "Merge reports of separate runs of the same build and GPU (no GPU needed)");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  sub->add_option("reports", *inputs,
                  "reports to merge (graphprof run --json), each file once, or folders whose *.json reports are "
                  "merged (as compare pools a folder)")
      ->required();
  sub->add_option("--output,-o", *output, "merged report (required)");
  sub->footer("Example: graphprof merge run1.json run2.json run3.json -o merged.json, or graphprof merge runs/ -o "
              "merged.json. Exit codes: 0 ok, 2 usage, 3 unreadable report or a file given twice, 5 reports of "
              "different GPUs or builds.");
  sub->callback([inputs, output, &exit_code] {
    if (output->empty()) throw usage_error("merge: -o/--output is required: the merged report to write, e.g. -o merged.json");
    std::vector<std::string> files;
    for (const auto& in : *inputs)
      for (auto& f : report_files(in)) files.push_back(std::move(f));
    if (files.size() < 2)
      throw usage_error("merge needs at least two reports (or a folder holding them); got only " + files.front());
    check_output_path("-o", *output);
    const Report merged = merge_reports(read_distinct_reports(files), files);
    write_report(merged, *output);
    (writes_to_stdout(*output) ? std::cerr : std::cout)
        << "merged " << files.size() << " reports (" << merged.results.size() << " results) into " << *output << "\n";
    exit_code = 0;
  });
}

}  // namespace gp::cli
