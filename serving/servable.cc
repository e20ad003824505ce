#include "serving/servable.h"

#include <algorithm>
#include <cstring>

#include "io/saving.h"

namespace strata::serving {

std::shared_ptr<Servable> Servable::load(std::int64_t version, const std::string& path,
                                         const std::optional<BatchingParameters>& batching,
                                         const std::string& model_name) {
  auto servable = std::make_shared<Servable>(version, path, models::load_model(path, {.compile = false}), batching,
                                             model_name);
  // Warm-up: one example of zeros. Unknown per-example dimensions are tried as 1, and
  // then a failure says nothing about the model (it may need longer inputs).
  std::vector<Tensor> zeros;
  bool guessed = false;
  for (const auto& input : servable->signature().inputs) {
    std::vector<std::int64_t> dims = input.shape.dims();
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (d == 0 || dims[d] == kUnknownDim) {
        guessed = guessed || d > 0;
        dims[d] = 1;
      }
    }
    Tensor t{Shape(dims), input.dtype};
    std::memset(t.raw_data(), 0, t.nbytes());
    zeros.push_back(std::move(t));
  }
  try {
    servable->predict_now(zeros);
  } catch (const Error&) {
    if (!guessed) throw;
  }
  return servable;
}

Servable::Servable(std::int64_t version, std::string path, Model model,
                   const std::optional<BatchingParameters>& batching, const std::string& model_name)
    : version_(version), path_(std::move(path)), model_(std::move(model)), signature_(Signature::of(model_)) {
  if (batching) {
    chunk_rows_ = std::max<std::int64_t>(batching->max_batch_size, 1);
    batcher_ = std::make_unique<Batcher>(
        *batching, [this](const std::vector<Tensor>& x) { return predict_now(x); }, model_name);
  }
}

std::vector<Tensor> Servable::predict(std::vector<Tensor> inputs) {
  if (batcher_) return batcher_->run(std::move(inputs));
  return predict_now(inputs);
}

std::vector<Tensor> Servable::predict_now(const std::vector<Tensor>& inputs) {
  const std::int64_t rows = request_rows(inputs);
  // Chunked: Model::predict runs ceil(rows / chunk) steps of at most chunk rows each.
  const std::int64_t batch_size = std::clamp<std::int64_t>(rows, 1, chunk_rows_);
  return model_.predict(inputs, {.batch_size = batch_size, .verbose = 0, .steps = 0, .callbacks = {}});
}

}  // namespace strata::serving
