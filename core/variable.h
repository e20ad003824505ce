// Variable: a named, mutable tensor owned by a layer or an optimizer. A handle: copies
// refer to the same state. Graphs reference variables by handle, never copy them, so
// the optimizer's in-place updates are what every later step reads.
#pragma once

#include <memory>
#include <string>

#include "core/tensor.h"

namespace strata {

class Variable {
 public:
  Variable() = default;
  Variable(std::string path, Tensor value, bool trainable = true);

  bool defined() const { return state_ != nullptr; }
  // Keras 3's variable path, "dense/kernel"; the name is its last component.
  const std::string& path() const { return state().path; }
  std::string name() const;
  void set_path(std::string path) { state().path = std::move(path); }

  const Tensor& value() const { return state().value; }
  Tensor& value() { return state().value; }
  // Copies `value` in, from whichever device it is on; throws ShapeError naming the
  // variable when the shape or dtype differs.
  void assign(const Tensor& value);
  // A one-element variable's number (the optimizer's step count, its learning rate), read
  // from or written to whichever device the variable lives on.
  double scalar() const;
  void assign_scalar(double value);
  // Moves the value to `device` (nothing when it is there). Compiling a model does this
  // for every variable it uses: Keras creates them on the device the model runs on.
  void place_on(const Device& device);
  const Shape& shape() const { return state().value.shape(); }
  DType dtype() const { return state().value.dtype(); }

  bool trainable() const { return state().trainable; }
  void set_trainable(bool trainable) { state().trainable = trainable; }

  // The element type files store it in though its value is float32 (docs/precision.md),
  // as Keras's variable dtype: a quantized layer's int8 kernel (integers in [-127, 127],
  // exact in float32, until the engine has int8 tensors), or the variables of a layer
  // under the "float16" or "bfloat16" dtype policy (values those formats hold). Saving
  // writes such a dataset, as Keras does.
  enum class Stored { own, int8, float16, bfloat16 };
  Stored stored_as() const { return state().stored_as; }
  void set_stored_as(Stored stored_as) { state().stored_as = stored_as; }

  // Identity: two handles are the same variable iff they share state.
  const void* id() const { return state_.get(); }
  friend bool operator==(const Variable& a, const Variable& b) { return a.state_ == b.state_; }

 private:
  struct State {
    std::string path;
    Tensor value;
    bool trainable = true;
    Stored stored_as = Stored::own;
  };
  State& state() const;
  std::shared_ptr<State> state_;
};

}  // namespace strata
