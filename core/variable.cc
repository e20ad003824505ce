#include "core/variable.h"

#include <cstdint>

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
  s.value.copy_from(value);
}

namespace {

void check_scalar(const Tensor& value, const std::string& path) {
  if (value.size() != 1 || value.dtype() == DType::string) {
    throw ValueError("variable '" + path + "' of shape " + value.shape().to_string() + " (" +
                     to_string(value.dtype()) + ") is not a single number");
  }
}

}  // namespace

double Variable::scalar() const {
  const auto& s = state();
  check_scalar(s.value, s.path);
  const Tensor host = s.value.to(Device{});
  switch (host.dtype()) {
    case DType::float32: return host.data<float>()[0];
    case DType::int32: return host.data<std::int32_t>()[0];
    case DType::int64: return static_cast<double>(host.data<std::int64_t>()[0]);
    case DType::string: break;
  }
  return 0;  // refused by check_scalar
}

void Variable::assign_scalar(double value) {
  auto& s = state();
  check_scalar(s.value, s.path);
  // On the CPU the number is written in place: the optimizer does this between steps,
  // which allocate nothing.
  Tensor host = s.value.on_cpu() ? s.value : Tensor(s.value.shape(), s.value.dtype());
  switch (host.dtype()) {
    case DType::float32: host.data<float>()[0] = static_cast<float>(value); break;
    case DType::int32: host.data<std::int32_t>()[0] = static_cast<std::int32_t>(value); break;
    case DType::int64: host.data<std::int64_t>()[0] = static_cast<std::int64_t>(value); break;
    case DType::string: break;
  }
  if (!s.value.on_cpu()) s.value.copy_from(host);
}

void Variable::place_on(const Device& device) {
  auto& s = state();
  if (!s.value.is_on(device)) s.value = s.value.to(device);
}

}  // namespace strata
