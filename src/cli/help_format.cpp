// The wrapping --help formatter and the examples footer (help_format.hpp).
#include "help_format.hpp"

#include <memory>
#include <sstream>

namespace gp::cli {

namespace {

std::string wrap_line(const std::string& line, std::size_t width) {
  const std::size_t indent = line.find_first_not_of(' ');
  if (indent == std::string::npos || line.size() <= width) return line;
  const std::string pad(indent, ' ');
  std::string out, current = pad;
  std::istringstream words(line.substr(indent));
  std::string word;
  while (words >> word) {
    if (current.size() > indent && current.size() + 1 + word.size() > width) {
      out += current + "\n";
      current = pad;
    }
    current += (current.size() > indent ? " " : "") + word;
  }
  return out + current;
}

class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* opt) const override {
    return wrap_help(CLI::Formatter::make_option_desc(opt), description_width());
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true), wrap_help(sub->get_description(), description_width()),
                             get_column_width());
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap_help(CLI::Formatter::make_description(app), kHelpColumns);
  }
  std::string make_footer(const CLI::App* app) const override {
    return wrap_help(CLI::Formatter::make_footer(app), kHelpColumns);
  }

 private:
  // What is left of a line right of the names column.
  std::size_t description_width() const { return kHelpColumns - get_column_width(); }
};

}  // namespace

std::string wrap_help(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = text.find('\n', start);
    out += wrap_line(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start), width);
    if (nl == std::string::npos) return out;
    out += "\n";
    start = nl + 1;
  }
}

void use_help_format(CLI::App& app) { app.formatter(std::make_shared<WrappingFormatter>()); }

void help_footer(CLI::App* sub, const std::string& text, const std::vector<std::string>& examples) {
  std::string footer = text.empty() ? std::string() : text + "\n";
  footer += examples.size() == 1 ? "Example:" : "Examples:";
  for (const auto& e : examples) footer += "\n  " + e;
  sub->footer(footer);
}

}  // namespace gp::cli
