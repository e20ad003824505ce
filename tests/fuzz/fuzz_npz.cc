// NumPy .npz archives: the ZIP container (stored and deflated members) and the .npy
// members. Seeds: the .npz files in tests/data.
#include "io/npy.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::fuzz::quiet_warnings();
  const std::string path = strata::fuzz::input_file(data, size, ".npz");
  strata::fuzz::expect_clean_failure([&] { strata::io::load_npz(path); });
  return 0;
}
