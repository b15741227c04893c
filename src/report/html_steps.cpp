// The profile page's "Steps by kind" section (html_sections.hpp): the eager steps' answer, a strip
// of the steps in order coloured by kind, the kinds' table, the eager steps by shape, the
// framework's reasons and the capture plan. The sentences are the console's (profile_steps_text.hpp).
#include <algorithm>

#include "graphprof/core/error.hpp"
#include "graphprof/core/text_format.hpp"
#include "html_sections.hpp"
#include "html_svg.hpp"
#include "profile_steps_text.hpp"

namespace gp::html {

namespace {

// Eager steps in the eager colour; graph kinds in blues, greens and greys, one per kind (repeating
// after eight).
std::string kind_colour(const StepKinds& s, std::size_t kind) {
  static const char* const kGraphColours[] = {"#1f77b4", "#2ca02c", "#17becf", "#9467bd", "#8c564b", "#7f7f7f", "#bcbd22", "#aec7e8"};
  if (s.kinds[kind].eager()) return "#d62728";
  std::size_t graph_kinds = 0;  // graph kinds before this one
  for (std::size_t i = 0; i < kind; ++i) graph_kinds += !s.kinds[i].eager();
  return kGraphColours[graph_kinds % (sizeof kGraphColours / sizeof kGraphColours[0])];
}

// At most this many runs of one kind are drawn (a page stays small however long the loop ran).
constexpr std::size_t kStripRuns = 4000;

std::string strip_svg(const StepKinds& s, const std::string& tag) {
  std::size_t drawn = 0;
  for (std::size_t r = 0; r < s.strip.size() && r < kStripRuns; ++r) drawn += s.strip[r].second;
  std::string svg = "<svg id=\"steps-strip-" + tag + "\" class=\"gp-steps-strip\" viewBox=\"0 0 " + std::to_string(drawn) +
                    " 10\" preserveAspectRatio=\"none\" width=\"100%\" height=\"28\" role=\"img\" aria-label=\"the steps in order, by kind\">";
  std::size_t at = 0;
  for (std::size_t r = 0; r < s.strip.size() && r < kStripRuns; ++r) {
    const auto& [kind, n] = s.strip[r];
    const StepKind& k = s.kinds[kind];
    svg += "<rect x=\"" + std::to_string(at) + "\" y=\"0\" width=\"" + std::to_string(n) + "\" height=\"10\" fill=\"" +
           kind_colour(s, kind) + "\"><title>" + escape(k.name()) + ": steps " + std::to_string(at + 1) + "-" + std::to_string(at + n) +
           "</title></rect>";
    at += n;
  }
  return svg + "</svg>";
}

}  // namespace

std::string step_kinds_section(const ProfileProcess& p, const std::string& tag) {
  if (!p.step_kinds || !p.step_kinds->is_object()) return {};
  StepKinds s;
  try {
    s = step_kinds_from_json(*p.step_kinds, "step_kinds");
  } catch (const Error& e) {
    return "<p class=\"gp-warn\">Steps by kind: unreadable in this report (" + escape(e.what()) + ").</p>\n";
  }
  std::string h = "<h3 id=\"steps-" + tag + "\">Steps by kind</h3>\n";
  if (s.steps > 0) {
    h += "<p class=\"gp-note\">" + escape(plural(s.steps, "step", "steps") + "; " + steps_cut_text(s)) + ".</p>\n";
    if (const std::string a = eager_steps_answer(s); !a.empty()) h += "<p><strong>" + escape(a) + ".</strong></p>\n";
    h += "<figure>" + strip_svg(s, tag) + "<figcaption>";
    for (std::size_t i = 0; i < s.kinds.size(); ++i)
      h += "<span style=\"color:" + kind_colour(s, i) + "\">&#9632;</span> " + escape(s.kinds[i].name()) + " (" +
           std::to_string(s.kinds[i].steps) + ") ";
    if (s.strip.size() > kStripRuns) h += "(the first " + std::to_string(kStripRuns) + " runs of one kind)";
    h += "</figcaption></figure>\n";
    h += "<table id=\"table-steps-" + tag + "\"><thead><tr><th>kind</th><th>steps</th><th>host/step</th><th>GPU/step</th>"
         "<th>eager launches/step</th></tr></thead><tbody>\n";
    for (const StepKind& k : s.kinds) {
      std::string gpu = k.gpu_ns() ? format_ns(*k.gpu_ns()) : k.graph_gpu_ns ? format_ns(*k.graph_gpu_ns) + " (graphs only)" : "-";
      h += "<tr><td>" + escape(k.name()) + "</td><td>" + std::to_string(k.steps) + "</td><td>" + escape(format_ns(k.host_ns_median)) +
           "</td><td>" + escape(gpu) + "</td><td>" + strf("%.1f", k.eager_launches) + "</td></tr>\n";
    }
    h += "</tbody></table>\n";
  }
  if (!s.clusters.empty()) {
    h += "<h4>Eager steps by shape</h4>\n<ol id=\"list-eager-shapes-" + tag + "\">";
    for (const EagerCluster& c : s.clusters) {
      h += "<li>" + escape(cluster_text(c));
      if (!c.example.empty()) h += "<br><span class=\"gp-note\">" + escape(join(c.example, "; ")) + "</span>";
      h += "</li>";
    }
    h += "</ol>\n";
  }
  if (!s.reasons.empty()) {
    h += "<h4>The framework's own reasons</h4>\n<ul id=\"list-reasons-" + tag + "\">";
    for (const FrameworkReason& r : s.reasons) h += "<li>" + escape(reason_text(r)) + "</li>";
    h += "</ul>\n";
  }
  if (s.steps > 0) {
    h += "<h4>Capture plan</h4>\n<ul id=\"list-plan-" + tag + "\">";
    for (const std::string& l : plan_lines(s)) h += "<li>" + escape(l) + "</li>";
    h += "</ul>\n";
  }
  for (const std::string& n : s.notes) h += "<p class=\"gp-note\">" + escape(n) + "</p>\n";
  return h;
}

}  // namespace gp::html
