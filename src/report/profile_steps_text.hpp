// The text of steps by kind, the eager steps' shapes, the framework's reasons and the capture
// plan (graphprof/core/step_kinds.hpp): the sentences the console (profile_text.cpp) and the
// profile page (html_profile.cpp) share, and the console section. Internal to src/report.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "graphprof/core/profile_section.hpp"

#include "graphprof/core/step_kinds.hpp"

namespace gp {

// "90 of 400 steps ran without a graph at serving_gate.py:92 in serve, 2.1x the host time of a graph
// step and +310 µs GPU each: 31.0 % of the loop's time"; "" without eager steps.
std::string eager_steps_answer(const StepKinds& s);
// How the steps were cut, one clause: "a step ends at each cudaStreamSynchronize of the loop".
std::string steps_cut_text(const StepKinds& s);
// One cluster of eager steps: "82 steps, 8 shapes: match no captured graph: their grids are larger
// than graph_1's (the largest captured); +250 µs host per step".
std::string cluster_text(const EagerCluster& c);
// One framework reason and what it explains.
std::string reason_text(const FrameworkReason& r);
// The capture plan, one line each: graphs, then clusters, then padding.
std::vector<std::string> plan_lines(const StepKinds& s);

// The console section of one process (the report's processes[] entry): only where some step ran
// without a graph or the framework gave a reason (a loop of graph steps alone says nothing more).
void step_kinds_text(std::ostringstream& out, const ProfileProcess& process, bool verbose);

}  // namespace gp
