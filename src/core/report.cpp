// Report <-> JSON, with validation that names the file and the field that is wrong.
#include "graphprof/core/json_text.hpp"
#include "graphprof/core/report.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <thread>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/device_level.hpp"
#include "graphprof/core/error.hpp"
#include "report_reader.hpp"

namespace gp {

using nlohmann::json;

const char* to_string(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kFailed: return "failed";
    case Status::kUnsupported: return "unsupported";
  }
  return "failed";
}

Status status_from_string(const std::string& s) {
  if (s == "ok") return Status::kOk;
  if (s == "failed") return Status::kFailed;
  if (s == "unsupported") return Status::kUnsupported;
  throw input_error("unknown status '" + s + "'");
}

std::vector<double> Metric::all_samples() const {
  std::vector<double> all;
  for (const auto& rep : repetitions) all.insert(all.end(), rep.begin(), rep.end());
  return all;
}

void Metric::resummarize() { summary = summarize(all_samples()); }

const ModeResult* Report::find(const std::string& workload, Mode mode,
                               const std::map<std::string, std::string>& params) const {
  for (const auto& r : results)
    if (r.workload == workload && r.mode == mode && r.params == params) return &r;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Writing

namespace {
// JSON has no NaN/inf; write them as null so the document stays valid, and read null back as NaN.
json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
}  // namespace

json to_json(const Summary& s) {
  return json{{"n", s.n},
              {"median", number_or_null(s.median)},
              {"mean", number_or_null(s.mean)},
              {"min", number_or_null(s.min)},
              {"max", number_or_null(s.max)},
              {"p10", number_or_null(s.p10)},
              {"p90", number_or_null(s.p90)},
              {"p99", number_or_null(s.p99)},
              {"mad", number_or_null(s.mad)},
              {"ci_low", number_or_null(s.ci_low)},
              {"ci_high", number_or_null(s.ci_high)},
              {"ci_level", s.ci_level}};
}

json to_json(const Metric& m) {
  json reps = json::array();
  for (const auto& rep : m.repetitions) {
    json a = json::array();
    for (double v : rep) a.push_back(number_or_null(v));
    reps.push_back(std::move(a));
  }
  return json{{"unit", m.unit},
              {"direction", to_string(m.direction)},
              {"description", m.description},
              {"converged", m.converged},
              {"summary", to_json(m.summary)},
              {"repetitions", std::move(reps)}};
}

json to_json(const ModeResult& r) {
  json j{{"workload", r.workload}, {"mode", to_string(r.mode)}, {"params", r.params},
         {"status", to_string(r.status)}};
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (r.failure) {
    j["failure"] = json{{"api", r.failure->api}, {"error", r.failure->error},
                        {"message", r.failure->message}, {"hint", r.failure->hint}};
  }
  json metrics = json::object();
  for (const auto& [k, m] : r.metrics) metrics[k] = to_json(m);
  j["metrics"] = std::move(metrics);
  json derived = json::object();
  for (const auto& [k, v] : r.derived) derived[k] = number_or_null(v);
  j["derived"] = std::move(derived);
  // Why the two device figures differ, when they do (recomputed from the result on every write).
  if (const std::string note = device_methods_note(r); !note.empty()) j["device_methods_note"] = note;
  j["checksum"] = r.checksum;
  j["checksum_matches_eager"] = r.checksum_matches_eager ? json(*r.checksum_matches_eager) : json(nullptr);
  j["sections"] = to_json(r.sections);
  return j;
}

json to_json(const Report& r) {
  json env;
  env["host"] = json{{"hostname", r.environment.host.hostname}, {"os", r.environment.host.os},
                     {"kernel", r.environment.host.kernel}, {"cpu_model", r.environment.host.cpu_model},
                     {"cpu_count", r.environment.host.cpu_count}, {"compiler", r.environment.host.compiler}};
  if (r.environment.gpu) {
    const GpuInfo& g = *r.environment.gpu;
    env["gpu"] = json{{"ordinal", g.ordinal}, {"name", g.name}, {"uuid", g.uuid},
                      {"pci_bus_id", g.pci_bus_id}, {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
                      {"sm_count", g.sm_count}, {"global_memory_bytes", g.global_memory_bytes},
                      {"clock_khz", g.clock_khz}, {"memory_clock_khz", g.memory_clock_khz},
                      {"driver_version", g.driver_version}, {"runtime_version", g.runtime_version},
                      {"cupti_version", g.cupti_version}};
  } else {
    env["gpu"] = nullptr;
  }
  json probes = json::object();
  for (const auto& [k, v] : r.environment.probes) probes[k] = number_or_null(v);
  env["probes"] = std::move(probes);
  json results = json::array();
  for (const auto& m : r.results) results.push_back(to_json(m));
  return json{{"schema_version", r.schema_version},
              {"tool", {{"name", "graphprof"}, {"version", r.tool_version}, {"git_revision", r.git_revision}}},
              {"created_utc", r.created_utc},
              {"command_line", r.command_line},
              {"environment", std::move(env)},
              {"settings", to_json(r.settings)},
              {"results", std::move(results)}};
}

// ---------------------------------------------------------------------------------------------
// Reading: every accessor names the JSON path that is wrong.

namespace {

// The leading decimal integer of `s` ("9.0" -> 9), clamped to int (std::atoi overflows into UB).
int leading_int(const std::string& s) {
  const long v = std::strtol(s.c_str(), nullptr, 10);
  return static_cast<int>(std::clamp<long>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

using detail::Reader;

Summary summary_from_json(const Reader& rd, const json& j, const std::string& where) {
  Summary s;
  if (!j.is_object()) rd.fail(where, "expected an object");
  s.n = static_cast<std::size_t>(rd.integer_or(j, where, "n", 0, 0, std::numeric_limits<long long>::max()));
  auto get = [&](const char* k) { return j.contains(k) ? rd.num(j.at(k), where + "." + k) : std::numeric_limits<double>::quiet_NaN(); };
  s.median = get("median"); s.mean = get("mean"); s.min = get("min"); s.max = get("max");
  s.p10 = get("p10"); s.p90 = get("p90"); s.p99 = get("p99"); s.mad = get("mad");
  s.ci_low = get("ci_low"); s.ci_high = get("ci_high");
  if (j.contains("ci_level")) s.ci_level = rd.num(j.at("ci_level"), where + ".ci_level");
  return s;
}

Metric metric_from_json(const Reader& rd, const json& j, const std::string& where) {
  Metric m;
  m.unit = rd.str(j, where, "unit");
  try {
    m.direction = direction_from_string(rd.str(j, where, "direction"));
  } catch (const Error& e) {
    rd.fail(where + ".direction", e.what());
  }
  m.description = rd.str_or(j, "description", "");
  if (j.contains("converged") && j.at("converged").is_boolean()) m.converged = j.at("converged").get<bool>();
  const json& reps = rd.field(j, where, "repetitions");
  if (!reps.is_array()) rd.fail(where + ".repetitions", "expected an array of arrays");
  for (std::size_t i = 0; i < reps.size(); ++i) {
    const std::string w = where + ".repetitions[" + std::to_string(i) + "]";
    if (!reps[i].is_array()) rd.fail(w, "expected an array of numbers");
    std::vector<double> rep;
    rep.reserve(reps[i].size());
    for (std::size_t k = 0; k < reps[i].size(); ++k)
      rep.push_back(rd.num(reps[i][k], w + "[" + std::to_string(k) + "]"));
    m.repetitions.push_back(std::move(rep));
  }
  if (j.contains("summary")) m.summary = summary_from_json(rd, j.at("summary"), where + ".summary");
  else m.resummarize();
  return m;
}

ModeResult result_from_json(const Reader& rd, const json& j, const std::string& where) {
  ModeResult r;
  r.workload = rd.str(j, where, "workload");
  const std::string mode = rd.str(j, where, "mode");
  const std::optional<Mode> m = mode_from_string(mode);
  if (!m) rd.fail(where + ".mode", "unknown mode '" + mode + "' (eager, capture, graph or app)");
  r.mode = *m;
  const json& params = rd.field(j, where, "params");
  if (!params.is_object()) rd.fail(where + ".params", "expected an object");
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (!it->is_string()) rd.fail(where + ".params." + it.key(), "expected a string");
    r.params[it.key()] = it->get<std::string>();
  }
  try {
    r.status = status_from_string(rd.str(j, where, "status"));
  } catch (const Error& e) {
    rd.fail(where + ".status", e.what());
  }
  r.reason = rd.str_or(j, "reason", "");
  if (j.contains("failure") && j.at("failure").is_object()) {
    const json& f = j.at("failure");
    r.failure = Failure{rd.str_or(f, "api", ""), rd.str_or(f, "error", ""), rd.str_or(f, "message", ""),
                        rd.str_or(f, "hint", "")};
  }
  if (j.contains("metrics")) {
    const json& ms = j.at("metrics");
    if (!ms.is_object()) rd.fail(where + ".metrics", "expected an object");
    for (auto it = ms.begin(); it != ms.end(); ++it)
      r.metrics[it.key()] = metric_from_json(rd, *it, where + ".metrics." + it.key());
  }
  if (j.contains("derived") && j.at("derived").is_object()) {
    for (auto it = j.at("derived").begin(); it != j.at("derived").end(); ++it)
      r.derived[it.key()] = rd.num(*it, where + ".derived." + it.key());
  }
  r.checksum = rd.str_or(j, "checksum", "");
  if (j.contains("checksum_matches_eager") && j.at("checksum_matches_eager").is_boolean())
    r.checksum_matches_eager = j.at("checksum_matches_eager").get<bool>();
  if (j.contains("sections")) r.sections = sections_from_json(j.at("sections"), rd.source + ": " + where + ".sections");
  return r;
}

}  // namespace

Report report_from_json(const json& j, const std::string& source) {
  Reader rd{source};
  if (!j.is_object()) rd.fail("(document)", "expected a JSON object (is this a graphprof report?)");
  // graphprof's other JSON files, named for what they are instead of a version complaint.
  const std::string schema = j.contains("schema") && j.at("schema").is_string() ? j.at("schema").get<std::string>() : "";
  if (schema == "graphprof-compare")
    rd.fail("(document)", "this is a comparison (graphprof compare --json), not a report of run, sweep or profile; "
                          "give the reports that were compared (graphprof report --compare takes a comparison)");
  if (schema.rfind("graphprof.graph-analysis", 0) == 0)
    rd.fail("(document)", "this is a graph analysis (graphprof analyze --json), not a report of run, sweep or profile");
  if (j.contains("traceEvents"))
    rd.fail("(document)", "this is a Chrome trace-event file (--trace-out), not a report of run, sweep or profile");
  if (!j.contains("schema_version") && j.contains("kernels") && j.contains("api"))
    rd.fail("(document)", "these are a trace pass's raw records (--trace-records), not a report of run, sweep or profile");
  Report r;
  r.schema_version = rd.str(j, "(document)", "schema_version");
  const int major = leading_int(r.schema_version);
  if (major != kReportSchemaMajor)
    rd.fail("schema_version", "version " + r.schema_version + " is not readable by this graphprof (reads " +
                                  std::to_string(kReportSchemaMajor) + ".x)");
  if (j.contains("tool") && j.at("tool").is_object()) {
    r.tool_version = rd.str_or(j.at("tool"), "version", "");
    r.git_revision = rd.str_or(j.at("tool"), "git_revision", "");
  }
  r.created_utc = rd.str_or(j, "created_utc", "");
  if (j.contains("command_line") && j.at("command_line").is_array())
    for (const auto& a : j.at("command_line"))
      if (a.is_string()) r.command_line.push_back(a.get<std::string>());
  if (j.contains("environment") && j.at("environment").is_object()) {
    const json& env = j.at("environment");
    if (env.contains("host") && env.at("host").is_object()) {
      const json& h = env.at("host");
      r.environment.host = HostInfo{rd.str_or(h, "hostname", ""), rd.str_or(h, "os", ""), rd.str_or(h, "kernel", ""),
                                    rd.str_or(h, "cpu_model", ""), rd.str_or(h, "compiler", ""),
                                    static_cast<int>(rd.integer_or(h, "environment.host", "cpu_count", 0))};
    }
    if (env.contains("gpu") && env.at("gpu").is_object()) {
      const json& g = env.at("gpu");
      GpuInfo gi;
      gi.ordinal = static_cast<int>(rd.integer_or(g, "environment.gpu", "ordinal", 0));
      gi.name = rd.str_or(g, "name", "");
      gi.uuid = rd.str_or(g, "uuid", "");
      gi.pci_bus_id = rd.str_or(g, "pci_bus_id", "");
      const std::string cc = rd.str_or(g, "compute_capability", "0.0");
      gi.cc_major = leading_int(cc);
      const auto dot = cc.find('.');
      gi.cc_minor = dot == std::string::npos ? 0 : leading_int(cc.substr(dot + 1));
      gi.sm_count = static_cast<int>(rd.integer_or(g, "environment.gpu", "sm_count", 0));
      gi.global_memory_bytes = rd.integer_or(g, "environment.gpu", "global_memory_bytes", 0, 0, std::numeric_limits<long long>::max());
      gi.clock_khz = static_cast<int>(rd.integer_or(g, "environment.gpu", "clock_khz", 0));
      gi.memory_clock_khz = static_cast<int>(rd.integer_or(g, "environment.gpu", "memory_clock_khz", 0));
      gi.driver_version = static_cast<int>(rd.integer_or(g, "environment.gpu", "driver_version", 0));
      gi.runtime_version = static_cast<int>(rd.integer_or(g, "environment.gpu", "runtime_version", 0));
      gi.cupti_version = static_cast<int>(rd.integer_or(g, "environment.gpu", "cupti_version", 0));
      r.environment.gpu = gi;
    }
  }
  if (j.contains("environment") && j.at("environment").is_object() && j.at("environment").contains("probes") &&
      j.at("environment").at("probes").is_object()) {
    const json& p = j.at("environment").at("probes");
    for (auto it = p.begin(); it != p.end(); ++it) r.environment.probes[it.key()] = rd.num(*it, "environment.probes." + it.key());
  }
  if (j.contains("settings") && !j.at("settings").is_null()) {
    r.settings = settings_from_json(j.at("settings"), source);
  }
  const json& results = rd.field(j, "(document)", "results");
  if (!results.is_array()) rd.fail("results", "expected an array");
  for (std::size_t i = 0; i < results.size(); ++i)
    r.results.push_back(result_from_json(rd, results[i], "results[" + std::to_string(i) + "]"));
  return r;
}

namespace {
// Turn a byte offset into 1-based line and column for "FILE:LINE:COL" messages.
std::pair<std::size_t, std::size_t> line_col(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
  }
  return {line, col};
}
}  // namespace

nlohmann::json read_json_file(const std::string& path) { return parse_json_text(read_file(path), path); }

nlohmann::json parse_json_text(const std::string& text, const std::string& path) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw input_error(path + ":1:1: file is empty");
  // Deeply nested documents are refused while parsing: copying or destroying such a tree recurses
  // once per level and overflows the stack long before memory runs out.
  const json::parser_callback_t depth_limit = [&path](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw input_error(path + ": nested deeper than " + std::to_string(kMaxJsonDepth) +
                        " levels; no graphprof document is");
    return true;
  };
  try {
    return json::parse(text, depth_limit);
  } catch (const json::out_of_range& e) {
    // A number beyond double's range (1e400): nlohmann reports it as out_of_range.
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw input_error(path + ": invalid JSON: " + what);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
    const auto [line, col] = line_col(text, at);
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line X, column Y: "; keep the reason.
    const auto pos = what.find(": ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw input_error(path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": invalid JSON: " + what);
  }
}

Report read_report(const std::string& path) { return report_from_json(read_json_file(path), path); }

double median_or_nan(const ModeResult& r, const std::string& key) {
  const auto it = r.metrics.find(key);
  return it == r.metrics.end() ? std::numeric_limits<double>::quiet_NaN() : it->second.summary.median;
}

double derived_or_nan(const ModeResult& r, const std::string& key) {
  const auto it = r.derived.find(key);
  return it == r.derived.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

std::string report_json_text(const Report& r) { return json_text(to_json(r), 1) + "\n"; }

void write_report(const Report& r, const std::string& path) { write_file_atomic(path, report_json_text(r)); }

HostInfo collect_host_info() {
  HostInfo h;
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) == 0) h.hostname = name;
  struct utsname u {};
  if (::uname(&u) == 0) {
    h.os = u.sysname;
    h.kernel = u.release;
  }
  std::ifstream os_release("/etc/os-release");
  for (std::string line; std::getline(os_release, line);) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      h.os = line.substr(12);
      if (h.os.size() >= 2 && h.os.front() == '"') h.os = h.os.substr(1, h.os.size() - 2);
    }
  }
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) h.cpu_model = line.substr(c + 2);
      break;
    }
  }
  h.cpu_count = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__clang__)
  h.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  h.compiler = std::string("g++ ") + __VERSION__;
#endif
  return h;
}

std::string utc_timestamp_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm {};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gp
