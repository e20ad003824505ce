#include "losses/loss.h"

#include <algorithm>
#include <functional>
#include <map>

#include "losses/crossentropy.h"
#include "losses/ctc_loss.h"
#include "losses/loss_utils.h"
#include "losses/more_losses.h"
#include "losses/ranking_losses.h"
#include "losses/regression_losses.h"

namespace strata::losses {

Reduction parse_reduction(const std::string& name) {
  if (name == "sum_over_batch_size" || name == "mean") return Reduction::sum_over_batch_size;
  if (name == "sum") return Reduction::sum;
  if (name == "none" || name.empty()) return Reduction::none;
  if (name == "mean_with_sample_weight") return Reduction::mean_with_sample_weight;
  throw ValueError("Invalid value for argument `reduction`: '" + name +
                   "'. Expected one of 'sum_over_batch_size', 'sum', 'none', 'mean', 'mean_with_sample_weight'");
}

std::string to_string(Reduction reduction) {
  switch (reduction) {
    case Reduction::sum_over_batch_size: return "sum_over_batch_size";
    case Reduction::sum: return "sum";
    case Reduction::none: return "none";
    case Reduction::mean_with_sample_weight: return "mean_with_sample_weight";
  }
  return "sum_over_batch_size";
}

TensorSpec LossImpl::target_spec(const TensorSpec& prediction) const {
  const auto& d = prediction.shape.dims();
  if (sparse_targets() && !d.empty()) return {Shape(std::vector<std::int64_t>(d.begin(), d.end() - 1)), DType::int64};
  return {prediction.shape, DType::float32};
}

const LossImpl& Loss::impl() const {
  if (!impl_) throw ValueError("use of an undefined Loss (default-constructed handle)");
  return *impl_;
}

Output Loss::operator()(Output y_true, Output y_pred, Output sample_weight) const {
  if (!y_true.valid() || !y_pred.valid()) throw ValueError("loss '" + name() + "': y_true and y_pred must be defined");
  if (y_true.graph != y_pred.graph || (sample_weight.valid() && sample_weight.graph != y_pred.graph)) {
    throw ValueError("loss '" + name() + "': y_true, y_pred and sample_weight belong to different graphs");
  }
  NameScope scope(*y_pred.graph, name());
  return reduce_weighted_values(impl().per_sample(y_true, y_pred), sample_weight, impl().reduction);
}

namespace {

class FunctionLossImpl : public LossImpl {
 public:
  FunctionLossImpl(std::string name, std::function<Output(Output, Output)> fn, const std::string& reduction_name)
      : name_(std::move(name)), fn_(std::move(fn)) {
    reduction = parse_reduction(reduction_name);
  }
  Output per_sample(Output y_true, Output y_pred) const override { return fn_(y_true, y_pred); }
  std::string name() const override { return name_; }

 private:
  std::string name_;
  std::function<Output(Output, Output)> fn_;
};

}  // namespace

Loss from_function(const std::string& name, std::function<Output(Output, Output)> fn, const std::string& reduction) {
  if (!fn) throw ValueError("losses::from_function('" + name + "'): the function is empty");
  if (name.empty()) throw ValueError("losses::from_function: a loss needs a name");
  return Loss(std::make_shared<FunctionLossImpl>(name, std::move(fn), reduction));
}

Loss get(const std::string& identifier) {
  static const std::map<std::string, std::function<Loss()>> known = {
      {"mse", [] { return MeanSquaredError(); }},
      {"mean_squared_error", [] { return MeanSquaredError(); }},
      {"MeanSquaredError", [] { return MeanSquaredError(); }},
      {"mae", [] { return MeanAbsoluteError(); }},
      {"mean_absolute_error", [] { return MeanAbsoluteError(); }},
      {"MeanAbsoluteError", [] { return MeanAbsoluteError(); }},
      {"binary_crossentropy", [] { return BinaryCrossentropy(); }},
      {"BinaryCrossentropy", [] { return BinaryCrossentropy(); }},
      {"categorical_crossentropy", [] { return CategoricalCrossentropy(); }},
      {"CategoricalCrossentropy", [] { return CategoricalCrossentropy(); }},
      {"sparse_categorical_crossentropy", [] { return SparseCategoricalCrossentropy(); }},
      {"SparseCategoricalCrossentropy", [] { return SparseCategoricalCrossentropy(); }},
      {"huber", [] { return Huber(); }},
      {"Huber", [] { return Huber(); }},
      {"log_cosh", [] { return LogCosh(); }},
      {"logcosh", [] { return LogCosh(); }},
      {"LogCosh", [] { return LogCosh(); }},
      {"kld", [] { return KLDivergence(); }},
      {"kl_divergence", [] { return KLDivergence(); }},
      {"KLDivergence", [] { return KLDivergence(); }},
      {"poisson", [] { return Poisson(); }},
      {"Poisson", [] { return Poisson(); }},
      {"hinge", [] { return Hinge(); }},
      {"Hinge", [] { return Hinge(); }},
      {"squared_hinge", [] { return SquaredHinge(); }},
      {"SquaredHinge", [] { return SquaredHinge(); }},
      {"categorical_hinge", [] { return CategoricalHinge(); }},
      {"CategoricalHinge", [] { return CategoricalHinge(); }},
      {"cosine_similarity", [] { return CosineSimilarity(); }},
      {"CosineSimilarity", [] { return CosineSimilarity(); }},
      {"binary_focal_crossentropy", [] { return BinaryFocalCrossentropy(); }},
      {"BinaryFocalCrossentropy", [] { return BinaryFocalCrossentropy(); }},
      {"ctc", [] { return CTC(); }},
      {"CTC", [] { return CTC(); }},
      {"rank_hinge", [] { return RankHinge(); }},
      {"rank_sigmoid", [] { return RankSigmoid(); }},
  };
  auto it = known.find(identifier);
  if (it != known.end()) return it->second();
  std::string names;
  for (const auto& [name, make] : known) names += (names.empty() ? "'" : ", '") + name + "'";
  throw ValueError("Could not interpret loss identifier: '" + identifier + "'. Known losses: " + names);
}

}  // namespace strata::losses
