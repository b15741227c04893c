// Text helpers: printf into a string, byte sizes and grouped digits, padding for terminal tables by
// display width, and markup escaping.
// Padding text for terminal tables by display width: UTF-8 code points, not bytes, so a cell
// holding "µs" or "±" (two bytes, one column) lines up with plain ASCII cells. The one helper
// every table printer uses (TextTable below; compare console, analyze).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gp {

// printf into a std::string, whatever its length: the one number formatter of the reporters, the
// graph texts and compare's reasons (fixed formats, so the same figures always give the same bytes).
inline std::string strf(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline std::string strf(const char* format, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, format);
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  std::string out;
  if (n < 0) {
    va_end(again);
    return out;
  }
  if (static_cast<std::size_t>(n) < sizeof buf) {
    out.assign(buf, static_cast<std::size_t>(n));
  } else {
    out.resize(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(&out[0], out.size(), format, again);
    out.resize(static_cast<std::size_t>(n));
  }
  va_end(again);
  return out;
}

// Human-friendly duration: "812 ns", "4.31 µs", "1.20 ms", "2.5 s"; "-" when not finite.
inline std::string format_ns(double ns) {
  if (!std::isfinite(ns)) return "-";
  const double a = std::fabs(ns);
  if (a < 1e3) return strf("%.0f ns", ns);
  if (a < 1e6) return strf(a < 1e4 ? "%.2f µs" : (a < 1e5 ? "%.1f µs" : "%.0f µs"), ns / 1e3);
  if (a < 1e9) return strf(a < 1e7 ? "%.2f ms" : (a < 1e8 ? "%.1f ms" : "%.0f ms"), ns / 1e6);
  return strf(a < 1e12 ? "%.2f s" : "%.3g s", ns / 1e9);  // a corrupt 1e308 would print 300 digits
}

// 4096 -> "4 KiB", 1536 -> "1.5 KiB", 100 -> "100 B".
inline std::string format_bytes(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0) return strf("%llu B", static_cast<unsigned long long>(b));
  const bool whole = v == static_cast<double>(static_cast<std::uint64_t>(v));
  return whole ? strf("%.0f %s", v, units[u]) : strf(v < 10 ? "%.2f %s" : "%.1f %s", v, units[u]);
}

// 12345 -> "12,345": node counts of big graphs read better grouped.
inline std::string group_digits(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

// A count as people write it: whole numbers whole and grouped ("30,000", never "3e+04" or
// "10.000000"), others with at most two decimals ("30,000.5", "2.25") or, below 1, three
// significant digits ("0.125"); "-" when not finite. The one number formatter of counts and
// other figures without a time unit.
inline std::string format_count(double n) {
  if (!std::isfinite(n)) return "-";
  const double r = std::round(n);
  if (std::fabs(n - r) < 1e-9 * std::max(1.0, std::fabs(n)) && std::fabs(r) < 1e18)
    return (r < 0 ? "-" : "") + group_digits(static_cast<std::uint64_t>(std::fabs(r)));
  if (std::fabs(n) < 1) return strf(std::fabs(n) < 1e-3 ? "%.2g" : "%.3g", n);
  std::string s = strf("%.2f", std::fabs(n));
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  const std::size_t point = std::min(s.find('.'), s.size());
  for (std::size_t i = point; i > 3; i -= 3) s.insert(i - 3, ",");
  return (n < 0 ? "-" : "") + s;
}

// A count with its noun, the one pluraliser of the outputs: plural(1, "replay", "replays") is
// "1 replay", plural(30000, "node", "nodes") "30,000 nodes", plural(2.5, "run", "runs") "2.5 runs".
template <typename N, std::enable_if_t<std::is_integral_v<N>, int> = 0>
std::string plural(N n, const std::string& one, const std::string& many) {
  if constexpr (std::is_signed_v<N>)
    if (n < 0) return strf("%lld ", static_cast<long long>(n)) + many;
  return group_digits(static_cast<std::uint64_t>(n)) + " " + (n == 1 ? one : many);
}
inline std::string plural(double n, const std::string& one, const std::string& many) {
  return format_count(n) + " " + (format_count(n) == "1" ? one : many);
}

// Columns a UTF-8 string takes on a terminal: one per code point (continuation bytes don't count).
// Wide (CJK) and combining characters are not special-cased; graphprof prints none.
inline std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

// Spaces that bring `s` up to `width` columns (none when it is already as wide or wider).
inline std::string padding(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return std::string(w < width ? width - w : 0, ' ');
}

// `s` cut to at most `max` columns, ending in `mark` when cut. Cuts between code points: a cut
// inside a UTF-8 sequence leaves invalid UTF-8 (garbage on a terminal; Graphviz then reads a whole
// picture's labels as Latin-1).
inline std::string clip_columns(const std::string& s, std::size_t max, const std::string& mark = "...") {
  if (display_width(s) <= max) return s;
  const std::size_t mark_width = display_width(mark);
  const std::size_t keep = max > mark_width ? max - mark_width : 0;
  std::string out;
  std::size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80 && ++n > keep) break;
    out += static_cast<char>(c);
  }
  return out + mark;
}

