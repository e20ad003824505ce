// Strata's side of the suite, written against the public model API a user would use
// (ARCHITECTURE.md): Sequential (a functional Model for the transformer) + compile + train_on_batch / predict_on_batch, and
// predict_on_batch on a (1, ...) tensor for one sample. Also the GEMM peak as Strata's
// cpu::gemm and Eigen's own threaded product reach it. With --device=cuda the model compiles
// for cuda:0 and its batches are placed there up front (Tensor::to), so a step copies
// nothing in but reads its loss back; the GPU's GEMM rate as Strata's matmul op reaches it.
#include <strata/strata.h>

#include <Eigen/Core>
#include <cstring>

#include "bench/strata_models.h"
#include "bench/workload.h"
#include "core/cpu/gemm.h"
#include "core/cpu/parallel.h"
#include "core/program.h"
#include "core/ops.h"

namespace strata::bench {
namespace {

// Rows [first, first + rows) of a row-major (samples, row_shape...) array as one tensor.
template <typename T>
Tensor rows_of(const std::vector<T>& src, std::int64_t first, std::int64_t rows,
               const std::vector<std::int64_t>& row_shape, DType dtype) {
  std::vector<std::int64_t> dims{rows};
  dims.insert(dims.end(), row_shape.begin(), row_shape.end());
  Tensor t(Shape(dims), dtype);
  const std::size_t row_size = t.nbytes() / static_cast<std::size_t>(rows);
  std::memcpy(t.raw_data(), reinterpret_cast<const char*>(src.data()) + first * row_size, t.nbytes());
  return t;
}

// The Device the workload's device names, for Tensor::to.
Device strata_device(BenchDevice device) { return parse_device(device_name(device)); }

// The workload's model made under its dtype policy (the global one, restored after).
Model build_under_policy(const Workload& w) {
  struct Restore {
    ~Restore() { set_dtype_policy("float32"); }
  } restore;
  set_dtype_policy(w.dtype_policy);
  return build_strata_model(w);
}

class StrataRunner : public Runner {
 public:
  StrataRunner(const Workload& w, const Data& data) : model_(build_under_policy(w)) {
    cpu::set_num_threads(w.threads);
    // The CPU's compile names no device, as before --device existed.
    const std::string device = w.device == BenchDevice::cpu ? "" : device_name(w.device);
    try {
      if (w.kind == Kind::dense) {
        model_.compile({.optimizer = optimizers::SGD({.learning_rate = w.learning_rate}),
                        .loss = losses::MeanSquaredError(),
                        .device = device});
      } else {
        model_.compile({.optimizer = optimizers::Adam({.learning_rate = w.learning_rate}),
                        .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                        .device = device});
      }
    } catch (const NotImplementedError& e) {
      if (w.device == BenchDevice::cpu) throw;
      throw NotOnDevice(first_line(e.what()));
    }
    if (w.int8) model_.quantize("int8");
    const Device on = strata_device(w.device);
    for (std::int64_t b = 0; b < w.batches(); ++b) {
      const std::int64_t first = b * w.batch_size;
      x_.push_back(rows_of(data.x, first, w.batch_size, w.sample_shape, DType::float32).to(on));
      y_.push_back((w.kind == Kind::dense ? rows_of(data.targets, first, w.batch_size, {w.units}, DType::float32)
                                          : rows_of(data.labels, first, w.batch_size, {}, DType::int64))
                       .to(on));
    }
    for (std::int64_t r = 0; r < std::min(kSingleRows, w.samples); ++r) {
      singles_.push_back(rows_of(data.x, r, 1, w.sample_shape, DType::float32).to(on));
    }
  }

  float train_epoch() override {
    float loss = 0;
    for (std::size_t b = 0; b < x_.size(); ++b) loss = model_.train_on_batch(x_[b], y_[b]).at("loss");
    return loss;
  }

  // predict_on_batch returns its output on the CPU (a Program fetches to the host), so
  // reading one element waits for the device.
  float predict_epoch() override {
    float sink = 0;
    for (const Tensor& x : x_) sink += model_.predict_on_batch(x).item(0);
    return sink;
  }

  float predict_one(std::int64_t row) override {
    return model_.predict_on_batch(singles_[static_cast<std::size_t>(row) % singles_.size()]).item(0);
  }

