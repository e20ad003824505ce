// libtorch's side of the suite: the same models with torch::nn, torch::optim::Adam (SGD
// for dense) and cross_entropy (= sparse categorical crossentropy from logits, mean over
// the batch) or mse_loss. Also the GEMM peak as OpenBLAS reaches it through torch::mm.
// With --device=cuda the module and its batches live on torch::kCUDA (moved there up
// front), and the GEMM peak is cuBLAS's SGEMM through torch::mm, TF32 off.
#include <dlfcn.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "bench/workload.h"

namespace strata::bench {
namespace {

// Conv2d without bias then BatchNorm2d with Keras's settings (momentum 0.99 there is
// torch's 0.01: torch weighs the batch by its momentum, Keras the moving value). torch
// pads 'same' symmetrically (padding k/2) where Keras pads a stride-2 conv on an even
// side at the bottom and right only: the same shapes and products, one pixel shifted.
struct ConvBn : torch::nn::Module {
  ConvBn(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride = 1, std::int64_t groups = 1)
      : conv(register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel)
                                                           .stride(stride)
                                                           .padding(kernel / 2)
                                                           .groups(groups)
                                                           .bias(false)))),
        bn(register_module("bn",
                           torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(out).momentum(0.01).eps(1e-3)))) {}
  torch::Tensor forward(const torch::Tensor& x) { return bn(conv(x)); }
  torch::nn::Conv2d conv;
  torch::nn::BatchNorm2d bn;
};

// resnet20's basic block (workload.h): a projection shortcut when `stride` is 2.
struct BasicBlock : torch::nn::Module {
  BasicBlock(std::int64_t in, std::int64_t filters, std::int64_t stride)
      : conv1(register_module("conv1", std::make_shared<ConvBn>(in, filters, 3, stride))),
        conv2(register_module("conv2", std::make_shared<ConvBn>(filters, filters, 3))) {
    if (stride != 1) shortcut = register_module("shortcut", std::make_shared<ConvBn>(in, filters, 1, stride));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    const torch::Tensor y = conv2->forward(torch::relu(conv1->forward(x)));
    return torch::relu(y + (shortcut ? shortcut->forward(x) : x));
  }
  std::shared_ptr<ConvBn> conv1, conv2, shortcut;
};

