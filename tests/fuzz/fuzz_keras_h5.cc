// Keras .h5 full-model files through libhdf5: load_model, compile config and optimizer
// weights included. Seeds: every .h5 model in tests/data.
#include "io/saving.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::fuzz::quiet_warnings();
  const std::string path = strata::fuzz::input_file(data, size, ".h5");
  strata::fuzz::expect_clean_failure([&] { strata::models::load_model(path); });
  return 0;
}
