// A bound on the weights that layers may create while a model file is being loaded.
//
// Loading builds the model from the file's config before reading its weights, and
// building allocates every weight. A damaged config (Dense(units=4000000000)) would make
// that allocation succeed on an overcommitting system and then exhaust memory while it is
// initialized. The weights come from the file, though, so the file bounds them: the
// loader opens a WeightBudget sized from the file, and a layer asking for more fails at
// once with an IOError naming the file, the layer's weight and the sizes.
#pragma once

#include <cstdint>
#include <string>

#include "core/shape.h"

namespace strata::layers {

// While alive, weights created on this thread may total at most `bytes`; budgets nest
// (the innermost applies). `source` names the file in messages.
class WeightBudget {
 public:
  WeightBudget(std::int64_t bytes, std::string source);
  ~WeightBudget();
  WeightBudget(const WeightBudget&) = delete;
  WeightBudget& operator=(const WeightBudget&) = delete;

  // The most a file of `file_bytes` can hold: compressed data expands at most about
  // 1032:1 (deflate's limit), plus room for weights a file may omit (built, not loaded).
  static std::int64_t for_file(std::int64_t file_bytes);

 private:
  friend void charge_weight(const std::string& weight_path, const Shape& shape);
  std::int64_t limit_;
  std::int64_t used_ = 0;
  std::string source_;
  WeightBudget* outer_;
};

// Counts a float32 weight of `shape` against this thread's budget, if any; throws
// IOError when it does not fit (and ShapeError when the shape cannot be counted).
void charge_weight(const std::string& weight_path, const Shape& shape);

}  // namespace strata::layers
