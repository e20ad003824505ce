// Every test suite's main: GoogleTest's, plus a marker CTest reads. CTest runs a GoogleTest
// suite (or a shard of one) per process (cmake/GTestSuites.cmake); a process whose every test
// skipped (the GPU cases without a GPU, the applications without their files) prints the
// marker, and CTest reports it "Skipped" rather than passed.
#include <cstdio>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const ::testing::UnitTest& run = *::testing::UnitTest::GetInstance();
  if (status == 0 && run.test_to_run_count() > 0 && run.successful_test_count() == 0 &&
      run.skipped_test_count() == run.test_to_run_count())
    std::printf("[ STRATA: ALL SKIPPED ]\n");
  return status;
}
