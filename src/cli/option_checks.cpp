// Checks every subcommand's options share (see option_checks.hpp).
#include "option_checks.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"

namespace gp::cli {

namespace {

// profile's COMMAND is the application's own argument list, where an empty string is an argument.
bool passes_through(const CLI::Option& opt) { return opt.get_positional() && opt.get_name() == "command"; }

// What a path leads to: the file (device, inode) when it exists, else where it would be made.
struct FileIdentity {
  bool exists = false;
  bool regular = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string made_at;  // absolute, links followed, folders canonical
};

FileIdentity identify(const std::string& path) {
  FileIdentity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.regular = S_ISREG(st.st_mode);
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::absolute(output_target(path), ec);
  id.made_at = (ec ? std::filesystem::path(path) : std::filesystem::weakly_canonical(target, ec)).lexically_normal().string();
  return id;
}

bool same_file(const FileIdentity& a, const FileIdentity& b) {
  if (a.exists != b.exists) return false;
  if (a.exists) return a.regular && b.regular && a.dev == b.dev && a.ino == b.ino;
  return !a.made_at.empty() && a.made_at == b.made_at;
}

// Paths that are written through or read from a stream: never replaced, checked elsewhere.
bool is_stream(const std::string& path) { return path == "-" || names_stdout(path); }

}  // namespace

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.empty()) return "empty value";
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (end != value.c_str() + value.size()) return "'" + value + "' is not a number";
        if (!std::isfinite(v)) return value + " is not a finite number";
        return {};
      },
      "", "finite");
}

void reject_empty_values(CLI::App& app) {
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? std::string("empty value") : std::string(); }, "", "non-empty");
  for (CLI::Option* opt : app.get_options()) {
    // Flags take no value; --help and --version are flags.
    if (opt->get_type_size_max() == 0 || passes_through(*opt)) continue;
    opt->check(non_empty);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) reject_empty_values(*sub);
}

void one_output_on_stdout(const std::vector<std::pair<std::string, std::string>>& outputs) {
  const std::string* first = nullptr;
  for (const auto& [option, path] : outputs) {
    if (!names_stdout(path)) continue;
    if (first != nullptr)
      throw usage_error(option + " " + path + ": " + *first + " already writes to standard output; give one of them a file");
    first = &option;
  }
}

void outputs_apart(const NamedPaths& inputs, const NamedPaths& outputs) {
  std::vector<std::pair<const std::pair<std::string, std::string>*, FileIdentity>> seen;
  for (const auto& in : inputs) {
    if (in.second.empty() || is_stream(in.second)) continue;
    FileIdentity id = identify(in.second);
    if (id.exists && id.regular) seen.emplace_back(&in, std::move(id));
  }
  const std::size_t input_count = seen.size();
  for (const auto& out : outputs) {
    if (out.second.empty() || is_stream(out.second)) continue;
    FileIdentity id = identify(out.second);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      if (!same_file(id, seen[i].second)) continue;
      const auto& [name, path] = *seen[i].first;
      if (i < input_count)
        throw usage_error(out.first + " " + out.second + ": the same file as " + name + " " + path +
                          ", which this command reads; an output never replaces an input, give it another name");
      throw usage_error(out.first + " " + out.second + ": the same file as " + name + " " + path +
                        "; give each output a file of its own");
    }
    seen.emplace_back(&out, std::move(id));
  }
}

}  // namespace gp::cli
