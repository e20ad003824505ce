// Model configs as JSON text (keras.models.model_from_json): every dialect, nested
// models, layer and initializer configs. Seeds: tests/data/model_configs, the configs of
// real Keras files.
#include "io/model_config.h"
#include "layers/weight_budget.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::fuzz::quiet_warnings();
  const std::string text(reinterpret_cast<const char*>(data), size);
  // model_from_json has no file to bound the weights a config declares (load_model uses
  // the file's size); a config asking for gigabytes would measure this machine's memory,
  // not the reader, so the run grants 256 MiB, as a loader would for a 256 KB file.
  strata::layers::WeightBudget budget(std::int64_t{256} << 20, "fuzz input");
  strata::fuzz::expect_clean_failure([&] { strata::models::model_from_json(text); });
  return 0;
}
