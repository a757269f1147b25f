// The doctest runner. CTest runs one source file's test cases at a time
// (--source-file=*NAME.cpp); a filter that matches no test case (a renamed
// file, a stale binary) fails instead of passing with nothing run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

unsigned g_selected = 0;  // test cases that passed the filters, in the last run

struct SelectedCounter : doctest::IReporter {
  explicit SelectedCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& s) override { g_selected = s.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

DOCTEST_REGISTER_LISTENER("selected_counter", 1, SelectedCounter);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) return result;
  if (result == 0 && g_selected == 0) {
    std::fprintf(stderr, "arrvm_tests: no test case matched the filters\n");
    return 1;
  }
  return result;
}
