// Text whose bytes are valid UTF-8. A path in a Latin-1 folder, an argument with byte 0xff or a
// name from a program's debug information reaches graphprof's pages, tables and summaries as it
// is; every text file graphprof writes goes through valid_utf8, which replaces each byte that
// does not belong to a well-formed UTF-8 sequence with U+FFFD (as nlohmann::json's dump does with
// error_handler_t::replace, json_text.hpp), so that no reader chokes on the file.
#pragma once
#include <string>
#include <string_view>

namespace gp {

// The length of the well-formed UTF-8 sequence starting at s[i] (1 to 4), or 0 when there is none
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
  else return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  return n;
}

inline std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace gp
