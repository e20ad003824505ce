#include "layers/initializers.h"

#include <Eigen/Dense>
#include <cmath>
#include <map>

#include "core/error.h"
#include "core/rng.h"

namespace strata {

namespace initializers {
namespace {

class ConstantImpl : public InitializerImpl {
 public:
  ConstantImpl(double value, std::string name) : value_(value), name_(std::move(name)) {}
  Tensor generate(const Shape& shape, std::uint64_t) const override {
    return Tensor::filled(shape, static_cast<float>(value_));
  }
  std::string class_name() const override { return name_; }
  InitializerConfig config() const override {
    if (name_ != "Constant") return {};
    return {{{"value", value_}}, {}};
  }

 private:
  double value_;
  std::string name_;
};

enum class Distribution { uniform, normal, truncated_normal };

// Draws from a distribution; truncated normal re-draws beyond two standard deviations.
class RandomImpl : public InitializerImpl {
 public:
  RandomImpl(Distribution dist, double a, double b, std::string name) : dist_(dist), a_(a), b_(b), name_(std::move(name)) {}
  Tensor generate(const Shape& shape, std::uint64_t seed) const override { return draw(shape, seed, dist_, a_, b_); }
  std::string class_name() const override { return name_; }
  InitializerConfig config() const override {
    if (dist_ == Distribution::uniform) return {{{"minval", a_}, {"maxval", b_}}, {}};
    return {{{"mean", a_}, {"stddev", b_}}, {}};
  }

  // uniform: [a, b); normal / truncated: mean a, stddev b. Element i's number is that of
  // Philox counter i (uniform, normal), or of the next counters after the previous
  // element's whose normal lies within 2 (truncated). The counters are drawn sixteen at a
  // time (Philox::bits16, the same numbers as bits() per counter, in vector registers with
  // AVX-512): one at a time, the draws were a quarter of the time from load_model to the
  // first prediction of ResNet50 (its 25 million weights initialized before the file's
  // values replace them).
  static Tensor draw(const Shape& shape, std::uint64_t seed, Distribution dist, double a, double b) {
    Tensor t(shape);
    float* p = t.data<float>();
    const std::int64_t n = t.size();
    const Philox rng(seed, 0);
    Philox::Words16 words;
    if (dist != Distribution::truncated_normal) {
      for (std::int64_t first = 0; first < n; first += 16) {
        rng.bits16(static_cast<std::uint64_t>(first), words);
        const std::int64_t count = std::min<std::int64_t>(16, n - first);
        for (std::int64_t j = 0; j < count; ++j) {
          p[first + j] = dist == Distribution::uniform
                             ? static_cast<float>(a + (b - a) * Philox::to_uniform(words[0][j]))
                             : static_cast<float>(a + b * Philox::to_normal(words[0][j], words[1][j]));
        }
      }
      return t;
    }
    std::uint64_t block = 0;
    std::int64_t j = 16;  // the next counter is block + j
    for (std::int64_t i = 0; i < n; ++i) {
      float z;
      do {
        if (j == 16) {
          rng.bits16(block, words);
          j = 0;
        }
        z = Philox::to_normal(words[0][j], words[1][j]);
        if (++j == 16) block += 16;
      } while (std::fabs(z) > 2.0f);
      p[i] = static_cast<float>(a + b * z);
    }
    return t;
  }

 private:
  Distribution dist_;
  double a_, b_;
  std::string name_;
};

class VarianceScalingImpl : public InitializerImpl {
 public:
  VarianceScalingImpl(VarianceScalingOptions o, std::string name) : options_(std::move(o)), name_(std::move(name)) {
    if (options_.scale <= 0) throw ValueError("VarianceScaling: scale must be positive");
    if (options_.mode != "fan_in" && options_.mode != "fan_out" && options_.mode != "fan_avg") {
      throw ValueError("VarianceScaling: mode must be fan_in, fan_out or fan_avg, got '" + options_.mode + "'");
    }
    if (options_.distribution != "truncated_normal" && options_.distribution != "untruncated_normal" &&
        options_.distribution != "uniform") {
      throw ValueError("VarianceScaling: unknown distribution '" + options_.distribution + "'");
    }
  }
  Tensor generate(const Shape& shape, std::uint64_t seed) const override {
    auto [fan_in, fan_out] = compute_fans(shape);
    double n = options_.mode == "fan_in" ? fan_in : options_.mode == "fan_out" ? fan_out : (fan_in + fan_out) / 2.0;
    double scale = options_.scale / std::max(1.0, n);
    if (options_.distribution == "truncated_normal") {
      // 0.879... is the stddev of a unit normal truncated to [-2, 2].
      return RandomImpl::draw(shape, seed, Distribution::truncated_normal, 0.0, std::sqrt(scale) / 0.87962566103423978);
    }
    if (options_.distribution == "untruncated_normal") {
      return RandomImpl::draw(shape, seed, Distribution::normal, 0.0, std::sqrt(scale));
    }
    double limit = std::sqrt(3.0 * scale);
    return RandomImpl::draw(shape, seed, Distribution::uniform, -limit, limit);
  }
  std::string class_name() const override { return name_; }
  InitializerConfig config() const override {
    if (name_ != "VarianceScaling") return {};  // Glorot, He, Lecun: the class says it all
    return {{{"scale", options_.scale}}, {{"mode", options_.mode}, {"distribution", options_.distribution}}};
  }

