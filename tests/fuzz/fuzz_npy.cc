// NumPy .npy bytes: the header dictionary, dtypes, shapes against the data's size.
// Seeds: the .npy files in tests/data.
#include "io/npy.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::fuzz::quiet_warnings();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  strata::fuzz::expect_clean_failure([&] { strata::io::npy_from_bytes(bytes, "fuzz input"); });
  return 0;
}
