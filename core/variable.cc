#include "core/variable.h"

#include <cstring>

namespace strata {

Variable::Variable(std::string path, Tensor value, bool trainable)
    : state_(std::make_shared<State>(State{std::move(path), std::move(value), trainable})) {}

Variable::State& Variable::state() const {
  if (!state_) throw ValueError("use of an undefined Variable");
  return *state_;
}

std::string Variable::name() const {
  const auto& p = path();
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

void Variable::assign(const Tensor& value) {
  auto& s = state();
  if (value.shape() != s.value.shape() || value.dtype() != s.value.dtype()) {
    throw ShapeError("cannot assign a value of shape " + value.shape().to_string() + " (" +
                     to_string(value.dtype()) + ") to variable '" + s.path + "' of shape " +
                     s.value.shape().to_string() + " (" + to_string(s.value.dtype()) + ")");
  }
  std::memcpy(s.value.raw_data(), value.raw_data(), value.nbytes());
}

}  // namespace strata
