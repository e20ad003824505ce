// CustomModel: Keras's "Customizing what happens in fit()" (docs/extending.md). A model
// class that overrides train_step / test_step / predict_step, as a keras.Model subclass
// does, and keeps everything fit gives: callbacks, the progress bar, History,
// validation, BackupAndRestore, data-parallel training across processes.
//
//   class MyModel : public CustomModel {
//    public:
//     using CustomModel::CustomModel;
//     StepLogs train_step(StepBuilder& step) override {
//       Output y_pred = step.call(step.x()[0]);
//       Output loss = step.compute_loss(step.y()[0], y_pred);
//       std::vector<Variable> vars = trainable_variables();
//       step.apply(optimizer(), step.gradients(loss, vars), vars);
//       for (metrics::Metric& m : metrics()) ...  // step.update_state(m, ...)
//       return metrics();                        // Keras: {m.name: m.result() for m in self.metrics}
//     }
//   };
//   Model model = make_model<MyModel>(inputs, outputs);
//   model.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
//   model.fit(x, y, {.epochs = 3});
//
// A step is a static graph (models/step_builder.h): the override is called once per kind
// of batch (its arrays' count, dtypes and per-sample shapes) and compiled, and every batch
// runs the compiled program. The steps run where compile's `device` says.
//
// Keras's other subclassing, "a Model subclass with its own call": a model made without
// inputs and outputs overrides call(inputs), made of the layers it tracks:
//
//   class MLP : public CustomModel {
//    public:
//     explicit MLP(std::int64_t units) : CustomModel({}, {}, "", "MLP") {
//       hidden = track("hidden", layers::Dense(units, {.activation = "relu"}));
//       out = track("out", layers::Dense(1));
//     }
//     std::vector<KerasTensor> call(const std::vector<KerasTensor>& x) override { return {out(hidden(x[0]))}; }
//     Layer hidden, out;
//   };
//   Model model = make_model<MLP>(32);
//   model.compile({.optimizer = "adam", .loss = "mse"});
//   model.fit(x, y);  // builds it: call() once, on Inputs shaped as x's examples
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "losses/metric.h"
#include "models/model.h"
#include "models/step_builder.h"
#include "optimizers/optimizer.h"

namespace strata {

class CustomSteps;

// What a step returns: the metrics whose results are its logs, by name (Keras's
// `return {m.name: m.result() for m in self.metrics}`).
using StepLogs = std::vector<metrics::Metric>;

class CustomModel : public ModelImpl {
 public:
  // Keras's CustomModel(inputs, outputs): the layer calls from `inputs` to `outputs` are
  // the model's own call. A model given none (the GAN of Keras's guide) has no call of
  // its own: its steps call the models it tracks. `class_name` is Keras's (summaries show it); a
  // model of a class of its own is named after it by default ("gan", "gan_1", ...).
  explicit CustomModel(std::vector<KerasTensor> inputs = {}, std::vector<KerasTensor> outputs = {},
                       std::string name = "", std::string class_name = "Functional");
  CustomModel(const KerasTensor& input, const KerasTensor& output, std::string name = "");
  ~CustomModel() override;

  // Keras's call(inputs) of a Model subclass: the model's outputs computed from symbolic
  // `inputs` (one per input array) with the layers it tracks and any other layer calls. It
  // runs once, when the model is built: by build(), or from the first arrays fit,
  // evaluate or predict give a model made without inputs; from then on the model is the
  // graph of those calls, as a functional model is (gradients, summary, the training flag
  // of Dropout and BatchNormalization at run time). The default has none: such a model
  // (the GAN of Keras's guide) calls the models it tracks in its steps.
  using ModelImpl::call;
  virtual std::vector<KerasTensor> call(const std::vector<KerasTensor>& inputs);
  // Keras's model.build(input_shape): builds the model's own call on Inputs of these
  // per-example shapes (the batch left out) and dtypes (float32 where not given). A
  // ValueError when the model has no call of its own or is built already.
  void build(const std::vector<Shape>& input_shapes, const std::vector<DType>& dtypes = {});
  // build() from the first arrays' per-example shapes and dtypes; nothing for a model
  // without a call of its own.
  void build_from_data(const std::vector<Tensor>& x) override;
  // The compiled metrics are resolved against the outputs once the model has them (a
  // model compiled before it was built); a model still without outputs and compiled with
  // metrics is a ValueError. Called when a step is first built.
  void resolve_compiled_outputs();

  // Keras's train_step(data), built once into the program fit runs on every batch. The
  // default is Keras's: self(x), compute_loss, the gradients of the trainable variables
  // applied by compile's optimizer, and every metric of metrics() updated.
  virtual StepLogs train_step(StepBuilder& step);
  // Keras's test_step(data) for evaluate and fit's validation (no update): by default the
  // loss and the metrics, as train_step's.
  virtual StepLogs test_step(StepBuilder& step);
  // Keras's predict_step(data): what predict returns for a batch (default: self(x)).
  virtual std::vector<Output> predict_step(StepBuilder& step);
  // Keras's `metrics` property: what fit resets at every epoch's start (and evaluate at
  // its own). Default: compile's loss tracker (a Mean named "loss") and compile's metrics.
  // An override lists the metrics the model tracks itself (Keras's guide: a loss tracker
  // and an MAE metric made in the constructor).
  virtual std::vector<metrics::Metric> metrics() const;

