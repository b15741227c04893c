// Inline SVG charts of the HTML report (see html_svg.hpp). Coordinates are computed here;
// colours and fonts come from the page's CSS classes.
#include "html_svg.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/core/name_match.hpp"

namespace gp::html {

namespace {

std::string num(double v) { return strf("%.1f", v); }

// A tick label in the chart's unit: durations as "10 µs", other figures as counts ("30,000").
std::string tick_text(double v, const std::string& unit) {
  if (unit == "ns") return format_ns(v);
  return format_count(v) + (unit.empty() || unit == "count" || unit == "x" ? "" : " " + unit);
}

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
  if (!(raw > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

// Steps of `step` from 0 to `top`: at most 100, none when either is not a finite positive figure.
int tick_count(double top, double step) {
  if (!(std::isfinite(top) && std::isfinite(step) && top > 0 && step > 0)) return 0;
  return static_cast<int>(std::min(100.0, std::round(top / step)));
}

bool has_interval(double low, double high) { return low <= high && std::isfinite(low) && std::isfinite(high); }

std::string open_svg(const std::string& id, const std::string& kind, double width, double height,
                     const std::string& aria) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + escape(id) + "\" class=\"gp-chart " + kind +
         "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" width=\"" + num(width) +
         "\" role=\"img\" aria-label=\"" + escape(aria) + "\">\n";
}

std::string text(double x, double y, const std::string& content, const std::string& anchor,
                 const std::string& css = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" +
         (css.empty() ? "" : " class=\"" + css + "\"") + ">" + escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& css) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
         "\" class=\"" + css + "\"/>\n";
}

std::string title(const std::string& tooltip) {
  return tooltip.empty() ? std::string() : "<title>" + escape(tooltip) + "</title>";
}

// Whisker: a line with short caps at both ends; horizontal when `horizontal`.
std::string whisker(double a, double b, double at, bool horizontal, const std::string& css) {
  const double cap = 4;
  std::string s;
  if (horizontal) {
    s += line(a, at, b, at, css);
    s += line(a, at - cap, a, at + cap, css);
    s += line(b, at - cap, b, at + cap, css);
  } else {
    s += line(at, a, at, b, css);
    s += line(at - cap, a, at + cap, a, css);
    s += line(at - cap, b, at + cap, b, css);
  }
  return s;
}

}  // namespace

std::string escape(const std::string& text) { return markup_escape(text); }

std::string css_token(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

std::string svg_bar_chart(const BarChart& chart) {
  const double label_w = chart.label_width, plot_x = label_w + 8, plot_w = 250, row_h = 26, top = 8;
  const double width = plot_x + plot_w + 130;
  const double height = top + row_h * static_cast<double>(chart.bars.size()) + 40;
  double max = 0;
  for (const Bar& b : chart.bars) {
    if (std::isfinite(b.value)) max = std::max(max, b.value);
    if (has_interval(b.low, b.high)) max = std::max(max, b.high);
  }
  const double step = nice_step(max / 4);
  const double axis_max = max > 0 ? step * std::ceil(max / step) : 1;
  auto x_of = [&](double v) { return plot_x + plot_w * std::clamp(v / axis_max, 0.0, 1.0); };

  std::string s = open_svg(chart.id, "gp-bars", width, height, chart.axis_label);
  const double axis_y = top + row_h * static_cast<double>(chart.bars.size()) + 4;
  // Ticks by count, not by adding steps up to a value: a top that overflowed to +inf (figures
  // near 1e308) would never be reached.
  for (int k = 0, n = tick_count(axis_max, step); k <= n; ++k) {
    const double t = step * k;
    s += line(x_of(t), top, x_of(t), axis_y, "gp-grid");
    s += text(x_of(t), axis_y + 14, tick_text(t, chart.unit), "middle", "gp-tick");
  }
  s += text(plot_x + plot_w / 2, axis_y + 32, chart.axis_label, "middle", "gp-axis-label");
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& b = chart.bars[i];
    const double y = top + row_h * static_cast<double>(i);
    const double mid = y + row_h / 2;
    s += text(label_w, mid + 4, b.label, "end", "gp-bar-label");
    s += "<g class=\"gp-bar " + b.css + "\">" + title(b.tooltip);
    if (std::isfinite(b.value) && b.value > 0)
      s += "<rect x=\"" + num(plot_x) + "\" y=\"" + num(y + 5) + "\" width=\"" + num(x_of(b.value) - plot_x) +
           "\" height=\"" + num(row_h - 10) + "\"/>";
    if (has_interval(b.low, b.high)) s += whisker(x_of(b.low), x_of(b.high), mid, true, "gp-whisker");
    s += "</g>\n";
    const double end = std::max(x_of(std::isfinite(b.value) ? b.value : 0),
                                has_interval(b.low, b.high) ? x_of(b.high) : 0.0);
    s += text(end + 8, mid + 4, b.value_text, "start", "gp-value");
  }
  s += line(plot_x, top, plot_x, axis_y, "gp-axis");
  return s + "</svg>\n";
}

std::string svg_loglog_chart(const LineChart& chart) {
  const double left = 74, right = 118, top = 12, bottom = 46, plot_w = 320, plot_h = 220;
  const double width = left + plot_w + right, height = top + plot_h + bottom;
  double x_min = INFINITY, x_max = 0, y_min = INFINITY, y_max = 0;
  for (const Series& se : chart.series)
    for (const Point& p : se.points) {
      if (!(p.x > 0) || !(p.y > 0) || !std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      x_min = std::min(x_min, p.x), x_max = std::max(x_max, p.x);
      y_min = std::min(y_min, p.y), y_max = std::max(y_max, p.y);
      if (has_interval(p.low, p.high) && p.low > 0) y_min = std::min(y_min, p.low), y_max = std::max(y_max, p.high);
    }
  std::string s = open_svg(chart.id, "gp-lines", width, height, chart.y_label + " vs " + chart.x_label);
  if (!(x_max > 0) || !(y_max > 0)) {
    s += text(width / 2, height / 2, "no positive values to draw", "middle", "gp-axis-label");
    return s + "</svg>\n";
  }
  // Whole decades on both axes, at least one wide.
  double lx0 = std::floor(std::log10(x_min)), lx1 = std::ceil(std::log10(x_max));
  double ly0 = std::floor(std::log10(y_min)), ly1 = std::ceil(std::log10(y_max));
  if (lx1 <= lx0) lx1 = lx0 + 1;
  if (ly1 <= ly0) ly1 = ly0 + 1;
  auto x_of = [&](double v) { return left + plot_w * (std::log10(v) - lx0) / (lx1 - lx0); };
  auto y_of = [&](double v) { return top + plot_h * (1 - (std::log10(v) - ly0) / (ly1 - ly0)); };
  for (double d = lx0; d <= lx1 + 1e-9 && d <= lx0 + 700; d += 1) {
    const double v = std::pow(10.0, d);
    s += line(x_of(v), top, x_of(v), top + plot_h, "gp-grid");
    s += text(x_of(v), top + plot_h + 16, format_count(v), "middle", "gp-tick");
  }
  // Few decades: label 2x and 5x as well, so a flat curve still has a readable scale.
  const bool fine = ly1 - ly0 <= 2;
  for (double d = ly0; d <= ly1 + 1e-9 && d <= ly0 + 700; d += 1)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, d);
      if ((m > 1 && !fine) || std::log10(v) > ly1 + 1e-9) continue;
      s += line(left, y_of(v), left + plot_w, y_of(v), "gp-grid");
      s += text(left - 6, y_of(v) + 4, tick_text(v, chart.y_unit), "end", "gp-tick");
    }
  s += line(left, top, left, top + plot_h, "gp-axis") + line(left, top + plot_h, left + plot_w, top + plot_h, "gp-axis");
  s += text(left + plot_w / 2, top + plot_h + 36, chart.x_label + " (log scale)", "middle", "gp-axis-label");
  s += "<text class=\"gp-axis-label\" text-anchor=\"middle\" transform=\"translate(14," + num(top + plot_h / 2) +
       ") rotate(-90)\">" + escape(chart.y_label + " (log scale)") + "</text>\n";