 private:
  VarianceScalingOptions options_;
  std::string name_;
};

class OrthogonalImpl : public InitializerImpl {
 public:
  explicit OrthogonalImpl(double gain) : gain_(gain) {}
  Tensor generate(const Shape& shape, std::uint64_t seed) const override {
    if (shape.rank() < 2) throw ValueError("Orthogonal initializer needs a shape of rank >= 2, got " + shape.to_string());
    std::int64_t cols = shape.dims().back();
    std::int64_t rows = shape.num_elements() / cols;
    std::int64_t big = std::max(rows, cols), small = std::min(rows, cols);
    Tensor normal = RandomImpl::draw(Shape{big, small}, seed, Distribution::normal, 0.0, 1.0);
    Eigen::MatrixXd a(big, small);
    for (std::int64_t i = 0; i < big; ++i) {
      for (std::int64_t j = 0; j < small; ++j) a(i, j) = normal.data<float>()[i * small + j];
    }
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
    Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(big, small);
    Eigen::MatrixXd r = qr.matrixQR().topLeftCorner(small, small);
    for (std::int64_t j = 0; j < small; ++j) {
      if (r(j, j) < 0) q.col(j) *= -1;  // sign fix makes the distribution uniform
    }
    Tensor t(shape);
    float* p = t.data<float>();
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        double v = rows >= cols ? q(i, j) : q(j, i);
        p[i * cols + j] = static_cast<float>(gain_ * v);
      }
    }
    return t;
  }
  std::string class_name() const override { return "Orthogonal"; }
  InitializerConfig config() const override { return {{{"gain", gain_}}, {}}; }

 private:
  double gain_;
};

class IdentityImpl : public InitializerImpl {
 public:
  explicit IdentityImpl(double gain) : gain_(gain) {}
  Tensor generate(const Shape& shape, std::uint64_t) const override {
    if (shape.rank() != 2) throw ValueError("Identity initializer needs a 2-D shape, got " + shape.to_string());
    Tensor t(shape);
    for (std::int64_t i = 0; i < std::min(shape.dims()[0], shape.dims()[1]); ++i) {
      t.data<float>()[i * shape.dims()[1] + i] = static_cast<float>(gain_);
    }
    return t;
  }
  std::string class_name() const override { return "Identity"; }
  InitializerConfig config() const override { return {{{"gain", gain_}}, {}}; }

 private:
  double gain_;
};

template <typename Impl, typename... Args>
Initializer make(std::optional<std::uint64_t> seed, Args&&... args) {
  auto impl = std::make_shared<Impl>(std::forward<Args>(args)...);
  impl->seed = seed;
  return Initializer(impl);
}

}  // namespace

std::pair<double, double> compute_fans(const Shape& shape) {
  if (shape.rank() < 1) return {1.0, 1.0};
  if (shape.rank() == 1) return {static_cast<double>(shape.dims()[0]), static_cast<double>(shape.dims()[0])};
  if (shape.rank() == 2) return {static_cast<double>(shape.dims()[0]), static_cast<double>(shape.dims()[1])};
  double receptive = static_cast<double>(shape.product(0, shape.rank() - 2));
  return {receptive * static_cast<double>(shape.dims()[shape.rank() - 2]),
          receptive * static_cast<double>(shape.dims()[shape.rank() - 1])};
}