// `text` (one paragraph, no newline) broken at spaces into lines of at most `width` columns, each
// continuation line starting with `indent`; a word longer than a line stays whole. Every line ends
// in a newline. For the console's sentences (the answer, the commands that show more), so that they
// read in a terminal of kSentenceWidth columns without the terminal breaking words.
// The width the console's sentences are wrapped to (its tables are as wide as their columns).
constexpr std::size_t kSentenceWidth = 110;

inline std::string wrap_words(const std::string& text, std::size_t width, const std::string& indent = "  ") {
  std::string out, line;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      out += line + "\n";
      line = indent + word;
    } else {
      line += (line.empty() ? "" : " ") + word;
    }
    start = end + 1;
  }
  return out + line + "\n";
}

// The same for a sentence of clauses joined by `separator` ("; "): lines break between clauses
// where they can (a clause wider than a line is broken at spaces), so a line holds whole clauses.
inline std::string wrap_clauses(const std::string& text, std::size_t width, const std::string& indent = "  ",
                                const std::string& separator = "; ") {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(separator, start);
    const bool last = end == std::string::npos;
    const std::string clause = text.substr(start, last ? std::string::npos : end + separator.size() - 1 - start);
    start = last ? text.size() : end + separator.size();
    if (!line.empty() && display_width(line) + 1 + display_width(clause) > width) {
      out += line + "\n";
      line = indent;
    } else if (!line.empty()) {
      line += " ";
    }
    line += clause;
    if (display_width(line) > width) {
      std::string wrapped = wrap_words(line, width, indent);
      const std::size_t cut = wrapped.rfind('\n', wrapped.size() - 2);
      out += cut == std::string::npos ? "" : wrapped.substr(0, cut + 1);
      line = wrapped.substr(cut == std::string::npos ? 0 : cut + 1);
      line.pop_back();  // its newline
    }
  }
  return out + line + "\n";
}

// `s` on one line and without terminal escapes: control characters (a newline or an ESC in a
// hostile report's workload or GPU name) are shown as \n, \t, \xNN. For what a terminal prints.
inline std::string one_line(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += strf("\\x%02x", c);
    else out += static_cast<char>(c);
  }
  return out;
}

// `s` left-aligned / right-aligned in `width` columns.
// The items with `separator` between them: join({"a", "b"}, ", ") is "a, b".
inline std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i == 0 ? "" : separator) + items[i];
  return s;
}

inline std::string pad_right(const std::string& s, std::size_t width) { return s + padding(s, width); }
inline std::string pad_left(const std::string& s, std::size_t width) { return padding(s, width) + s; }

// A terminal table aligned by display width: two spaces of indent and two between columns.
// kNumbers: the first column left-aligned, the others right-aligned, a rule under the header (run
// and sweep console, profile). kText: every column left-aligned, no rule (trace summary).
class TextTable {
 public:
  enum class Layout { kNumbers, kText };
  explicit TextTable(std::vector<std::string> header, Layout layout = Layout::kNumbers) : layout_(layout) {
    rows_.push_back(std::move(header));
  }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  std::string str() const {
    std::vector<std::size_t> w;
    for (const auto& r : rows_)
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (w.size() <= i) w.push_back(0);
        if (display_width(r[i]) > w[i]) w[i] = display_width(r[i]);
      }
    std::string out;
    for (std::size_t k = 0; k < rows_.size(); ++k) {
      const auto& r = rows_[k];
      out += "  ";
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (i > 0) out += "  ";
        if (layout_ == Layout::kNumbers && i > 0) out += pad_left(r[i], w[i]);
        else if (layout_ == Layout::kText && i + 1 == r.size()) out += r[i];  // no trailing blanks
        else out += pad_right(r[i], w[i]);
      }
      out += "\n";
      if (k == 0 && layout_ == Layout::kNumbers) {
        std::size_t total = 0;
        for (std::size_t i = 0; i < w.size(); ++i) total += w[i] + (i ? 2 : 0);
        out += "  " + std::string(total, '-') + "\n";
      }
    }
    return out;
  }

 private:
  Layout layout_;
  std::vector<std::vector<std::string>> rows_;
};

// `text` safe inside XML/HTML/SVG text and attribute values (also Graphviz HTML-like labels):
// & < > " ' as entities. The one escaper of the HTML report, the graph renderer and JUnit XML.
inline std::string markup_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace gp