  double legend_y = top + 10;
  for (const Series& se : chart.series) {
    std::vector<Point> pts;
    for (const Point& p : se.points)
      if (p.x > 0 && p.y > 0 && std::isfinite(p.x) && std::isfinite(p.y)) pts.push_back(p);
    if (pts.empty()) continue;
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    s += "<g class=\"gp-series " + se.css + "\" data-series=\"" + escape(se.name) + "\">\n<polyline points=\"";
    for (const Point& p : pts) s += num(x_of(p.x)) + "," + num(y_of(p.y)) + " ";
    s += "\"/>\n";
    for (const Point& p : pts) {
      if (has_interval(p.low, p.high) && p.low > 0) s += whisker(y_of(p.low), y_of(p.high), x_of(p.x), false, "gp-whisker");
      s += "<circle cx=\"" + num(x_of(p.x)) + "\" cy=\"" + num(y_of(p.y)) + "\" r=\"3.5\">" + title(p.tooltip) +
           "</circle>\n";
    }
    s += "</g>\n";
    s += "<g class=\"gp-legend " + se.css + "\">" + line(left + plot_w + 14, legend_y, left + plot_w + 34, legend_y, "") +
         "<circle cx=\"" + num(left + plot_w + 24) + "\" cy=\"" + num(legend_y) + "\" r=\"3.5\"/></g>\n";
    s += text(left + plot_w + 40, legend_y + 4, se.name, "start", "gp-legend-text");
    legend_y += 18;
  }
  return s + "</svg>\n";
}