  // Keras's self.trainable_variables: every trainable weight of the layers and models it
  // tracks, in tracking order (Keras's order, which its optimizer builds on and its files
  // keep), then those of any other layer its call uses.
  std::vector<Variable> trainable_variables() const;
  // Keras's self.optimizer: compile's. A ValueError before compile.
  optimizers::Optimizer optimizer() const;
  // The layers of the model's call, then the tracked models.
  std::vector<Layer> sublayers() const override;
  // What track() was given, in tracking order, and each one's attribute: a .keras file
  // keeps a model subclass's weights under them (io/custom_model.h).
  const std::vector<Layer>& tracked_layers() const { return tracked_; }
  const std::vector<std::string>& tracked_attributes() const { return attributes_; }
  // Whether the model is the graph of its own call() (Keras's Model subclass with a call),
  // rather than of the inputs and outputs it was made with.
  bool built_from_own_call() const { return built_from_call_; }

  // Keras's get_config of a Model subclass: what its from_config needs to make it again
  // (units, ...). A registered class (saving::register_keras_serializable) is saved under
  // its own class name with this config, plus name, trainable and dtype as Keras's base
  // Model adds them. The default has no keys.
  virtual nlohmann::ordered_json get_config() const { return nlohmann::ordered_json::object(); }

  // Keras's compile (Model::compile calls it): keeps the optimizer, loss and metrics the
  // default steps and compute_loss use; the steps themselves are compiled from the first
  // batch of each kind. A model with a compile of its own (the GAN's, taking two
  // optimizers) calls this one with what it does not keep itself, as Keras's
  // super().compile().
  void compile(CompileOptions options);
  // The compiled steps fit, evaluate and predict run (null before compile).
  CustomSteps* steps() const { return steps_.get(); }
  // The steps predict runs before compile (Keras's predict runs predict_step, compiled or
  // not): made on the default device at the first call, dropped by compile and
  // rebuild_steps. They never join a data-parallel job.
  CustomSteps& uncompiled_predict_steps();
  // Drops the steps built so far, keeping the device, the step count and the place in a
  // data-parallel job: after a change to the variables themselves (quantize), they are
  // built again from the next batch.
  void rebuild_steps();

  // What a compiled metric measures: its output, and whether the batch's sample weight
  // weighs it (compile's weighted_metrics).
  struct MetricTarget {
    std::size_t output = 0;
    bool weighted = false;
  };

 protected:
  // Keras tracks a model set as an attribute (self.discriminator = discriminator): its
  // weights count as this model's (trainable_variables, weights, BackupAndRestore).
  Layer track(const std::string& attribute, Layer layer);

 private:
  friend class StepBuilder;
  friend class CustomSteps;
  std::vector<Layer> tracked_;
  std::vector<std::string> attributes_;
  std::unique_ptr<CustomSteps> steps_;
  std::unique_ptr<CustomSteps> uncompiled_predict_steps_;
  std::mutex uncompiled_predict_mutex_;  // concurrent predict calls make them once
  bool no_call_ = false;  // the default call() ran once: the model has no call of its own
  bool built_from_call_ = false;
  // Builds the own call on `specs`; false when the model has none.
  bool build_call(const std::vector<TensorSpec>& specs);
  // compile's loss tracker and metrics (resolved against the model's outputs), and loss.
  // The default steps' metric updates: the loss tracker takes the loss, each compiled
  // metric its output's targets and predictions (and the sample weight, for a weighted
  // metric).
  void update_metrics(StepBuilder& step, const StepLogs& logs, Output loss, const std::vector<Output>& y_pred);
  std::vector<metrics::Metric> compiled_metrics_;
  std::vector<MetricTarget> metric_targets_;  // per compiled metric
  std::vector<losses::Loss> losses_;
  std::vector<float> loss_weights_;
  optimizers::Optimizer optimizer_;
};

// A Model handle to a new MyModel made from `args` (Keras: CustomModel(inputs, outputs)).
template <typename MyModel, typename... Args>
Model make_model(Args&&... args) {
  static_assert(std::is_base_of_v<CustomModel, MyModel>, "make_model<T>: T must derive from CustomModel");
  return Model(std::make_shared<MyModel>(std::forward<Args>(args)...));
}

// The MyModel behind a handle, or a ValueError naming the model when it is another class.
template <typename MyModel>
MyModel& model_cast(const Model& model) {
  auto* impl = dynamic_cast<MyModel*>(&model.model());
  if (!impl) throw ValueError("model '" + model.name() + "' is not the class asked for");
  return *impl;
}

}  // namespace strata
