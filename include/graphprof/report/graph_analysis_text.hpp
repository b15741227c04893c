// The text of `graphprof analyze` for people: the facts of a GraphMetrics (graph_analysis.hpp),
// with the findings last. src/report/graph_analysis_text.cpp.
#pragma once
#include <string>

#include "graphprof/graph/graph_analysis.hpp"

namespace gp {

std::string analysis_text(const GraphMetrics& m);

}  // namespace gp