std::string svg_change_chart(const ChangeChart& chart) {
  const double label_w = 420, plot_x = 430, plot_w = 320, row_h = 20, top = 8;
  const double width = plot_x + plot_w + 90;
  const double height = top + row_h * static_cast<double>(chart.rows.size()) + 44;
  double span = chart.threshold * 1.5;
  for (const Change& c : chart.rows) {
    if (std::isfinite(c.change)) span = std::max(span, std::fabs(c.change));
    if (has_interval(c.low, c.high)) span = std::max({span, std::fabs(c.low), std::fabs(c.high)});
  }
  const double step = nice_step(span / 3);
  span = step * std::ceil(span / step);
  auto x_of = [&](double v) { return plot_x + plot_w * (std::clamp(v, -span, span) + span) / (2 * span); };
  const double axis_y = top + row_h * static_cast<double>(chart.rows.size()) + 4;

  std::string s = open_svg(chart.id, "gp-changes", width, height, "change of each metric, candidate against baseline");
  s += "<rect class=\"gp-band\" x=\"" + num(x_of(-chart.threshold)) + "\" y=\"" + num(top) + "\" width=\"" +
       num(x_of(chart.threshold) - x_of(-chart.threshold)) + "\" height=\"" + num(axis_y - top) + "\"/>\n";
  for (int k = 0, n = 2 * tick_count(span, step); k <= n; ++k) {
    const double t = -span + step * k;
    s += line(x_of(t), top, x_of(t), axis_y, std::fabs(t) < step / 2 ? "gp-zero" : "gp-grid");
    s += text(x_of(t), axis_y + 14, std::fabs(t) < step / 2 ? "0%" : strf("%+.0f%%", 100 * t), "middle",
              "gp-tick");
  }
  bool own_thresholds = false;
  for (const Change& c : chart.rows) own_thresholds = own_thresholds || c.threshold > chart.threshold;
  s += text(plot_x + plot_w / 2, axis_y + 34,
            "change, candidate vs baseline (shaded: ±" + strf("%g", 100 * chart.threshold) + "% threshold" +
                (own_thresholds ? "; bars: a row's own, higher threshold)" : ")"),
            "middle", "gp-axis-label");
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const Change& c = chart.rows[i];
    const double mid = top + row_h * static_cast<double>(i) + row_h / 2;
    // Long names are cut in the middle (the workload at the front and the mode and metric at the
    // end stay); the tooltip has them whole.
    const std::string label = clip_middle(c.label, 68);
    s += text(label_w, mid + 4, label, "end", "gp-bar-label");
    if (c.threshold > chart.threshold)
      for (double edge : {-c.threshold, c.threshold})
        s += line(x_of(edge), mid - row_h / 2 + 3, x_of(edge), mid + row_h / 2 - 3, "gp-row-threshold");
    s += "<g class=\"gp-change " + c.css + "\">" + title(c.tooltip);
    if (has_interval(c.low, c.high)) s += whisker(x_of(c.low), x_of(c.high), mid, true, "gp-whisker");
    if (std::isfinite(c.change))
      s += "<circle cx=\"" + num(x_of(c.change)) + "\" cy=\"" + num(mid) + "\" r=\"4\"/>";
    s += "</g>\n";
    if (std::isfinite(c.change))
      s += text(plot_x + plot_w + 8, mid + 4, strf("%+.1f%%", 100 * c.change), "start", "gp-value");
  }
  return s + "</svg>\n";
}

