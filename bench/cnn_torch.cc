// libtorch side of bench/cnn.cc: the same CNN with torch::nn (NCHW, as libtorch wants it),
// torch::optim::Adam and cross_entropy.
#include <dlfcn.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "bench/cnn_workload.h"

namespace strata::bench {
namespace {

struct Net : torch::nn::Module {
  Net()
      : conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3)))),
        conv2(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3)))),
        drop(register_module("drop", torch::nn::Dropout(0.5))),
        fc(register_module("fc", torch::nn::Linear(1600, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(conv1(x)), 2);
    x = torch::max_pool2d(torch::relu(conv2(x)), 2);
    return fc(drop(x.flatten(1)));
  }
  torch::nn::Conv2d conv1, conv2;
  torch::nn::Dropout drop;
  torch::nn::Linear fc;
};

class TorchCnn : public CnnRunner {
 public:
  TorchCnn(const CnnConfig& c, const CnnData& data)
      : net_(std::make_shared<Net>()), adam_(net_->parameters(), torch::optim::AdamOptions(c.learning_rate)) {
    torch::set_num_threads(c.threads);
    using SetThreads = void (*)(int);
    if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) fn(c.threads);
    const auto f = torch::TensorOptions().dtype(torch::kFloat32);
    const auto l = torch::TensorOptions().dtype(torch::kInt64);
    for (std::int64_t b = 0; b + c.batch_size <= c.samples; b += c.batch_size) {
      auto* xb = const_cast<float*>(data.x.data() + b * 784);
      auto* yb = const_cast<std::int64_t*>(data.y.data() + b);
      // NHWC data with C = 1 is NCHW data: only the view differs.
      x_.push_back(torch::from_blob(xb, {c.batch_size, 1, 28, 28}, f).clone());
      y_.push_back(torch::from_blob(yb, {c.batch_size}, l).clone());
    }
  }
  std::string name() const override { return "libtorch"; }
  float train_epoch() override {
    net_->train();
    float loss_value = 0;
    for (std::size_t b = 0; b < x_.size(); ++b) {
      adam_.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(net_->forward(x_[b]), y_[b]);
      loss.backward();
      adam_.step();
      loss_value = loss.item<float>();
    }
    return loss_value;
  }
  float predict_epoch() override {
    torch::NoGradGuard no_grad;
    net_->eval();
    float sink = 0;
    for (const auto& x : x_) sink += net_->forward(x).data_ptr<float>()[0];
    return sink;
  }

 private:
  std::shared_ptr<Net> net_;
  torch::optim::Adam adam_;
  std::vector<torch::Tensor> x_, y_;
};

}  // namespace

std::string cnn_torch_version() { return TORCH_VERSION; }
std::unique_ptr<CnnRunner> make_torch_cnn(const CnnConfig& c, const CnnData& d) {
  return std::make_unique<TorchCnn>(c, d);
}

}  // namespace strata::bench
