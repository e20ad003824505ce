// The benchmark suite's workloads and the one interface every framework implements for
// them. Each framework lives in its own translation unit (libtorch's heavy headers are
// parsed by torch_runner.cc only and never meet Strata's); Keras runs in a Python worker
// process (keras_runner.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/device.h"
#include "bench/stats.h"

namespace strata::bench {

// How many distinct batch-1 inputs predict_one() cycles through.
inline constexpr std::int64_t kSingleRows = 64;

enum class Kind { mlp, lstm, bilstm, cnn, dense, transformer, resnet20, mobilenet_small };

// One model, its data shape and its training set-up. Every framework builds the same
// model from this:
//   mlp:    Dense(units, relu) - Dense(units, relu) - Dense(classes) on (inputs,)
//   lstm:   LSTM(units) - Dense(classes) on (timesteps, features)
//   bilstm: Bidirectional(LSTM(units)) - Dense(classes), same data
//   cnn:    Conv2D(32,3,relu)-MaxPool2-Conv2D(64,3,relu)-MaxPool2-Flatten-Dropout(0.5)-
//           Dense(classes) on (28, 28, 1)
//   dense:  one linear Dense(units) on (units,), MSE against random targets, plain SGD
//   transformer: x + MultiHeadAttention(heads = units, key_dim = dim / units)(x, x),
//           LayerNormalization, GlobalAveragePooling1D, Dense(classes) on (timesteps, dim)
//   resnet20: the CIFAR ResNet-20 on (32, 32, 3): Conv2D(16,3,same)-BN-ReLU, then 3 stages
//           (kResNet20Filters) of 3 basic blocks, conv3x3-BN-ReLU-conv3x3-BN, Add with the
//           shortcut, ReLU; a stage's first block from stage 2 on has stride 2 and a 1x1
//           stride-2 conv+BN shortcut; GlobalAveragePooling2D, Dense(classes)
//   mobilenet_small: a small MobileNetV2 on (32, 32, 3): Conv2D(16,3,same)-BN-ReLU6, the
//           inverted residual blocks of kMobileNetSmallBlocks (1x1 expand-BN-ReLU6, left
//           out at expansion 1; DepthwiseConv2D 3x3-BN-ReLU6; 1x1 project-BN; Add with the
//           input when stride 1 and channels match), Conv2D(128,1)-BN-ReLU6,
//           GlobalAveragePooling2D, Dense(classes)
// In the last two every conv before a BatchNormalization has no bias, and BN is Keras's
// default (momentum 0.99, epsilon 1e-3; libtorch's momentum 0.01 is the same update).
// Classifiers train with Adam and sparse categorical crossentropy from logits.
struct Workload {
  std::string name;  // "mlp", "lstm", "bilstm", "cnn", "dense4096", "transformer", "resnet20", "mobilenet_small"
  Kind kind = Kind::mlp;
  std::vector<std::int64_t> sample_shape;  // one input sample, without the batch axis
  std::int64_t units = 0;  // attention heads for the transformer
  std::int64_t classes = 10;  // unused by dense
  std::int64_t batch_size = 0;
  std::int64_t samples = 0;  // whole batches only
  double learning_rate = 1e-3;
  int threads = 2;
  BenchDevice device = BenchDevice::cpu;  // where Strata's and libtorch's models run
  // Strata's model quantized by model.quantize("int8") once compiled (the int8 section:
  // Keras's int8 Dense layers, issue #39); the other frameworks ignore it.
  bool int8 = false;
  // The dtype policy Strata's model is made under (the bf16 section: Keras's
  // mixed_bfloat16 training, issue #39); the other frameworks ignore it.
  std::string dtype_policy = "float32";

