// Checks every subcommand's options share, applied where the options are declared (finite
// numbers) or once over the whole command line (empty values), so no option can forget them.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

namespace gp::cli {

// A number that is neither nan nor inf, put before CLI::Range on a floating option: Range lets
// nan through (every comparison with nan is false) and a later check would blame another option.
CLI::Validator finite_number();

// Every option of every subcommand that takes a value rejects an explicitly empty one
// (`--json ''`, `compare '' B`): exit 2 with "--json: empty value" instead of an empty string that
// reads as "not given" and is silently ignored. Call once, after every subcommand is declared.
void reject_empty_values(CLI::App& app);

// At most one of a command's outputs may be standard output ("-", /dev/stdout): two would be
// concatenated into one stream that no reader can split. Exit 2 naming both options. Pairs of
// (option, path); empty paths are outputs not asked for.
void one_output_on_stdout(const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace gp::cli