// mobilenet_small's inverted residual block (workload.h).
struct InvertedResidualBlock : torch::nn::Module {
  InvertedResidualBlock(std::int64_t in, const InvertedResidual& b)
      : residual(b.stride == 1 && in == b.filters) {
    const std::int64_t hidden = in * b.expansion;
    if (b.expansion != 1) expand = register_module("expand", std::make_shared<ConvBn>(in, hidden, 1));
    depthwise = register_module("depthwise", std::make_shared<ConvBn>(hidden, hidden, 3, b.stride, hidden));
    project = register_module("project", std::make_shared<ConvBn>(hidden, b.filters, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = expand ? torch::relu6(expand->forward(x)) : x;
    y = project->forward(torch::relu6(depthwise->forward(y)));
    return residual ? x + y : y;
  }
  bool residual;
  std::shared_ptr<ConvBn> expand, depthwise, project;
};

// resnet20 and mobilenet_small: a stem, the blocks in order, a head, global average
// pooling and the classifier.
struct BlockNet : torch::nn::Module {
  explicit BlockNet(const Workload& w) : six(w.kind == Kind::mobilenet_small) {
    const std::int64_t in = w.sample_shape[2];
    std::int64_t channels = 0;
    if (w.kind == Kind::resnet20) {
      channels = kResNet20Filters[0];
      stem = register_module("stem", std::make_shared<ConvBn>(in, channels, 3));
      for (std::size_t stage = 0; stage < std::size(kResNet20Filters); ++stage) {
        for (int block = 0; block < kResNet20BlocksPerStage; ++block) {
          const std::int64_t stride = stage > 0 && block == 0 ? 2 : 1;
          blocks->push_back(std::make_shared<BasicBlock>(channels, kResNet20Filters[stage], stride));
          channels = kResNet20Filters[stage];
        }
      }
    } else {
      channels = kMobileNetSmallStem;
      stem = register_module("stem", std::make_shared<ConvBn>(in, channels, 3));
      for (const InvertedResidual& b : kMobileNetSmallBlocks) {
        blocks->push_back(std::make_shared<InvertedResidualBlock>(channels, b));
        channels = b.filters;
      }
      head_conv = register_module("head_conv", std::make_shared<ConvBn>(channels, kMobileNetSmallHead, 1));
      channels = kMobileNetSmallHead;
    }
    register_module("blocks", blocks);
    head = register_module("head", torch::nn::Linear(channels, w.classes));
  }
  torch::Tensor activation(const torch::Tensor& x) const { return six ? torch::relu6(x) : torch::relu(x); }
  torch::Tensor forward(torch::Tensor x) {
    x = activation(stem->forward(x));
    x = blocks->forward(x);
    if (head_conv) x = activation(head_conv->forward(x));
    return head(x.mean({2, 3}));
  }
  bool six;  // ReLU6 (mobilenet_small) or ReLU (resnet20)
  std::shared_ptr<ConvBn> stem, head_conv;
  torch::nn::Sequential blocks;
  torch::nn::Linear head{nullptr};
};

// One module for every workload: the layers a Kind does not use stay empty (nullptr
// holders) and are not registered.
struct Net : torch::nn::Module {
  explicit Net(const Workload& w) : kind(w.kind) {
    switch (w.kind) {
      case Kind::mlp:
        fc1 = register_module("fc1", torch::nn::Linear(w.sample_size(), w.units));
        fc2 = register_module("fc2", torch::nn::Linear(w.units, w.units));
        head = register_module("head", torch::nn::Linear(w.units, w.classes));
        break;
      case Kind::lstm:
      case Kind::bilstm: {
        const bool bi = w.kind == Kind::bilstm;
        lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(w.sample_shape[1], w.units)
                                                           .batch_first(true)
                                                           .bidirectional(bi)));
        head = register_module("head", torch::nn::Linear(w.units * (bi ? 2 : 1), w.classes));
        break;
      }
      case Kind::cnn:
        conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3)));
        conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3)));
        drop = register_module("drop", torch::nn::Dropout(0.5));
        head = register_module("head", torch::nn::Linear(1600, w.classes));
        break;
      case Kind::dense:
        head = register_module("head", torch::nn::Linear(w.units, w.units));
        break;
      case Kind::transformer: {
        const std::int64_t dim = w.sample_shape[1];
        attention = register_module("attention",
                                    torch::nn::MultiheadAttention(torch::nn::MultiheadAttentionOptions(dim, w.units)));
        // Keras's LayerNormalization epsilon.
        norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).eps(1e-3)));
        head = register_module("head", torch::nn::Linear(dim, w.classes));
        break;
      }
      case Kind::resnet20:
      case Kind::mobilenet_small:
        blocks = register_module("net", std::make_shared<BlockNet>(w));
        break;
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    switch (kind) {
      case Kind::mlp:
        return head(torch::relu(fc2(torch::relu(fc1(x)))));
      case Kind::lstm:
      case Kind::bilstm: {
        // The forward direction's last state and the backward direction's final state,
        // concatenated, as Keras's Bidirectional returns.
        torch::Tensor h_n = std::get<0>(std::get<1>(lstm->forward(x)));  // (directions, batch, units)
        return head(h_n.size(0) == 2 ? torch::cat({h_n[0], h_n[1]}, 1) : h_n[0]);
      }
      case Kind::cnn:
        x = torch::max_pool2d(torch::relu(conv1(x)), 2);
        x = torch::max_pool2d(torch::relu(conv2(x)), 2);
        return head(drop(x.flatten(1)));
      case Kind::dense:
        return head(x);
      case Kind::transformer: {
        // torch's attention takes (time, batch, dim); the scores are not returned, as in Keras.
        torch::Tensor t = x.transpose(0, 1);
        torch::Tensor attended = std::get<0>(attention->forward(t, t, t, {}, /*need_weights=*/false));
        return head(norm(x + attended.transpose(0, 1)).mean(1));
      }
      case Kind::resnet20:
      case Kind::mobilenet_small:
        return blocks->forward(x);
    }
    return x;
  }

  Kind kind;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::Dropout drop{nullptr};
  torch::nn::MultiheadAttention attention{nullptr};
  torch::nn::LayerNorm norm{nullptr};
  std::shared_ptr<BlockNet> blocks;
};

