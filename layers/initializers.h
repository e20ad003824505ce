// Initializers with Keras's names, defaults and math (keras-spec §1.4). Every draw is
// seeded: an explicit seed gives the same values each call (as in Keras 3); without one
// the seed comes from the global seed generator (set_random_seed), in creation order.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace strata {

// Keras's config keys of an initializer besides its seed: numbers (value, minval, mean,
// stddev, gain, scale) and strings (mode, distribution).
struct InitializerConfig {
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::pair<std::string, std::string>> strings;
};

class InitializerImpl {
 public:
  virtual ~InitializerImpl() = default;
  virtual Tensor generate(const Shape& shape, std::uint64_t seed) const = 0;
  virtual std::string class_name() const = 0;
  virtual InitializerConfig config() const { return {}; }
  std::optional<std::uint64_t> seed;
};

class Initializer {
 public:
  Initializer() = default;
  explicit Initializer(std::shared_ptr<const InitializerImpl> impl) : impl_(std::move(impl)) {}
  // Keras's identifiers: "glorot_uniform", "he_normal", "zeros", "ones", "orthogonal", ...
  Initializer(const char* identifier);         // NOLINT: implicit, like Keras's strings
  Initializer(const std::string& identifier);  // NOLINT
  Tensor operator()(const Shape& shape) const;
  std::string class_name() const;
  InitializerConfig config() const;
  std::optional<std::uint64_t> seed() const;
  bool defined() const { return impl_ != nullptr; }

 private:
  std::shared_ptr<const InitializerImpl> impl_;
};

namespace initializers {

struct SeedOptions {
  std::optional<std::uint64_t> seed;
};
struct RandomUniformOptions {
  double minval = -0.05;
  double maxval = 0.05;
  std::optional<std::uint64_t> seed;
};
struct RandomNormalOptions {
  double mean = 0.0;
  double stddev = 0.05;
  std::optional<std::uint64_t> seed;
};
struct VarianceScalingOptions {
  double scale = 1.0;
  std::string mode = "fan_in";                   // fan_in, fan_out, fan_avg
  std::string distribution = "truncated_normal";  // truncated_normal, untruncated_normal, uniform
  std::optional<std::uint64_t> seed;
};
struct OrthogonalOptions {
  double gain = 1.0;
  std::optional<std::uint64_t> seed;
};

Initializer Zeros();
Initializer Ones();
Initializer Constant(double value = 0.0);
Initializer RandomUniform(RandomUniformOptions options = {});
Initializer RandomNormal(RandomNormalOptions options = {});
Initializer TruncatedNormal(RandomNormalOptions options = {});
Initializer VarianceScaling(VarianceScalingOptions options = {});
Initializer GlorotUniform(SeedOptions options = {});
Initializer GlorotNormal(SeedOptions options = {});
Initializer HeUniform(SeedOptions options = {});
Initializer HeNormal(SeedOptions options = {});
Initializer LecunUniform(SeedOptions options = {});
Initializer LecunNormal(SeedOptions options = {});
Initializer Orthogonal(OrthogonalOptions options = {});
struct IdentityOptions {
  double gain = 1.0;
};
Initializer Identity(IdentityOptions options = {});  // 2-D only

// Resolves Keras's string identifiers; throws ValueError listing the known names.
Initializer get(const std::string& identifier);

// Keras's fans: dense (in, out); conv kernels (k..., in, out) multiply by the receptive field.
std::pair<double, double> compute_fans(const Shape& shape);

}  // namespace initializers
}  // namespace strata
