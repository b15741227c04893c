// graphprof's --help: every line at most kHelpColumns wide (CLI11 2.1 does not wrap; descriptions
// and footers are wrapped here at spaces) and every command's help ending in examples.
#pragma once
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace gp::cli {

constexpr std::size_t kHelpColumns = 100;

// `text` wrapped at spaces to `width` columns; its own line breaks are kept, and a wrapped line
// goes on at the indentation of the line it belongs to. A word longer than the width stays whole.
std::string wrap_help(const std::string& text, std::size_t width);

// Gives `app` the wrapping formatter; subcommands added after this call inherit it.
void use_help_format(CLI::App& app);

// `sub`'s footer: `text` (notes, exit codes), then "Examples:" with one command line per line.
void help_footer(CLI::App* sub, const std::string& text, const std::vector<std::string>& examples);

}  // namespace gp::cli
