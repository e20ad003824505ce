// libtorch side of bench/lstm.cc: torch::nn::LSTM (batch_first) and a Linear head on the
// last output (for the bidirectional model: the forward direction's last state and the
// backward direction's final state, concatenated, as Keras's Bidirectional returns).
#include <dlfcn.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "bench/lstm_workload.h"

namespace strata::bench {
namespace {

struct Net : torch::nn::Module {
  explicit Net(const LstmConfig& c)
      : lstm(register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(c.features, c.units)
                                                          .batch_first(true)
                                                          .bidirectional(c.bidirectional)))),
        fc(register_module("fc", torch::nn::Linear(c.units * (c.bidirectional ? 2 : 1), c.classes))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    auto [out, state] = lstm->forward(x);
    torch::Tensor h_n = std::get<0>(state);  // (directions, batch, units)
    torch::Tensor last = h_n.size(0) == 2 ? torch::cat({h_n[0], h_n[1]}, 1) : h_n[0];
    return fc(last);
  }
  torch::nn::LSTM lstm;
  torch::nn::Linear fc;
};

class TorchLstm : public LstmRunner {
 public:
  TorchLstm(const LstmConfig& c, const LstmData& data)
      : net_(std::make_shared<Net>(c)), adam_(net_->parameters(), torch::optim::AdamOptions(c.learning_rate)) {
    torch::set_num_threads(c.threads);
    using SetThreads = void (*)(int);
    if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) fn(c.threads);
    const std::int64_t row = c.timesteps * c.features;
    for (std::int64_t b = 0; b + c.batch_size <= c.samples; b += c.batch_size) {
      auto* xb = const_cast<float*>(data.x.data() + b * row);
      auto* yb = const_cast<std::int64_t*>(data.y.data() + b);
      x_.push_back(torch::from_blob(xb, {c.batch_size, c.timesteps, c.features}, torch::kFloat32).clone());
      y_.push_back(torch::from_blob(yb, {c.batch_size}, torch::kInt64).clone());
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

std::string lstm_torch_version() { return TORCH_VERSION; }

std::unique_ptr<LstmRunner> make_torch_lstm(const LstmConfig& config, const LstmData& data) {
  return std::make_unique<TorchLstm>(config, data);
}

}  // namespace strata::bench
