// The suite's workloads, their random data, and the runners' default timing.
#include "bench/workload.h"

#include <chrono>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>

namespace strata::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// One convolution's multiply-adds per sample: each of its side x side x filters outputs
// is a dot product `depth` long (kernel height x width x input channels; kernel height
// x width for a depthwise conv, whose outputs each read one channel).
double conv_multiply_adds(std::int64_t side, std::int64_t filters, std::int64_t depth) {
  return static_cast<double>(side * side * filters * depth);
}

// resnet20's products (workload.h): the stem on the data, then each block's two 3x3
// convs, and a first block's 1x1 projection where it has one, then the Dense.
std::vector<Product> resnet20_products(const Workload& w) {
  std::int64_t side = w.sample_shape[0], channels = w.sample_shape[2];
  std::vector<Product> out{{conv_multiply_adds(side, kResNet20Filters[0], 9 * channels), true}};
  channels = kResNet20Filters[0];
  for (std::size_t stage = 0; stage < std::size(kResNet20Filters); ++stage) {
    const std::int64_t filters = kResNet20Filters[stage];
    for (int block = 0; block < kResNet20BlocksPerStage; ++block) {
      const bool down = stage > 0 && block == 0;
      if (down) side /= 2;
      out.push_back({conv_multiply_adds(side, filters, 9 * channels), false});
      out.push_back({conv_multiply_adds(side, filters, 9 * filters), false});
      if (down) out.push_back({conv_multiply_adds(side, filters, channels), false});
      channels = filters;
    }
  }
  out.push_back({static_cast<double>(channels * w.classes), false});
  return out;
}

// mobilenet_small's products (workload.h): the stem on the data; each block's 1x1
// expansion (none at expansion 1), 3x3 depthwise conv (at the block's output size) and
// 1x1 projection; the 1x1 head conv; the Dense.
std::vector<Product> mobilenet_small_products(const Workload& w) {
  std::int64_t side = w.sample_shape[0], channels = w.sample_shape[2];
  std::vector<Product> out{{conv_multiply_adds(side, kMobileNetSmallStem, 9 * channels), true}};
  channels = kMobileNetSmallStem;
  for (const InvertedResidual& b : kMobileNetSmallBlocks) {
    const std::int64_t hidden = channels * b.expansion;
    if (b.expansion != 1) out.push_back({conv_multiply_adds(side, hidden, channels), false});
    side /= b.stride;
    out.push_back({conv_multiply_adds(side, hidden, 9), false});
    out.push_back({conv_multiply_adds(side, b.filters, hidden), false});
    channels = b.filters;
  }
  out.push_back({conv_multiply_adds(side, kMobileNetSmallHead, channels), false});
  out.push_back({static_cast<double>(kMobileNetSmallHead * w.classes), false});
  return out;
}

}  // namespace

double median_seconds(const std::function<void()>& fn, int calls) {
  fn();
  std::vector<double> t;
  for (int i = 0; i < calls; ++i) {
    const auto t0 = Clock::now();
    fn();
    t.push_back(seconds_since(t0));
  }
  return median(t);
}

std::int64_t Workload::sample_size() const {
  std::int64_t n = 1;
  for (std::int64_t d : sample_shape) n *= d;
  return n;
}

bool Workload::images() const { return kind == Kind::cnn || kind == Kind::resnet20 || kind == Kind::mobilenet_small; }

// The model's products (workload.h lists the models). Elementwise work (biases,
// activations, gate nonlinearities, softmax, pooling, layer normalization, the
// optimizer's update, the loss) is left out: next to the products it is a few percent of
// the flops, and it is bound by memory, not by FMA throughput (in resnet20 and
// mobilenet_small, whose products are convolutions, BatchNormalization, ReLU and the
// residual sums are more than that: elementwise too, not counted). A convolution counts
// as the product it is: its outputs' dot products over the kernel's window
// (conv_multiply_adds), a depthwise conv's too, although its dot products are only 9 long.
std::vector<Product> products(const Workload& w) {
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  switch (w.kind) {
    case Kind::mlp:
      return {{d(w.sample_shape[0]) * d(w.units), true},
              {d(w.units) * d(w.units), false},
              {d(w.units) * d(w.classes), false}};
    case Kind::dense:
      return {{d(w.units) * d(w.units), true}};
    case Kind::lstm:
    case Kind::bilstm: {
      // Each timestep, the 4 gates' input product (features -> 4·units, on the data) and
      // recurrent product (units -> 4·units, whose input, the previous state, gets its
      // gradient); per direction.
      const double timesteps = d(w.sample_shape[0]), features = d(w.sample_shape[1]);
      const double directions = w.kind == Kind::bilstm ? 2 : 1;
      return {{directions * timesteps * features * 4 * d(w.units), true},
              {directions * timesteps * d(w.units) * 4 * d(w.units), false},
              {directions * d(w.units) * d(w.classes), false}};
    }
    case Kind::cnn: {
      // 'valid' 3x3 convolutions: 28x28x1 -> 26x26x32, pool -> 13x13x32 -> 11x11x64,
      // pool -> 5x5x64 (floor) -> Dense(classes).
      const std::int64_t side1 = w.sample_shape[0] - 2, pooled1 = side1 / 2;
      const std::int64_t side2 = pooled1 - 2, pooled2 = side2 / 2;
      const double channels = d(w.sample_shape[2]);
      return {{d(side1 * side1) * 32 * 9 * channels, true},
              {d(side2 * side2) * 64 * 9 * 32, false},
              {d(pooled2 * pooled2) * 64 * d(w.classes), false}};
    }
    case Kind::transformer: {
      // Q, K and V project the data (timesteps x dim -> heads·key_dim = dim); the two
      // attention products (Q·Kᵀ and the weights times V, timesteps² · dim over all
      // heads) and the output projection work on activations; then Dense on the pooled dim.
      const double timesteps = d(w.sample_shape[0]), dim = d(w.sample_shape[1]);
      return {{3 * timesteps * dim * dim, true},
              {2 * timesteps * timesteps * dim, false},
              {timesteps * dim * dim, false},
              {dim * d(w.classes), false}};
    }
    case Kind::resnet20:
      return resnet20_products(w);
    case Kind::mobilenet_small:
      return mobilenet_small_products(w);
  }
  return {};
}

