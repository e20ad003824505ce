// Keras 3 .keras archives: the ZIP container, config.json, metadata.json and the
// model.weights.h5 inside. Seeds: every .keras model in tests/data.
#include "io/saving.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::fuzz::quiet_warnings();
  const std::string path = strata::fuzz::input_file(data, size, ".keras");
  strata::fuzz::expect_clean_failure([&] { strata::models::load_model(path); });
  return 0;
}