  std::int64_t sample_size() const;  // floats per input sample
  bool images() const;  // cnn, resnet20, mobilenet_small: pixels, (height, width, channels)
  std::int64_t batches() const { return samples / batch_size; }
  // Floating-point operations per sample of a training step and of inference, counted
  // from the model's matrix products (2 per multiply-add; elementwise work left out):
  // forward for inference; to train, forward plus backward, where backward is 1x forward
  // for a product on the input data (only its kernel's gradient: no framework computes
  // the data's) and 2x for the others (the kernel's and the input's). Dense: 4·units² to
  // train and 2·units² to infer. workload.cc spells out each model's products.
  double train_flops_per_sample() const;
  double predict_flops_per_sample() const;
  // The workload as the Keras worker's `setup` line wants it: one JSON object.
  std::string to_json() const;
};

// resnet20's stages: the filters of each stage's 3 basic blocks.
inline constexpr std::int64_t kResNet20Filters[] = {16, 32, 64};
inline constexpr int kResNet20BlocksPerStage = 3;
// mobilenet_small: its stem's and head's filters and its inverted residual blocks.
inline constexpr std::int64_t kMobileNetSmallStem = 16, kMobileNetSmallHead = 128;
struct InvertedResidual {
  std::int64_t expansion, filters, stride;
};
inline constexpr InvertedResidual kMobileNetSmallBlocks[] = {{1, 16, 1}, {6, 24, 2}, {6, 24, 1},
                                                             {6, 32, 2}, {6, 32, 1}, {6, 64, 2}};

// One matrix product a model computes per sample, counted by its multiply-adds.
// Training runs it forward (2 flops per multiply-add) and backward: the gradient of each
// operand that is not data, one product of the same size each. A layer's kernel always
// gets its gradient; its input only when something below it learns, so the first layer's
// products on the input data cost 1x forward backward and every other product 2x.
struct Product {
  double multiply_adds = 0;
  bool input_is_data = false;
};

// The model's products, in the order its layers run them. Elementwise work (biases,
// activations, gate nonlinearities, softmax, pooling, layer normalization, the
// optimizer's update, the loss) is left out (workload.cc says why).
std::vector<Product> products(const Workload& w);

// "a,b,,c" -> {"a", "b", "c"}: a comma-separated flag's items.
std::vector<std::string> split_list(const std::string& list);

// The suite's workloads by name; --quick shrinks every one to a smoke-test size. On
// cuda (without --quick) the batches are larger, as a GPU needs to be busy: mlp 1024,
// lstm and bilstm 256, cnn, resnet20 and mobilenet_small 512, transformer 128, dense4096
// 4096; the models are the same.
std::vector<std::string> workload_names();
Workload make_workload(const std::string& name, int threads, bool quick, BenchDevice device = BenchDevice::cpu);

// Random data, row-major. x (samples, sample_shape...): N(0, 1), or U(0, 1) for the cnn,
// resnet20 and mobilenet_small (pixels, NHWC); labels (samples,) in [0, classes) for
// classifiers; targets (samples, units)
// N(0, 1) for dense.
struct Data {
  std::vector<float> x;
  std::vector<std::int64_t> labels;
  std::vector<float> targets;
};
Data make_data(const Workload& w, unsigned seed);

// Median seconds of `calls` calls of fn, after one untimed warm-up call.
double median_seconds(const std::function<void()>& fn, int calls);

// Seconds a call took and the value it returned (a loss, or a logit kept so the work
// cannot be optimized away).
struct Timed {
  double seconds = 0;
  float value = 0;
};

// One framework's model of one workload, with its batches pre-made in its own tensors.
class Runner {
 public:
  virtual ~Runner() = default;
  // One pass over the batches in order, one optimizer step each; the last batch's loss.
  virtual float train_epoch() = 0;
  // Inference over the same batches (dropout off); one logit.
  virtual float predict_epoch() = 0;
  // Inference on one sample (batch of 1), row `row % kSingleRows`; one logit.
  virtual float predict_one(std::int64_t row) = 0;