double Workload::train_flops_per_sample() const {
  double flops = 0;
  for (const Product& p : products(*this)) flops += 2 * p.multiply_adds * (p.input_is_data ? 2 : 3);
  return flops;
}

double Workload::predict_flops_per_sample() const {
  double flops = 0;
  for (const Product& p : products(*this)) flops += 2 * p.multiply_adds;
  return flops;
}

std::string Workload::to_json() const {
  static const char* kKinds[] = {"mlp", "lstm", "bilstm", "cnn", "dense", "transformer", "resnet20", "mobilenet_small"};
  std::ostringstream s;
  s << "{\"name\": \"" << name << "\", \"kind\": \"" << kKinds[static_cast<int>(kind)] << "\", \"sample_shape\": [";
  for (std::size_t i = 0; i < sample_shape.size(); ++i) s << (i ? ", " : "") << sample_shape[i];
  s << "], \"units\": " << units << ", \"classes\": " << classes << ", \"batch_size\": " << batch_size
    << ", \"samples\": " << samples << ", \"learning_rate\": " << learning_rate << ", \"threads\": " << threads
    << "}";
  return s.str();
}

std::vector<std::string> workload_names() {
  return {"mlp", "lstm", "bilstm", "cnn", "dense4096", "transformer", "resnet20", "mobilenet_small"};
}

Workload make_workload(const std::string& name, int threads, bool quick, BenchDevice device) {
  Workload w;
  w.name = name;
  w.threads = threads;
  w.device = device;
  const bool gpu = device == BenchDevice::cuda && !quick;
  std::int64_t full_batches = 0;
  if (name == "mlp") {  // issue #2's MLP 784-256-256-10
    w.kind = Kind::mlp;
    w.sample_shape = {784};
    w.units = 256;
    w.batch_size = gpu ? 1024 : 128;
    full_batches = 50;
  } else if (name == "lstm" || name == "bilstm") {  // issue #3: 50 steps x 32 features
    w.kind = name == "lstm" ? Kind::lstm : Kind::bilstm;
    w.sample_shape = {50, 32};
    w.units = name == "lstm" ? 128 : 64;
    w.batch_size = gpu ? 256 : 64;
    full_batches = 20;
  } else if (name == "cnn") {  // issue #4: the Fashion-MNIST tutorial's convnet
    w.kind = Kind::cnn;
    w.sample_shape = {28, 28, 1};
    w.batch_size = gpu ? 512 : 128;
    full_batches = 10;
  } else if (name == "dense4096") {  // issue #7: one large Dense, GEMM-bound
    w.kind = Kind::dense;
    w.units = quick ? 1024 : 4096;
    w.sample_shape = {w.units};
    w.batch_size = quick ? 128 : gpu ? 4096 : 512;
    w.learning_rate = 1e-3;
    full_batches = 4;
  } else if (name == "transformer") {  // issue #15: one attention block, 64 steps x 64 features
    w.kind = Kind::transformer;
    w.sample_shape = {64, 64};
    w.units = 4;  // heads of 16
    w.batch_size = gpu ? 128 : 32;
    full_batches = 20;
  } else if (name == "resnet20" || name == "mobilenet_small") {  // issue #37: CNN training, CIFAR-sized
    w.kind = name == "resnet20" ? Kind::resnet20 : Kind::mobilenet_small;
    w.sample_shape = {32, 32, 3};
    w.batch_size = gpu ? 512 : 128;  // as the cnn's
    full_batches = 4;
  } else {
    throw std::invalid_argument("unknown workload '" + name +
                                "' (known: mlp, lstm, bilstm, cnn, dense4096, transformer, resnet20, mobilenet_small)");
  }
  w.samples = w.batch_size * (quick ? 2 : full_batches);
  return w;
}

std::string GemmShape::label() const {
  std::string s = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  if (transpose_a) s += " A^T";
  if (transpose_b) s += " B^T";
  return s;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Data make_data(const Workload& w, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  std::uniform_int_distribution<std::int64_t> label(0, w.classes - 1);
  Data d;
  d.x.resize(static_cast<std::size_t>(w.samples * w.sample_size()));
  for (float& v : d.x) v = w.images() ? pixel(rng) : normal(rng);
  if (w.kind == Kind::dense) {
    d.targets.resize(static_cast<std::size_t>(w.samples * w.units));
    for (float& v : d.targets) v = normal(rng);
  } else {
    d.labels.resize(static_cast<std::size_t>(w.samples));
    for (std::int64_t& v : d.labels) v = label(rng);
  }
  return d;
}

Timed Runner::timed_train_epoch() {
  const auto t0 = Clock::now();
  const float loss = train_epoch();
  return {seconds_since(t0), loss};
}

Timed Runner::timed_predict_epoch() {
  const auto t0 = Clock::now();
  const float logit = predict_epoch();
  return {seconds_since(t0), logit};
}

double Runner::predict_one_median_us(int calls) {
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(calls));
  volatile float sink = 0;
  for (int i = 0; i < calls; ++i) {
    const auto t0 = Clock::now();
    sink = sink + predict_one(i);
    us.push_back(seconds_since(t0) * 1e6);
  }
  return median(us);
}

}  // namespace strata::bench
