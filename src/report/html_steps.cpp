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

// Eager steps in the eager colour; graph kinds in blues and greens, one per kind.
std::string kind_colour(const StepKind& k, std::size_t i) {
  static const char* const kGraphColours[] = {"#1f77b4", "#2ca02c", "#17becf", "#9467bd", "#8c564b", "#7f7f7f"};
  return k.eager() ? "#d62728" : kGraphColours[i % (sizeof kGraphColours / sizeof kGraphColours[0])];
}

std::string strip_svg(const StepKinds& s, const std::string& tag) {
  std::string svg = "<svg id=\"steps-strip-" + tag + "\" class=\"gp-steps-strip\" viewBox=\"0 0 " + std::to_string(s.steps) +
                    " 10\" preserveAspectRatio=\"none\" width=\"100%\" height=\"28\" role=\"img\" aria-label=\"the steps in order, by kind\">";
  std::size_t at = 0;
  for (const auto& [kind, n] : s.strip) {
    const StepKind& k = s.kinds[kind];
    svg += "<rect x=\"" + std::to_string(at) + "\" y=\"0\" width=\"" + std::to_string(n) + "\" height=\"10\" fill=\"" +
           kind_colour(k, kind) + "\"><title>" + escape(k.name()) + ": steps " + std::to_string(at + 1) + "-" + std::to_string(at + n) +
           "</title></rect>";
    at += n;
  }
  return svg + "</svg>";
}

}  // namespace

std::string step_kinds_section(const nlohmann::json& p, const std::string& tag) {
  const auto it = p.find("step_kinds");
  if (it == p.end() || !it->is_object()) return {};
  StepKinds s;
  try {
    s = step_kinds_from_json(*it, "step_kinds");
  } catch (const Error& e) {
    return "<p class=\"gp-warn\">Steps by kind: unreadable in this report (" + escape(e.what()) + ").</p>\n";
  }
  std::string h = "<h3 id=\"steps-" + tag + "\">Steps by kind</h3>\n";
  if (s.steps > 0) {
    h += "<p class=\"gp-note\">" + escape(plural(s.steps, "step", "steps") + "; " + steps_cut_text(s)) + ".</p>\n";
    if (const std::string a = eager_steps_answer(s); !a.empty()) h += "<p><strong>" + escape(a) + ".</strong></p>\n";
    h += "<figure>" + strip_svg(s, tag) + "<figcaption>";
    for (std::size_t i = 0; i < s.kinds.size(); ++i)
      h += "<span style=\"color:" + kind_colour(s.kinds[i], i) + "\">&#9632;</span> " + escape(s.kinds[i].name()) + " (" +
           std::to_string(s.kinds[i].steps) + ") ";
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