  // The same, timed. A runner in another process overrides these to time on its side,
  // so that pipe round trips are not counted as the framework's time.
  virtual Timed timed_train_epoch();
  virtual Timed timed_predict_epoch();
  // Median microseconds of `calls` predict_one calls.
  virtual double predict_one_median_us(int calls);
  // What the report should say about how this runner measured (Keras: which batch-1
  // path it chose); empty when nothing.
  virtual std::string note() const { return {}; }
};

// A framework that cannot build a workload's model on the device (Strata's compile
// refuses a model with ops without a CUDA kernel): what() is the error's first line.
class NotOnDevice : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Strata's runner throws NotOnDevice when compile refuses the model on w.device.
std::unique_ptr<Runner> make_strata_runner(const Workload& w, const Data& data);
std::unique_ptr<Runner> make_torch_runner(const Workload& w, const Data& data);
std::string torch_version();  // "1.13.0": the libtorch the suite was built against

// One GEMM of the suite: C(m×n) = op(A)·op(B), A stored k×m when transpose_a, B stored
// n×k when transpose_b (row-major, as cpu::gemm takes them).
struct GemmShape {
  bool transpose_a = false, transpose_b = false;
  std::int64_t m = 0, n = 0, k = 0;
  std::string label() const;  // "128x256x784", with " (A^T)" / " (B^T)" when transposed
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};

// Single-precision GEMM throughput, median GFLOP/s of `calls` after a warm-up, at the
// thread count already set. Strata's cpu::gemm (what Dense runs), Eigen's own threaded
// product, OpenBLAS through torch::mm and oneDNN's dnnl_sgemm (its own OpenMP threads;
// 0 when the suite was built without oneDNN, see onednn_gemm_available).
double strata_gemm_gflops(const GemmShape& shape, int calls);
// The CNN's second convolution alone, (batch, 13, 13, 32) * (3, 3, 32, 64) valid, as
// Strata's conv2d op runs it (im2col + GEMM), in GFLOP/s: the conv path's GEMM rate.
double strata_conv2d_gflops(std::int64_t batch, int calls);
double eigen_gemm_gflops(const GemmShape& shape, int calls);
double torch_gemm_gflops(const GemmShape& shape, int calls);
bool onednn_gemm_available();
double onednn_gemm_gflops(const GemmShape& shape, int calls, int threads);
void set_strata_threads(int threads);
void set_torch_threads(int threads);

// --device=cuda. What each framework can do on a GPU (device.h), the GPU's name as
// Strata lists it, and libtorch set to float32 products in float32 (no TF32 in cuBLAS or
// cuDNN), as Strata computes them; returns a line saying what it set.
CudaSupport cuda_support();
std::string strata_gpu_name();  // "NVIDIA H200 (cuda:0)"
bool torch_cuda_built();        // libtorch's CUDA library is loaded in this process
bool torch_cuda_device();       // torch::cuda::is_available()
std::string torch_strict_float32();
// cuBLAS's SGEMM on the GPU through libtorch (torch::mm on CUDA float32 tensors, TF32
// off), and Strata's matmul op in a Program on cuda:0 (its cuBLAS SGEMM) fetching the
// product's sum, a scalar, so each call waits for the GPU: median GFLOP/s of `calls`.
double torch_cuda_gemm_gflops(const GemmShape& shape, int calls);
double strata_cuda_matmul_gflops(const GemmShape& shape, int calls);
// Per-step host overhead: a tiny model's training step on `device` (Dense(16) on 16
// features, batch 32, MSE, plain SGD; the loss read back every step), median
// microseconds per step over `steps` steps. Its kernels take a few microseconds on a
// GPU, so the figure is the host's work per step: launches, the run's bookkeeping, the
// loss's copy back. Strata's with CUDA graphs on or off (set_cuda_graphs for the
// measurement; on the CPU the switch changes nothing).
inline constexpr std::int64_t kOverheadUnits = 16, kOverheadBatch = 32;
double strata_step_overhead_us(BenchDevice device, int steps, bool cuda_graphs = true);
double torch_step_overhead_us(BenchDevice device, int steps);

}  // namespace strata::bench