// The workload's shape for `rows` samples, as the data is stored (NHWC for images).
std::vector<std::int64_t> dims_of(const Workload& w, std::int64_t rows) {
  std::vector<std::int64_t> dims{rows};
  dims.insert(dims.end(), w.sample_shape.begin(), w.sample_shape.end());
  return dims;
}

template <typename T>
torch::Tensor copy_of(const std::vector<T>& src, std::int64_t offset, std::vector<std::int64_t> dims,
                      torch::Dtype dtype) {
  return torch::from_blob(const_cast<T*>(src.data() + offset), dims, dtype).clone();
}

// `rows` samples of x from `first` on as libtorch's model takes them: images as NCHW
// (torch's default layout), the same pixels. A clone in the contiguous format, not
// .contiguous(): with one channel the permuted view already counts as contiguous but
// keeps channels-last strides, which would send the cnn's convolutions down another path.
torch::Tensor inputs_of(const Workload& w, const Data& data, std::int64_t first, std::int64_t rows) {
  torch::Tensor x = copy_of(data.x, first * w.sample_size(), dims_of(w, rows), torch::kFloat32);
  return w.images() ? x.permute({0, 3, 1, 2}).clone(torch::MemoryFormat::Contiguous) : x;
}

class TorchRunner : public Runner {
 public:
  TorchRunner(const Workload& w, const Data& data)
      : net_(std::make_shared<Net>(w)), device_(w.device == BenchDevice::cuda ? torch::kCUDA : torch::kCPU) {
    set_torch_threads(w.threads);
    if (!device_.is_cpu()) net_->to(device_);  // before the optimizer takes the parameters
    if (w.kind == Kind::dense) {
      optimizer_ = std::make_unique<torch::optim::SGD>(net_->parameters(), torch::optim::SGDOptions(w.learning_rate));
    } else {
      optimizer_ =
          std::make_unique<torch::optim::Adam>(net_->parameters(), torch::optim::AdamOptions(w.learning_rate));
    }
    for (std::int64_t b = 0; b < w.batches(); ++b) {
      const std::int64_t first = b * w.batch_size;
      x_.push_back(inputs_of(w, data, first, w.batch_size).to(device_));
      y_.push_back((w.kind == Kind::dense
                        ? copy_of(data.targets, first * w.units, {w.batch_size, w.units}, torch::kFloat32)
                        : copy_of(data.labels, first, {w.batch_size}, torch::kInt64))
                       .to(device_));
    }
    for (std::int64_t r = 0; r < std::min(kSingleRows, w.samples); ++r) {
      singles_.push_back(inputs_of(w, data, r, 1).to(device_));
    }
  }

  float train_epoch() override {
    net_->train();
    float loss_value = 0;
    for (std::size_t b = 0; b < x_.size(); ++b) {
      optimizer_->zero_grad();
      torch::Tensor out = net_->forward(x_[b]);
      torch::Tensor loss = net_->kind == Kind::dense ? torch::mse_loss(out, y_[b])
                                                     : torch::nn::functional::cross_entropy(out, y_[b]);
      loss.backward();
      optimizer_->step();
      loss_value = loss.item<float>();
    }
    return loss_value;
  }

  float predict_epoch() override {
    torch::NoGradGuard no_grad;
    net_->eval();
    float sink = 0;
    for (const auto& x : x_) sink += first_logit(net_->forward(x));
    return sink;
  }

  float predict_one(std::int64_t row) override {
    torch::NoGradGuard no_grad;
    net_->eval();
    return first_logit(net_->forward(singles_[static_cast<std::size_t>(row) % singles_.size()]));
  }

 private:
  // The output's first element, read on the host: on the GPU a copy back, which waits
  // for the forward pass, as Strata's fetch does.
  float first_logit(const torch::Tensor& out) const {
    if (device_.is_cpu()) return out.data_ptr<float>()[0];
    return out.flatten()[0].item<float>();
  }

