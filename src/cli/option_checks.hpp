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

// (option or role, path) pairs; an empty path is one not given.
using NamedPaths = std::vector<std::pair<std::string, std::string>>;

// No output of a command replaces one of its inputs or another of its outputs: the same file by
// device and inode, also through symbolic links (an output that does not exist yet is some
// other output's only when both lead to the same new file). Exit 2 naming both, before anything
// is read, measured or written. Standard output ("-") and files that are not regular (a terminal,
// /dev/null, a FIFO) are written through and never clash; one_output_on_stdout checks stdout.
void outputs_apart(const NamedPaths& inputs, const NamedPaths& outputs);

}  // namespace gp::cli