 private:
  Model model_;
  std::vector<Tensor> x_, y_, singles_;
};

}  // namespace

std::unique_ptr<Runner> make_strata_runner(const Workload& w, const Data& data) {
  return std::make_unique<StrataRunner>(w, data);
}

void set_strata_threads(int threads) { cpu::set_num_threads(threads); }

double strata_gemm_gflops(const GemmShape& g, int calls) {
  std::vector<float> a(static_cast<std::size_t>(g.m * g.k), 0.5f), b(static_cast<std::size_t>(g.k * g.n), 0.25f),
      c(static_cast<std::size_t>(g.m * g.n));
  const std::int64_t lda = g.transpose_a ? g.m : g.k, ldb = g.transpose_b ? g.k : g.n;
  const double s = median_seconds(
      [&] { cpu::gemm(g.transpose_a, g.transpose_b, g.m, g.n, g.k, a.data(), lda, b.data(), ldb, c.data(), g.n); },
      calls);
  return g.flops() / s / 1e9;
}

double strata_conv2d_gflops(std::int64_t batch, int calls) {
  Graph g;
  Output x = g.placeholder({Shape{batch, 13, 13, 32}}, "x");
  Output k = g.placeholder({Shape{3, 3, 32, 64}}, "k");
  Program program(g, {x, k}, {ops::conv2d(x, k, {})});
  const std::vector<Tensor> feeds{Tensor::filled(Shape{batch, 13, 13, 32}, 0.5f),
                                  Tensor::filled(Shape{3, 3, 32, 64}, 0.01f)};
  std::vector<Tensor> out;
  const double s = median_seconds([&] { program.run_into(feeds, out, {}); }, calls);
  // Output (batch, 11, 11, 64), each a 288-deep dot product.
  return 2.0 * static_cast<double>(batch) * 11 * 11 * 64 * 288 / s / 1e9;
}

double eigen_gemm_gflops(const GemmShape& g, int calls) {
  // Eigen threads its product with OpenMP, at the suite's thread count for this
  // measurement only: Strata keeps Eigen single-threaded (its kernels split work over
  // their own pool, core/cpu/thread_pool.h), so the setting is put back afterwards.
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  M a = g.transpose_a ? M::Random(g.k, g.m) : M::Random(g.m, g.k);
  M b = g.transpose_b ? M::Random(g.n, g.k) : M::Random(g.k, g.n);
  M c(g.m, g.n);
  const int saved = Eigen::nbThreads();
  Eigen::setNbThreads(cpu::num_threads());
  const double s = median_seconds(
      [&] {
        if (g.transpose_a && g.transpose_b) c.noalias() = a.transpose() * b.transpose();
        else if (g.transpose_a) c.noalias() = a.transpose() * b;
        else if (g.transpose_b) c.noalias() = a * b.transpose();
        else c.noalias() = a * b;
      },
      calls);
  Eigen::setNbThreads(saved);
  return g.flops() / s / 1e9;
}

double strata_cuda_matmul_gflops(const GemmShape& g, int calls) {
  const Device gpu = strata_device(BenchDevice::cuda);
  const Shape a_shape = g.transpose_a ? Shape{g.k, g.m} : Shape{g.m, g.k};
  const Shape b_shape = g.transpose_b ? Shape{g.n, g.k} : Shape{g.k, g.n};
  Graph graph;
  Output a = graph.placeholder({a_shape}, "a");
  Output b = graph.placeholder({b_shape}, "b");
  // The product's sum is the fetch: a scalar to copy back (which waits for the GPU)
  // where the product itself would be a copy as long as the product on a large shape.
  Program program(graph, {a, b}, {ops::reduce_sum(ops::matmul(a, b, g.transpose_a, g.transpose_b))}, {}, gpu);
  const std::vector<Tensor> feeds{Tensor::filled(a_shape, 0.5f).to(gpu), Tensor::filled(b_shape, 0.25f).to(gpu)};
  std::vector<Tensor> out;
  const double s = median_seconds([&] { program.run_into(feeds, out, {}); }, calls);
  return g.flops() / s / 1e9;
}

double strata_step_overhead_us(BenchDevice device, int steps, bool cuda_graphs) {
  // The switch is process-wide and read at every run: set for this measurement only.
  const ScopedCudaGraphs graphs(cuda_graphs);
  Model model = Sequential({layers::Input(Shape{kOverheadUnits}), layers::Dense(kOverheadUnits)});
  model.compile({.optimizer = optimizers::SGD({.learning_rate = 1e-3}),
                 .loss = losses::MeanSquaredError(),
                 .device = device == BenchDevice::cpu ? "" : device_name(device)});
  const Device on = strata_device(device);
  const Tensor x = Tensor::filled(Shape{kOverheadBatch, kOverheadUnits}, 0.5f).to(on);
  const Tensor y = Tensor::filled(Shape{kOverheadBatch, kOverheadUnits}, 0.25f).to(on);
  volatile float sink = 0;
  return 1e6 * median_seconds([&] { sink = sink + model.train_on_batch(x, y).at("loss"); }, steps);
}

CudaSupport cuda_support() {
  return {.strata_built = built_with_cuda(),
          .strata_device = has_cuda_device(),
          .torch_built = torch_cuda_built(),
          .torch_device = torch_cuda_device(),
          .torch_version = torch_version()};
}

std::string strata_gpu_name() {
  for (const Device& d : available_devices()) {
    if (d.type == DeviceType::cuda && d.index == 0) return d.name + " (cuda:0)";
  }
  return "no GPU";
}

}  // namespace strata::bench
