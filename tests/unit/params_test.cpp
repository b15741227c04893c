// Workload parameters: defaults, overrides and the usage errors users see.
#include <gtest/gtest.h>

#include "graphprof/core/error.hpp"
#include "graphprof/core/params.hpp"

namespace gp {
namespace {

const std::vector<ParamSpec> kSpec{{"kernels", "100", ""}, {"scale", "0.5", ""}, {"sync", "0", ""}};

TEST(Params, DefaultsAndOverrides) {
  const Params p(kSpec, {{"kernels", "7"}}, "chain");
  EXPECT_EQ(p.get_int("kernels", 1, 1000), 7);
  EXPECT_DOUBLE_EQ(p.get_double("scale", 0, 1), 0.5);
  EXPECT_FALSE(p.get_bool("sync"));
  EXPECT_EQ(p.values().size(), 3u);
}

TEST(Params, UnknownKeyIsAUsageErrorListingTheKnownOnes) {
  try {
    Params(kSpec, {{"kernls", "1"}}, "chain");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("kernels, scale, sync"), std::string::npos) << e.what();
  }
}

TEST(Params, BadValuesAreUsageErrors) {
  EXPECT_THROW(Params(kSpec, {{"kernels", "12x"}}, "c").get_int("kernels", 1, 100), Error);
  EXPECT_THROW(Params(kSpec, {{"kernels", "0"}}, "c").get_int("kernels", 1, 100), Error);
  EXPECT_THROW(Params(kSpec, {{"scale", "nan"}}, "c").get_double("scale", 0, 1), Error);
  EXPECT_THROW(Params(kSpec, {{"sync", "maybe"}}, "c").get_bool("sync"), Error);
}

// The form of each value is checked before the GPU (run/sweep exit 2, not 4 on a machine without
// one): the default's form decides; the ranges are left to the workload.
TEST(Params, ValuesOfTheWrongFormAreUsageErrorsWithoutReadingThem) {
  auto check = [](const std::string& key, const std::string& value) { Params(kSpec, {{key, value}}, "c").check_forms(kSpec); };
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"kernels", "abc"}, {"kernels", "12x"}, {"kernels", "1.5"}, {"scale", "x"}, {"scale", "nan"}, {"sync", "maybe"}}) {
    try {
      check(key, value);
      ADD_FAILURE() << key << "=" << value << " passed";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_EQ(std::string(e.what()).rfind("--param " + key + "=" + value + ": expected", 0), 0u) << e.what();
    }
  }
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"kernels", "0"}, {"kernels", "-3"}, {"scale", "2e3"}, {"sync", "yes"}, {"sync", "1"}})
    EXPECT_NO_THROW(check(key, value)) << key << "=" << value << ": its range is the workload's to check";
}

TEST(Params, WordsTheSpecNamesPassTheFormCheckAndOthersDoNot) {
  // chain's sync_inside: default 0, and also stream, event or query.
  const std::vector<ParamSpec> spec{{"sync_inside", "0", "", {"stream", "event", "query"}}};
  for (const char* ok : {"1", "event", "query", "stream"})
    EXPECT_NO_THROW(Params(spec, {{"sync_inside", ok}}, "chain").check_forms(spec)) << ok;
  EXPECT_THROW(Params(spec, {{"sync_inside", "evnt"}}, "chain").check_forms(spec), Error);
}

TEST(Params, AssignmentParsing) {
  EXPECT_EQ(parse_param_assignment("a=b=c"), (std::pair<std::string, std::string>{"a", "b=c"}));
  EXPECT_THROW(parse_param_assignment("novalue"), Error);
  EXPECT_THROW(parse_param_assignment("=x"), Error);
}

}  // namespace
}  // namespace gp
