// "What to fix first" for a profile's console summary and page (profile_fix_first.hpp).
#include "profile_fix_first.hpp"

#include <algorithm>
#include <cmath>

#include "graphprof/core/text_format.hpp"
#include "profile_sites_text.hpp"

namespace gp {


namespace {

constexpr std::size_t kWhereColumns = 60;

// Host time per step of an eager site: its calls in the steps times its mean call (the report
// keeps totals: the start-up's calls count in the mean, not in the calls per step).
double per_step_ns(const ProfileEagerSite& site) {
  const double per = site.per_step, calls = site.calls, host = site.host_ns;
  return std::isfinite(per) && std::isfinite(host) && calls > 0 ? per * host / calls : NAN;
}

std::string capture_what(const ProfileCaptureTrouble& t) {
  std::string s = "broken capture on stream " + strf("%.0f", t.stream.value_or(0)) + ": " + one_line(t.api) + " failed with " +
                  one_line(t.error);
  if (t.site) s += ", in the capture begun at " + site_where(t.site, kWhereColumns);
  const std::string& end = t.end_error;
  if (!end.empty()) s += " (cudaStreamEndCapture: " + one_line(end) + ")";
  return s;
}

std::string site_what(const ProfileEagerSite& s, double per_step) {
  const std::string& kind = s.kind;
  std::string text = "eager " + (kind.empty() ? std::string("work") : one_line(kind)) + " every step at " +
                     site_where(s.site, kWhereColumns) + ": " + strf("%.1f", s.per_step.value_or(0)) +
                     " per step";
  // "~": the mean call of the site, start-up calls included, times its calls per step.
  if (std::isfinite(per_step)) text += ", ~" + format_ns(per_step) + " host time per step";
  return text;
}

}  // namespace

std::vector<FixFirstItem> fix_first_items(const ProfileSection& profile) {
  std::vector<FixFirstItem> captures, sites;
  for (const ProfileProcess& p : profile.processes) {
    const double process = p.process.value_or(0);
    std::size_t shown = 0;
    for (const ProfileCaptureTrouble& t : p.capture_trouble) {
      if (++shown > kFixCaptures) continue;
      captures.push_back({process, true, capture_what(t), one_line(t.hint), NAN});
    }
    for (const ProfileEagerSite& s : p.eager_sites) {
      // Only what repeats in the steps: a start-up or after-the-last-step site saves nothing per step.
      if (!(s.per_step.value_or(0) > 0)) continue;
      const double ns = per_step_ns(s);
      sites.push_back({process, false, site_what(s, ns), one_line(s.hint), ns});
    }
  }
  // The largest host time per step first; sites without one after those with, by calls per step.
  std::stable_sort(sites.begin(), sites.end(), [](const FixFirstItem& a, const FixFirstItem& b) {
    const bool ta = std::isfinite(a.per_step_ns), tb = std::isfinite(b.per_step_ns);
    if (ta != tb) return ta;
    return ta && a.per_step_ns > b.per_step_ns;
  });
  if (sites.size() > kFixSites) sites.resize(kFixSites);
  captures.insert(captures.end(), sites.begin(), sites.end());
  return captures;
}

std::string fix_first_text(const ProfileSection& profile) {
  const std::vector<FixFirstItem> items = fix_first_items(profile);
  if (items.empty()) return "  what to fix first: nothing stands out (no broken capture, no eager work in every step)\n\n";
  const bool several = profile.processes.size() > 1;
  std::string out = "  what to fix first\n";
  std::size_t n = 0;
  for (const auto& item : items) {
    out += strf("  %zu. ", ++n) + (several ? strf("process %.0f: ", item.process) : std::string()) + item.what + "\n";
    if (!item.fix.empty()) out += "     fix: " + item.fix + "\n";
  }
  return out + "\n";
}

std::string fix_first_html(const ProfileSection& profile, std::string (*escape)(const std::string&)) {
  const std::vector<FixFirstItem> items = fix_first_items(profile);
  std::string s = "<section id=\"fix-first\"><h2>What to fix first</h2>\n";
  if (items.empty())
    return s + "<p class=\"gp-note\">Nothing stands out: no broken capture, no eager work in every step.</p>\n</section>\n";
  const bool several = profile.processes.size() > 1;
  s += "<ol class=\"gp-fix-first\">\n";
  for (const auto& item : items) {
    s += std::string("<li class=\"") + (item.capture ? "gp-bad" : "gp-warn") + "\">" +
         (several ? escape(strf("process %.0f: ", item.process)) : std::string()) + escape(item.what);
    if (!item.fix.empty()) s += "<br><b>fix:</b> " + escape(item.fix);
    s += "</li>\n";
  }
  return s + "</ol>\n</section>\n";
}

}  // namespace gp
