// Servable: one loaded version of a model, what TensorFlow Serving calls a servable:
// the Model, its signature, and its batcher when batching is on. Requests hold it by
// shared_ptr, so a version swapped out keeps serving the requests it already has.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/model.h"
#include "serving/batcher.h"
#include "serving/signature.h"

namespace strata::serving {

class Servable {
 public:
  // Loads the .keras or .h5 file at `path` and runs one warm-up prediction (so the
  // inference program is compiled before the first request). Throws what loading throws.
  // `model_name` names it in the metrics (its batches' sizes).
  static std::shared_ptr<Servable> load(std::int64_t version, const std::string& path,
                                        const std::optional<BatchingParameters>& batching,
                                        const std::string& model_name = "");

  Servable(std::int64_t version, std::string path, Model model,
           const std::optional<BatchingParameters>& batching, const std::string& model_name = "");

  std::int64_t version() const { return version_; }
  const std::string& path() const { return path_; }
  const Signature& signature() const { return signature_; }

  // Outputs for batch-major inputs in signature order; through the batcher when there is
  // one. Thread-safe: Model::predict runs concurrently from many threads. A request's rows
  // are predicted in chunks of predict_chunk_rows(), so the execution state a predict keeps
  // (its buffers grow to the largest batch they have run, and stay) is bounded by the
  // chunk, not by the largest request ever answered.
  std::vector<Tensor> predict(std::vector<Tensor> inputs);

  // Rows per Model::predict step: the batcher's max_batch_size with batching, else
  // kDefaultPredictChunkRows.
  static constexpr std::int64_t kDefaultPredictChunkRows = 256;
  std::int64_t predict_chunk_rows() const { return chunk_rows_; }

  // Null without batching.
  const Batcher* batcher() const { return batcher_.get(); }

 private:
  std::vector<Tensor> predict_now(const std::vector<Tensor>& inputs);

  std::int64_t version_;
  std::string path_;
  Model model_;
  Signature signature_;
  std::int64_t chunk_rows_ = kDefaultPredictChunkRows;
  std::unique_ptr<Batcher> batcher_;
};

}  // namespace strata::serving
