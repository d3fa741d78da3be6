//===- RegistryDuplicateTest.cpp - A duplicate LOUPE_RAL_API in the process ----===//
//
// Its own binary: registering a name twice poisons the global registry on purpose.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/Context.h"
#include "loupe/ral/Registry.h"
#include "loupe/ral/ral_api.h"

#include <gtest/gtest.h>

using namespace loupe::ral;

namespace {

int64_t first(ExecutionContext *, int64_t x) { return x + 1; }
int64_t second(ExecutionContext *, int64_t x) { return x + 2; }
LOUPE_RAL_API("test_twice", "cpu", first);
LOUPE_RAL_API("test_twice", "cpu", second); // same signature: same full name

TEST(RalRegistryDuplicate, IsReportedNotAborted) {
  Status s = Registry::global().status();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("test_twice___cpu___pvoid_i64___i64"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("RegistryDuplicateTest.cpp:19"), std::string::npos) << s.message();
}

TEST(RalRegistryDuplicate, ContextCreationFailsWithTheRegistrationError) {
  ContextOptions options;
  options.loadPlugins = false;
  auto created = Context::create(options);
  ASSERT_FALSE(created);
  EXPECT_NE(created.status().message().find("registered twice"), std::string::npos);
}

TEST(RalRegistryDuplicate, TheFirstRegistrationStaysCallable) {
  // ral_api_call needs no Context for a plain function: the first one answers.
  int64_t x = 1, result = 0;
  void *ctx = nullptr;
  void *args[] = {&ctx, &x, &result};
  ral_api_call(ctx, "test_twice___cpu___pvoid_i64___i64", args);
  EXPECT_EQ(result, 2);
}

} // namespace
