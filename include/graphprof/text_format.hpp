// Text helpers: printf into a string, padding for terminal tables by display width, and markup
// escaping.
// Padding text for terminal tables by display width: UTF-8 code points, not bytes, so a cell
// holding "µs" or "±" (two bytes, one column) lines up with plain ASCII cells. The one helper
// every table printer uses (run/sweep console, compare console, trace summary, profile, analyze).
#pragma once
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <string>

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

// `s` left-aligned / right-aligned in `width` columns.
inline std::string pad_right(const std::string& s, std::size_t width) { return s + padding(s, width); }
inline std::string pad_left(const std::string& s, std::size_t width) { return padding(s, width) + s; }

// `text` safe inside XML/HTML/SVG text and attribute values (also Graphviz HTML-like labels):
// & < > " ' as entities. The one escaper of the HTML report and the graph renderer.
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
