// libtorch side of bench/mlp.cc: the same MLP with torch::nn, torch::optim::Adam and
// cross_entropy (= sparse categorical crossentropy from logits, mean over the batch).
#include <dlfcn.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "bench/mlp_workload.h"

namespace strata::bench {
namespace {

struct Net : torch::nn::Module {
  Net(std::int64_t inputs, std::int64_t hidden, std::int64_t classes)
      : fc1(register_module("fc1", torch::nn::Linear(inputs, hidden))),
        fc2(register_module("fc2", torch::nn::Linear(hidden, hidden))),
        fc3(register_module("fc3", torch::nn::Linear(hidden, classes))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return fc3(torch::relu(fc2(torch::relu(fc1(x)))));
  }
  torch::nn::Linear fc1, fc2, fc3;
};

class TorchMlp : public MlpRunner {
 public:
  TorchMlp(const MlpConfig& c, const MlpData& data)
      : net_(std::make_shared<Net>(c.inputs, c.hidden, c.classes)),
        adam_(net_->parameters(), torch::optim::AdamOptions(c.learning_rate)) {
    torch::set_num_threads(c.threads);
    // Debian's libtorch runs its GEMMs in OpenBLAS (pthreads build), whose pool ignores
    // OpenMP's thread count: give it the same number.
    using SetThreads = void (*)(int);
    if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
      fn(c.threads);
    }
    const auto float_opts = torch::TensorOptions().dtype(torch::kFloat32);
    const auto long_opts = torch::TensorOptions().dtype(torch::kInt64);
    for (std::int64_t b = 0; b + c.batch_size <= c.samples; b += c.batch_size) {
      auto* xb = const_cast<float*>(data.x.data() + b * c.inputs);
      auto* yb = const_cast<std::int64_t*>(data.y.data() + b);
      x_.push_back(torch::from_blob(xb, {c.batch_size, c.inputs}, float_opts).clone());
      y_.push_back(torch::from_blob(yb, {c.batch_size}, long_opts).clone());
    }
    for (std::int64_t r = 0; r < std::min<std::int64_t>(kSingleRows, c.samples); ++r) {
      auto* xr = const_cast<float*>(data.x.data() + r * c.inputs);
      singles_.push_back(torch::from_blob(xr, {1, c.inputs}, float_opts).clone());
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

  float predict_one(std::int64_t row) override {
    torch::NoGradGuard no_grad;
    net_->eval();
    torch::Tensor out = net_->forward(singles_[static_cast<std::size_t>(row) % singles_.size()]);
    return out.data_ptr<float>()[0];
  }

 private:
  std::shared_ptr<Net> net_;
  torch::optim::Adam adam_;
  std::vector<torch::Tensor> x_, y_, singles_;
};

}  // namespace

std::string torch_version() { return TORCH_VERSION; }

std::unique_ptr<MlpRunner> make_torch_mlp(const MlpConfig& config, const MlpData& data) {
  return std::make_unique<TorchMlp>(config, data);
}

}  // namespace strata::bench
