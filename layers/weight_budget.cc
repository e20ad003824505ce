#include "layers/weight_budget.h"

#include <limits>

#include "core/error.h"

namespace strata::layers {
namespace {

thread_local WeightBudget* current_budget = nullptr;

std::string mib(std::int64_t bytes) { return std::to_string(bytes / (1 << 20)) + " MiB"; }

}  // namespace

WeightBudget::WeightBudget(std::int64_t bytes, std::string source)
    : limit_(bytes), source_(std::move(source)), outer_(current_budget) {
  current_budget = this;
}

WeightBudget::~WeightBudget() { current_budget = outer_; }

std::int64_t WeightBudget::for_file(std::int64_t file_bytes) {
  constexpr std::int64_t kExpansion = 1032;
  constexpr std::int64_t kSlack = std::int64_t{256} << 20;
  if (file_bytes > (std::numeric_limits<std::int64_t>::max() - kSlack) / kExpansion)
    return std::numeric_limits<std::int64_t>::max();
  return file_bytes * kExpansion + kSlack;
}

void charge_weight(const std::string& weight_path, const Shape& shape) {
  WeightBudget* budget = current_budget;
  if (!budget) return;
  const std::int64_t bytes = shape.num_elements() * static_cast<std::int64_t>(sizeof(float));
  if (bytes > budget->limit_ - budget->used_) {
    throw IOError("'" + budget->source_ + "': its config declares weight '" + weight_path + "' of shape " +
                  shape.to_string() + " (" + mib(bytes) + "), bringing the model's weights past the " +
                  mib(budget->limit_) + " that a file of its size can hold: the config is damaged");
  }
  budget->used_ += bytes;
}

}  // namespace strata::layers
