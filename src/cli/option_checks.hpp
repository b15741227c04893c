// Checks every subcommand's options share, applied where the options are declared (finite
// numbers) or once over the whole command line (empty values), so no option can forget them.
#pragma once
#include <CLI/CLI.hpp>

namespace gp::cli {

// A number that is neither nan nor inf, put before CLI::Range on a floating option: Range lets
// nan through (every comparison with nan is false) and a later check would blame another option.
CLI::Validator finite_number();

// Every option of every subcommand that takes a value rejects an explicitly empty one
// (`--json ''`, `compare '' B`): exit 2 with "--json: empty value" instead of an empty string that
// reads as "not given" and is silently ignored. Call once, after every subcommand is declared.
void reject_empty_values(CLI::App& app);

}  // namespace gp::cli
