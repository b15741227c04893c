// The DOT lexer of the DOT reader (dot_reader.cpp, its only user): tokens over text in memory,
// IDs unquoted and unescaped as cgraph 2.42 does ("\"" the only escape a quoted string loses, a
// backslash-newline joining lines), line numbers for messages. Private to src/graph.
#pragma once
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

#include "dot_reader.hpp"
#include "node_label.hpp"

namespace gp::detail {

enum class Tok {
  kEnd, kId, kLBrace, kRBrace, kLBracket, kRBracket, kSemi, kComma, kEq, kColon, kArrow, kDash,
  kStrict, kGraph, kDigraph, kSubgraph, kNode, kEdge,
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;  // IDs: the value (unquoted, unescaped); other tokens: their characters
  int line = 1;
};

inline bool is_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80; }
inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

inline bool keyword_is(std::string_view word, std::string_view keyword) {
  if (word.size() != keyword.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != keyword[i]) return false;
  }
  return true;
}

// A token as a message shows it: on one line, at most 40 bytes, valid UTF-8.
inline std::string shown(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 40)) {
    if (c == '\n') out += "\\n";
    else if (c == '\r' || c == '\t') out += ' ';
    else out += c;
  }
  if (text.size() > 40) out += "...";
  return valid_utf8(out);
}

