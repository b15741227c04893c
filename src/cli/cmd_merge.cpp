// graphprof merge: combine reports of the same build and GPU made by separate runs (processes,
// CI jobs) into one whose metrics hold all their repetitions. Needs no GPU. The rules are the
// ones `compare` uses to pool a folder (graphprof/compare/report_merge.hpp). Profile reports of a
// multi-node job's nodes (different ranks) are joined by global rank instead (graphprof/profile/profile.hpp).
#include <iostream>

#include "commands.hpp"
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
  sub->add_option("reports", *inputs, "reports to merge (graphprof run --json; or the profile reports of a job's nodes, joined by rank), each file once")
      ->required()
      ->expected(2, 1000);
  sub->add_option("--output,-o", *output, "merged report")->required();
  sub->callback([inputs, output, &exit_code] {
    check_output_path("-o", *output);
    const std::vector<Report> reports = read_distinct_reports(*inputs);
    // Profiles of a job's nodes (different ranks) are joined by rank; anything else is pooled.
    const bool by_rank = are_rank_profiles(reports);
    const Report merged = by_rank ? merge_rank_profiles(reports, *inputs) : merge_reports(reports, *inputs);
    write_report(merged, *output);
    std::ostream& console = writes_to_stdout(*output) ? std::cerr : std::cout;
    console << "merged " << inputs->size() << " reports (" << merged.results.size() << " results"
            << (by_rank ? ", joined by rank" : "") << ") into " << *output << "\n";
    if (by_rank) console << format_profile_summary(merged);
    exit_code = 0;
  });
}

}  // namespace gp::cli
