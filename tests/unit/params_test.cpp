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

TEST(Params, AssignmentParsing) {
  EXPECT_EQ(parse_param_assignment("a=b=c"), (std::pair<std::string, std::string>{"a", "b=c"}));
  EXPECT_THROW(parse_param_assignment("novalue"), Error);
  EXPECT_THROW(parse_param_assignment("=x"), Error);
}

}  // namespace
}  // namespace gp
