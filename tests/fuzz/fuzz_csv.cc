// CSV files of numbers, with and without a header line. Seeds: tests/data/csv.
#include "io/csv.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::fuzz::quiet_warnings();
  const std::string path = strata::fuzz::input_file(data, size, ".csv");
  const bool header = size > 0 && (data[0] & 1);
  strata::fuzz::expect_clean_failure([&] { strata::io::read_csv(path, {.header = header}); });
  return 0;
}
