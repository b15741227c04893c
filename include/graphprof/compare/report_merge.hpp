// One way to combine reports of separate runs (processes, CI jobs) of one build on one GPU
// model: `graphprof merge` writes the result, `graphprof compare` pools a folder with it, and
// `run --processes` merges its children with it. The rules (docs/compare.md, "Pooling"):
// - the same file may not be given twice (a run counted twice halves its noise);
// - every report must come from the same GPU model (else Error kUntrusted, exit 5, as compare);
// - every report must come from the same git revision and compute the same output checksum
//   (else Error kUntrusted: these are not runs of one build);
// - one report may list a benchmark once (else Error kBadInput naming the file);
// - a mode that failed in any run is failed in the result, with that run's reason;
// - repetitions are concatenated in the order given; settings.processes adds up, so compare
//   knows how many independent runs are behind each metric.
#pragma once
#include <string>
#include <vector>

#include "graphprof/core/report.hpp"

namespace gp {

Report merge_reports(const std::vector<Report>& reports, const std::vector<std::string>& sources);

// Reads the reports at `paths` (in that order) and refuses a file named twice, under any
// spelling of its path (Error kBadInput).
std::vector<Report> read_distinct_reports(const std::vector<std::string>& paths);

}  // namespace gp