Initializer Zeros() { return make<ConstantImpl>(std::nullopt, 0.0, "Zeros"); }
Initializer Ones() { return make<ConstantImpl>(std::nullopt, 1.0, "Ones"); }
Initializer Constant(double value) { return make<ConstantImpl>(std::nullopt, value, "Constant"); }
Initializer RandomUniform(RandomUniformOptions o) {
  return make<RandomImpl>(o.seed, Distribution::uniform, o.minval, o.maxval, "RandomUniform");
}
Initializer RandomNormal(RandomNormalOptions o) {
  return make<RandomImpl>(o.seed, Distribution::normal, o.mean, o.stddev, "RandomNormal");
}
Initializer TruncatedNormal(RandomNormalOptions o) {
  return make<RandomImpl>(o.seed, Distribution::truncated_normal, o.mean, o.stddev, "TruncatedNormal");
}
Initializer VarianceScaling(VarianceScalingOptions o) {
  auto seed = o.seed;
  return make<VarianceScalingImpl>(seed, std::move(o), "VarianceScaling");
}
namespace {
Initializer scaled(double scale, const char* mode, const char* dist, std::optional<std::uint64_t> seed, const char* name) {
  return make<VarianceScalingImpl>(seed, VarianceScalingOptions{scale, mode, dist, seed}, name);
}
}  // namespace
Initializer GlorotUniform(SeedOptions o) { return scaled(1.0, "fan_avg", "uniform", o.seed, "GlorotUniform"); }
Initializer GlorotNormal(SeedOptions o) { return scaled(1.0, "fan_avg", "truncated_normal", o.seed, "GlorotNormal"); }
Initializer HeUniform(SeedOptions o) { return scaled(2.0, "fan_in", "uniform", o.seed, "HeUniform"); }
Initializer HeNormal(SeedOptions o) { return scaled(2.0, "fan_in", "truncated_normal", o.seed, "HeNormal"); }
Initializer LecunUniform(SeedOptions o) { return scaled(1.0, "fan_in", "uniform", o.seed, "LecunUniform"); }
Initializer LecunNormal(SeedOptions o) { return scaled(1.0, "fan_in", "truncated_normal", o.seed, "LecunNormal"); }
Initializer Orthogonal(OrthogonalOptions o) { return make<OrthogonalImpl>(o.seed, o.gain); }
Initializer Identity(IdentityOptions o) { return make<IdentityImpl>(std::nullopt, o.gain); }

Initializer get(const std::string& id) {
  static const std::map<std::string, Initializer (*)()> known = {
      {"zeros", [] { return Zeros(); }},
      {"ones", [] { return Ones(); }},
      {"constant", [] { return Constant(); }},
      {"uniform", [] { return RandomUniform(); }},
      {"random_uniform", [] { return RandomUniform(); }},
      {"normal", [] { return RandomNormal(); }},
      {"random_normal", [] { return RandomNormal(); }},
      {"truncated_normal", [] { return TruncatedNormal(); }},
      {"variance_scaling", [] { return VarianceScaling(); }},
      {"glorot_uniform", [] { return GlorotUniform(); }},
      {"glorot_normal", [] { return GlorotNormal(); }},
      {"he_uniform", [] { return HeUniform(); }},
      {"he_normal", [] { return HeNormal(); }},
      {"lecun_uniform", [] { return LecunUniform(); }},
      {"lecun_normal", [] { return LecunNormal(); }},
      {"orthogonal", [] { return Orthogonal(); }},
      {"identity", [] { return Identity(); }},
  };
  auto it = known.find(id);
  if (it == known.end()) {
    std::string names;
    for (const auto& [name, fn] : known) names += (names.empty() ? "" : ", ") + name;
    throw ValueError("unknown initializer '" + id + "'; known: " + names);
  }
  return it->second();
}

}  // namespace initializers

Initializer::Initializer(const char* identifier) : Initializer(initializers::get(identifier)) {}
Initializer::Initializer(const std::string& identifier) : Initializer(initializers::get(identifier)) {}

Tensor Initializer::operator()(const Shape& shape) const {
  if (!impl_) throw ValueError("use of an undefined initializer");
  if (!shape.is_fully_defined()) {
    throw ShapeError(impl_->class_name() + ": cannot initialize a weight of shape " + shape.to_string());
  }
  return impl_->generate(shape, impl_->seed ? *impl_->seed : next_seed());
}

std::string Initializer::class_name() const { return impl_ ? impl_->class_name() : ""; }
InitializerConfig Initializer::config() const { return impl_ ? impl_->config() : InitializerConfig{}; }
std::optional<std::uint64_t> Initializer::seed() const {
  return impl_ ? impl_->seed : std::nullopt;
}

}  // namespace strata