class Lexer {
 public:
  Lexer(std::string_view text, std::deque<std::string>& storage) : s_(text), storage_(storage) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark
  }

  Token next() {
    skip_space();
    Token t;
    t.line = line_;
    if (pos_ >= s_.size()) return t;
    const char c = s_[pos_];
    auto single = [&](Tok kind) {
      t.kind = kind;
      t.text = s_.substr(pos_++, 1);
      return t;
    };
    switch (c) {
      case '{': return single(Tok::kLBrace);
      case '}': return single(Tok::kRBrace);
      case '[': return single(Tok::kLBracket);
      case ']': return single(Tok::kRBracket);
      case ';': return single(Tok::kSemi);
      case ',': return single(Tok::kComma);
      case '=': return single(Tok::kEq);
      case ':': return single(Tok::kColon);
      case '"': return quoted();
      case '<': return html();
      case '-':
        if (pos_ + 1 < s_.size() && (s_[pos_ + 1] == '>' || s_[pos_ + 1] == '-')) {
          t.kind = s_[pos_ + 1] == '>' ? Tok::kArrow : Tok::kDash;
          t.text = s_.substr(pos_, 2);
          pos_ += 2;
          return t;
        }
        return numeral();
      default: break;
    }
    if (is_digit(static_cast<unsigned char>(c)) || c == '.') return numeral();
    if (is_letter(static_cast<unsigned char>(c))) return identifier();
    throw DotSyntaxError(line_, "unexpected character '" + shown(s_.substr(pos_, 1)) + "'");
  }

 private:
  void skip_space() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '#' || (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/')) {
        // A line comment: "//", or "#" as cgraph reads it (C preprocessor lines, shell comments).
        const std::size_t nl = s_.find('\n', pos_);
        pos_ = nl == std::string_view::npos ? s_.size() : nl;
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '*') {
        const std::size_t end = s_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) throw DotSyntaxError(line_, "a /* comment is not closed (truncated file?)");
        line_ += static_cast<int>(std::count(s_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                             s_.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
        pos_ = end + 2;
      } else {
        return;
      }
    }
  }

  Token identifier() {
    const std::size_t b = pos_;
    while (pos_ < s_.size() && (is_letter(static_cast<unsigned char>(s_[pos_])) ||
                                is_digit(static_cast<unsigned char>(s_[pos_]))))
      ++pos_;
    Token t;
    t.line = line_;
    t.text = s_.substr(b, pos_ - b);
    t.kind = Tok::kId;
    static const std::pair<const char*, Tok> kKeywords[] = {
        {"node", Tok::kNode},         {"edge", Tok::kEdge},         {"graph", Tok::kGraph},
        {"digraph", Tok::kDigraph},   {"subgraph", Tok::kSubgraph}, {"strict", Tok::kStrict},
    };
    for (const auto& [word, kind] : kKeywords)
      if (keyword_is(t.text, word)) t.kind = kind;
    return t;
  }

  // [-]?(.[0-9]+ | [0-9]+(.[0-9]*)?). A letter right after it starts the next token (cgraph
  // warns about such "badly delimited" numbers and reads them the same way).
  Token numeral() {
    const std::size_t b = pos_;
    if (s_[pos_] == '-') ++pos_;
    std::size_t digits = 0;
    while (pos_ < s_.size() && is_digit(static_cast<unsigned char>(s_[pos_]))) ++pos_, ++digits;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      while (pos_ < s_.size() && is_digit(static_cast<unsigned char>(s_[pos_]))) ++pos_, ++digits;
    }
    if (digits == 0) throw DotSyntaxError(line_, "unexpected '" + shown(s_.substr(b, pos_ - b + 1)) + "'");
    Token t;
    t.kind = Tok::kId;
    t.line = line_;
    t.text = s_.substr(b, pos_ - b);
    return t;
  }

  // One "..." at pos_ (at the opening quote): its value, a view when nothing had to be undone.
  std::string_view one_quoted() {
    const int first_line = line_;
    const std::size_t b = pos_ + 1;
    std::size_t i = b;
    bool escapes = false;
    while (i < s_.size() && s_[i] != '"') {
      if (s_[i] == '\\' && i + 1 < s_.size()) {
        escapes = true;
        if (s_[i + 1] == '\n') ++line_;
        i += 2;
        continue;
      }
      if (s_[i] == '\n') ++line_;
      ++i;
    }
    if (i >= s_.size())
      throw DotSyntaxError(first_line, "a quoted string is not closed (truncated file?)");
    pos_ = i + 1;
    const std::string_view raw = s_.substr(b, i - b);
    if (!escapes) return raw;
    // cgraph keeps every escape for the attribute's reader (\n, \l, \N, \<, \\ ...) except \",
    // and drops a backslash before a newline (a continued line).
    std::string v;
    v.reserve(raw.size());
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '\\' && k + 1 < raw.size()) {
        const char n = raw[k + 1];
        if (n == '"') v += '"';
        else if (n != '\n') v.append(raw, k, 2);
        ++k;
        continue;
      }
      v += raw[k];
    }
    return storage_.emplace_back(std::move(v));
  }

  // "a" + "b" + ... as one ID.
  Token quoted() {
    Token t;
    t.kind = Tok::kId;
    t.line = line_;
    t.text = one_quoted();
    std::string* joined = nullptr;
    for (;;) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '+') break;
      ++pos_;
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '"')
        throw DotSyntaxError(line_, "'+' must be followed by a quoted string");
      const std::string_view more = one_quoted();
      if (joined == nullptr) joined = &storage_.emplace_back(t.text);
      joined->append(more);
    }
    if (joined != nullptr) t.text = *joined;
    return t;
  }

  // <...> with balanced angle brackets inside; the value is the text between the outer two.
  Token html() {
    Token t;
    t.kind = Tok::kId;
    t.line = line_;
    std::size_t i = pos_ + 1;
    long depth = 1;
    while (i < s_.size()) {
      const char c = s_[i++];
      if (c == '<') ++depth;
      else if (c == '>' && --depth == 0) break;
      else if (c == '\n') ++line_;
    }
    if (depth != 0) throw DotSyntaxError(t.line, "an HTML string <...> is not closed (truncated file?)");
    t.text = s_.substr(pos_ + 1, i - 1 - (pos_ + 1));
    pos_ = i;
    return t;
  }

  std::string_view s_;
  std::deque<std::string>& storage_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace gp::detail
