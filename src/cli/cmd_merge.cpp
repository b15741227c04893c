// graphprof merge: combine reports of the same build and GPU made by separate runs (processes,
// CI jobs) into one whose metrics hold all their repetitions. Needs no GPU. The rules are the
// ones `compare` uses to pool a folder (graphprof/compare/report_merge.hpp). Profile reports of a
// multi-node job's nodes (different ranks) are joined by global rank instead (graphprof/profile/profile.hpp).
#include <iostream>

#include "commands.hpp"
#include "help_format.hpp"
#include "option_checks.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/report/profile_text.hpp"

namespace gp::cli {

void setup_merge(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("merge", "Merge reports of separate runs of the same build and GPU, or join the profile reports of a job's nodes by rank (no GPU needed)");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  sub->add_option("reports", *inputs,
                  "reports to merge (graphprof run --json; or the profile reports of a job's nodes, joined by rank), "
                  "each file once, or folders whose *.json reports are merged (as compare pools a folder)")
      ->required();
  sub->add_option("--output,-o", *output, "merged report (required)");
  help_footer(sub,
              "Exit codes: 0 ok, 2 usage, 3 unreadable report or a file given twice, 5 reports of different GPUs "
              "or builds.",
              {"graphprof merge run1.json run2.json run3.json -o merged.json", "graphprof merge runs/ -o merged.json"});
  sub->callback([inputs, output, &exit_code] {
    if (output->empty()) throw usage_error("merge: -o/--output is required: the merged report to write, e.g. -o merged.json");
    std::vector<std::string> files;
    for (const auto& in : *inputs)
      for (auto& f : report_files(in)) files.push_back(std::move(f));
    if (files.size() < 2)
      throw usage_error("merge needs at least two reports (or a folder holding them); got only " + files.front());
    check_output_path("-o", *output);
    NamedPaths read;
    for (const auto& f : files) read.emplace_back("the report", f);
    outputs_apart(read, {{"-o", *output}});
    const std::vector<Report> reports = read_distinct_reports(files);
    // Profiles of a job's nodes (different ranks) are joined by rank; anything else is pooled.
    const bool by_rank = are_rank_profiles(reports);
    const Report merged = by_rank ? merge_rank_profiles(reports, files) : merge_reports(reports, files);
    write_report(merged, *output);
    std::ostream& console = writes_to_stdout(*output) ? std::cerr : std::cout;
    console << "merged " << files.size() << " reports (" << merged.results.size() << " results"
            << (by_rank ? ", joined by rank" : "") << ") into " << *output << "\n";
    if (by_rank) console << format_profile_summary(merged);
    exit_code = 0;
  });
}

}  // namespace gp::cli