std::string svg_timeline(const TimelineChart& chart) {
  const std::size_t bins = chart.lower.size();
  const double plot_x = 48, plot_w = 900, top = 18, plot_h = 90;
  const double width = plot_x + plot_w + 12, height = top + plot_h + 62;
  const double bw = bins > 0 ? plot_w / static_cast<double>(bins) : plot_w;
  auto y_of = [&](double share) { return top + plot_h * (1.0 - std::clamp(share, 0.0, 1.0)); };
  std::string s = open_svg(chart.id, "gp-timeline", width, height, chart.y_label);
  for (double f : {0.0, 0.5, 1.0}) {
    s += line(plot_x, y_of(f), plot_x + plot_w, y_of(f), "gp-grid");
    s += text(plot_x - 6, y_of(f) + 4, strf("%.0f%%", 100 * f), "end", "gp-tick");
  }
  const double span = chart.bin_ns * static_cast<double>(bins);
  const double step = nice_step(span / 6);
  // Bounded by the count of ticks, as the other charts' axes: a span that is not finite (a huge
  // bin_ns in a hand-edited report) would never reach its end by adding steps.
  const int ticks = std::isfinite(span) && span > 0 && std::isfinite(step) && step > 0
                        ? static_cast<int>(std::min(100.0, std::floor(span * 1.0001 / step)))
                        : -1;
  for (int k = 0; k <= ticks; ++k) {
    const double t = step * static_cast<double>(k);
    const double x = plot_x + plot_w * t / span;
    s += line(x, top + plot_h, x, top + plot_h + 4, "gp-axis");
    s += text(x, top + plot_h + 16, format_ns(t), "middle", "gp-tick");
  }
  for (std::size_t i = 0; i < bins; ++i) {
    const double lo = std::clamp(chart.lower[i], 0.0, 1.0);
    const double up = std::clamp(i < chart.upper.size() ? chart.upper[i] : 0.0, 0.0, 1.0 - lo);
    const double x = plot_x + bw * static_cast<double>(i);
    const std::string tip = format_ns(chart.bin_ns * static_cast<double>(i)) + "–" + format_ns(chart.bin_ns * static_cast<double>(i + 1)) +
                            ": " + chart.lower_name + " " + strf("%.0f%%", 100 * lo) + ", " + chart.upper_name + " " +
                            strf("%.0f%%", 100 * up) + " of the busiest bin" +
                            (i < chart.marks.size() && chart.marks[i] ? ", " + chart.marks_name + " " + std::to_string(chart.marks[i]) : "");
    s += "<g>" + title(tip);
    if (lo > 0)
      s += "<rect class=\"" + chart.lower_css + "\" x=\"" + num(x) + "\" y=\"" + num(y_of(lo)) + "\" width=\"" + num(std::max(bw - 0.5, 0.5)) +
           "\" height=\"" + num(y_of(0) - y_of(lo)) + "\"/>";
    if (up > 0)
      s += "<rect class=\"" + chart.upper_css + "\" x=\"" + num(x) + "\" y=\"" + num(y_of(lo + up)) + "\" width=\"" +
           num(std::max(bw - 0.5, 0.5)) + "\" height=\"" + num(y_of(lo) - y_of(lo + up)) + "\"/>";
    if (i < chart.marks.size() && chart.marks[i] > 0)
      s += "<path class=\"gp-tl-made\" d=\"M" + num(x + bw / 2) + " " + num(top - 2) + " l-4 -8 h8 z\"/>";
    s += "</g>\n";
  }
  s += line(plot_x, top + plot_h, plot_x + plot_w, top + plot_h, "gp-axis");
  // Legend under the axis.
  const double ly = top + plot_h + 38;
  double lx = plot_x;
  auto key = [&](const std::string& css, const std::string& name, bool triangle) {
    if (name.empty()) return;
    if (triangle) s += "<path class=\"" + css + "\" d=\"M" + num(lx + 5) + " " + num(ly + 4) + " l-5 -10 h10 z\"/>";
    else s += "<rect class=\"" + css + "\" x=\"" + num(lx) + "\" y=\"" + num(ly - 8) + "\" width=\"10\" height=\"10\"/>";
    s += text(lx + 14, ly + 1, name, "start", "gp-tick");
    lx += 24 + 6.5 * static_cast<double>(name.size());
  };
  key(chart.lower_css, chart.lower_name, false);
  key(chart.upper_css, chart.upper_name, false);
  key("gp-tl-made", chart.marks_name, true);
  s += text(plot_x + plot_w, ly + 1, chart.y_label, "end", "gp-axis-label");
  return s + "</svg>\n";
}

}  // namespace gp::html