  std::shared_ptr<Net> net_;
  torch::Device device_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::vector<torch::Tensor> x_, y_, singles_;
};

}  // namespace

std::string torch_version() { return TORCH_VERSION; }

void set_torch_threads(int threads) {
  torch::set_num_threads(threads);
  // Debian's libtorch runs its GEMMs in OpenBLAS (pthreads build), whose pool ignores
  // OpenMP's thread count: give it the same number.
  using SetThreads = void (*)(int);
  if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) fn(threads);
}

std::unique_ptr<Runner> make_torch_runner(const Workload& w, const Data& data) {
  return std::make_unique<TorchRunner>(w, data);
}

double torch_gemm_gflops(const GemmShape& g, int calls) {
  torch::NoGradGuard no_grad;
  // Transposed operands are stored transposed and passed as .t() views, which torch
  // hands to BLAS as a transpose flag.
  torch::Tensor a = g.transpose_a ? torch::rand({g.k, g.m}).t() : torch::rand({g.m, g.k});
  torch::Tensor b = g.transpose_b ? torch::rand({g.n, g.k}).t() : torch::rand({g.k, g.n});
  torch::Tensor c = torch::empty({g.m, g.n});
  const double s = median_seconds([&] { torch::mm_out(c, a, b); }, calls);
  return g.flops() / s / 1e9;
}

bool torch_cuda_built() {
  // A CUDA libtorch links libtorch_cuda.so into the process; a CPU-only one has none.
  return ::dlopen("libtorch_cuda.so", RTLD_LAZY | RTLD_NOLOAD) != nullptr;
}

bool torch_cuda_device() { return torch::cuda::is_available(); }

std::string torch_strict_float32() {
  // Strata computes float32 products in float32 (CUBLAS_DEFAULT_MATH); so must libtorch.
  // These setters are deprecated since PyTorch 2.9 (fp32_precision) but still honoured.
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
  at::globalContext().setFloat32MatmulPrecision("highest");
  return std::string("libtorch: TF32 in cuBLAS ") + (at::globalContext().allowTF32CuBLAS() ? "ON" : "off") +
         ", in cuDNN " + (at::globalContext().allowTF32CuDNN() ? "ON" : "off") + "; cuDNN " +
         (torch::cuda::cudnn_is_available() ? "available" : "not available");
}

double torch_cuda_gemm_gflops(const GemmShape& g, int calls) {
  torch::NoGradGuard no_grad;
  const auto on = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat32);
  torch::Tensor a = g.transpose_a ? torch::rand({g.k, g.m}, on).t() : torch::rand({g.m, g.k}, on);
  torch::Tensor b = g.transpose_b ? torch::rand({g.n, g.k}, on).t() : torch::rand({g.k, g.n}, on);
  torch::Tensor c = torch::empty({g.m, g.n}, on);
  // Each call waits for its product: launch latency (~10 us) against milliseconds of work.
  const double s = median_seconds(
      [&] {
        torch::mm_out(c, a, b);
        torch::cuda::synchronize();
      },
      calls);
  return g.flops() / s / 1e9;
}

double torch_step_overhead_us(BenchDevice device, int steps) {
  const torch::Device on = device == BenchDevice::cuda ? torch::kCUDA : torch::kCPU;
  torch::nn::Linear net(kOverheadUnits, kOverheadUnits);
  net->to(on);
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(1e-3));
  const auto options = torch::TensorOptions().device(on).dtype(torch::kFloat32);
  const torch::Tensor x = torch::full({kOverheadBatch, kOverheadUnits}, 0.5, options);
  const torch::Tensor y = torch::full({kOverheadBatch, kOverheadUnits}, 0.25, options);
  volatile float sink = 0;
  return 1e6 * median_seconds(
                   [&] {
                     optimizer.zero_grad();
                     torch::Tensor loss = torch::mse_loss(net->forward(x), y);
                     loss.backward();
                     optimizer.step();
                     sink = sink + loss.item<float>();
                   },
                   steps);
}

}  // namespace strata::bench
