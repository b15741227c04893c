// Inline SVG charts for the HTML report, drawn from plain numbers: horizontal bars with
// interval whiskers, log-log lines with interval whiskers, and a "forest" chart of relative
// changes. Every chart is one <svg> element with an id and the class "gp-chart"; colours come
// from CSS classes (gp-mode-eager, ...) so the page's style sheet, print included, decides them.
// Private to src/report/html_*.cpp.
#pragma once
#include <string>
#include <vector>

namespace gp::html {

// Escapes text for HTML/SVG content and attribute values.
std::string escape(const std::string& text);

// A CSS-safe token: letters, digits and '-' kept, anything else becomes '-'.
std::string css_token(const std::string& text);

struct Bar {
  std::string label;     // shown left of the bar
  std::string css;       // class of the bar, e.g. "gp-mode-capture"
  double value = 0;      // bar length
  double low = 0, high = 0;  // interval whisker; low > high: none
  std::string value_text;    // written after the bar
  std::string tooltip;
};

struct BarChart {
  std::string id;
  double label_width = 82;  // room for the labels left of the bars
  std::string axis_label;  // under the axis, e.g. "GPU time / iteration"
  std::string unit;        // "ns": ticks read "10 µs"; otherwise "%g" and the unit
  std::vector<Bar> bars;
};

std::string svg_bar_chart(const BarChart& chart);

struct Point {
  double x = 0, y = 0;
  double low = 0, high = 0;  // interval of y; low > high: none
  std::string tooltip;
};

struct Series {
  std::string name;
  std::string css;  // class of the line and markers
  std::vector<Point> points;
};

struct LineChart {
  std::string id;
  std::string x_label, y_label;
  std::string y_unit;  // "ns": ticks read "10 µs"; otherwise "%g" and the unit
  std::vector<Series> series;
};

// Log-log axes; points with x <= 0 or y <= 0 are left out (a log axis cannot show them).
std::string svg_loglog_chart(const LineChart& chart);

struct Change {
  std::string label;
  std::string css;         // verdict class, e.g. "gp-verdict-regression"
  double change = 0;       // relative: +0.12 is 12 % larger
  double low = 0, high = 0;  // interval; low > high: none
  std::string tooltip;
  double threshold = 0;      // this row's threshold, marked at ± on its line when above the band's
};

struct ChangeChart {
  std::string id;
  double threshold = 0.03;  // the band drawn around zero (the threshold floor)
  std::vector<Change> rows;
};

std::string svg_change_chart(const ChangeChart& chart);

// A strip over time in equal bins: per bin two stacked shares (0..1; graph replays below, eager work
// above) and a count of events drawn as marks along the top (graphs made). Time ticks from 0.
struct TimelineChart {
  std::string id;
  double bin_ns = 0;
  std::vector<double> lower, upper;   // shares of each bin, stacked
  std::vector<std::size_t> marks;     // events per bin
  std::string lower_css = "gp-tl-graph", upper_css = "gp-tl-eager";
  std::string lower_name, upper_name, marks_name, y_label;
};

std::string svg_timeline(const TimelineChart& chart);

}  // namespace gp::html
