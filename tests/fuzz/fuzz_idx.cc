// IDX files (MNIST's format), raw and gzip-compressed: the header's rank and dimensions
// against the data's size. Seeds: tests/data/idx.
#include "io/idx.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::fuzz::quiet_warnings();
  const std::string path = strata::fuzz::input_file(data, size, ".idx");
  strata::fuzz::expect_clean_failure([&] { strata::io::read_idx(path, strata::DType::float32); });
  return 0;
}
