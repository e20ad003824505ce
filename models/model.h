// Model: Keras's functional model, and the home of compile / fit / evaluate / predict.
// A Model is a Layer (it can be called on tensors, nested in other models).
//
// compile() replays the model's layer calls into a fresh graph and compiles three
// Programs from it once: predict, test_step and train_step (loss, gradients and the
// optimizer's updates are nodes of that graph). The graph is then finalized: fitting
// or predicting any number of times adds no node. A CustomModel (models/custom_model.h)
// brings its own train_step / test_step / predict_step instead, built once each into
// programs that the same fit / evaluate / predict loops run.
//
// predict and predict_on_batch may be called from any number of threads at once; fit,
// evaluate, compile, load_weights and the *_on_batch steps need the model to themselves
// and throw when other threads are predicting (docs/concurrency.md).
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "layers/layer.h"
#include "models/fit_state.h"
#include "models/history.h"
#include "models/model_files.h"
#include "models/options.h"
#include "models/usage_guard.h"

namespace strata {

class CompiledModel;  // the graph and programs made by compile (models/compiled_model.h)
class BatchSource;    // batches from arrays or a Dataset (data/batch_source.h)
class StepRunner;     // the steps fit and evaluate drive (models/step_runner.h)

struct ModelOptions {
  std::string name;
};

class ModelImpl : public LayerImpl {
 public:
  ModelImpl(std::vector<KerasTensor> inputs, std::vector<KerasTensor> outputs, std::string name,
            std::string class_name = "Functional");
  ~ModelImpl() override;

  // Replays the recorded layer calls on `inputs` into `graph`.
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The calls whose first input carries a Keras mask when the model runs, found by
  // replaying the calls on placeholders of the inputs' shapes (io/ writes a recurrent
  // layer's call as Keras 3 computes it only where no mask reaches its sequence).
  std::set<const LayerCall*> masked_calls() const;
  bool accepts_input_count(std::size_t n) const override { return n == inputs.size(); }
  std::vector<Layer> sublayers() const override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::not_applicable; }

  // (Re)derives calls and layers from inputs/outputs; checks that names are unique.
  void set_graph(std::vector<KerasTensor> inputs, std::vector<KerasTensor> outputs);
  // Sequential models without an Input are built from the first data they see.
  virtual void build_from_data(const std::vector<Tensor>& x) {}

  std::vector<KerasTensor> inputs, outputs;
  std::vector<std::shared_ptr<const LayerCall>> calls;  // topological, Input calls excluded
  std::vector<Layer> layers;                              // first-call order; InputLayers included

  // Training state. compile() keeps its options; the CompiledModel is made at once when
  // the inputs are known, else from the first data (a Sequential without Input).
  std::optional<CompileOptions> compile_options;
  std::unique_ptr<CompiledModel> compiled;
  std::unique_ptr<CompiledModel> inference;  // predict() before compile()
  bool stop_training = false;
  // Where the running fit stands (updated after every batch), and where a callback asks
  // it to continue from (read right after on_train_begin); see models/fit_state.h.
  FitState fit_state;
  std::optional<FitState> resume_from;

  // predict on many threads at once; fit, evaluate, compile alone (models/usage_guard.h).
  UsageGuard usage;
  // Guards the inference programs that concurrent predict calls may build on first use.
  std::mutex inference_mutex;

 private:
  // call(), recording into `masked_calls` (where given) each call whose inputs carry a mask.
  std::vector<Output> replay(Graph& graph, const std::vector<Output>& inputs,
                             std::set<const LayerCall*>* masked_calls);
};

class Model : public Layer {
 public:
  Model(const KerasTensor& input, const KerasTensor& output, ModelOptions options = {});
  Model(const KerasTensor& input, std::vector<KerasTensor> outputs, ModelOptions options = {});
  Model(std::vector<KerasTensor> inputs, std::vector<KerasTensor> outputs, ModelOptions options = {});
  explicit Model(std::shared_ptr<ModelImpl> impl);

  void compile(CompileOptions options);
  bool compiled() const;

  // Keras's model.quantize(mode) (models/model_quantize.cc, docs/precision.md): every Dense,
  // EinsumDense and Embedding of the model and of its nested models gets Keras's int8
  // kernel and per-channel scale and its QuantizedDTypePolicy; other layers stay as they
  // are (Keras warns that they have no quantize, Strata too, on stderr). A compiled model
  // stays compiled with the same optimizer and its state; fit then trains what Keras
  // trains (the biases and the float layers). Keras's ValueErrors for a mode it does not
  // know, a model not built and a layer quantized already; NotImplementedError for
  // Keras's other modes ("int4", "float8") and for Dense or EinsumDense layers inside
  // another layer (MultiHeadAttention's, TimeDistributed's), which Strata does not
  // quantize yet. Every check comes before any change.
  void quantize(const std::string& mode);

  History fit(const Tensor& x, const Tensor& y, const FitOptions& options = {});
  History fit(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const FitOptions& options = {});
  // A batched Dataset yielding (x..., y...[, sample_weight]) (data/dataset.h). batch_size,
  // shuffle, validation_split, sample_weight and class_weight don't apply: the pipeline
  // decides (weights come from the data, as Keras's (x, y, sample_weight) tuples).
  History fit(const Dataset& data, const FitOptions& options = {});
  // Named scores: {"loss": ..., "accuracy": ...}.
  std::map<std::string, float> evaluate(const Tensor& x, const Tensor& y, const EvaluateOptions& options = {});
  std::map<std::string, float> evaluate(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                        const EvaluateOptions& options = {});
  std::map<std::string, float> evaluate(const Dataset& data, const EvaluateOptions& options = {});
  Tensor predict(const Tensor& x, const PredictOptions& options = {});
  // The first output for every batch of a batched Dataset (targets, if any, are ignored).
  Tensor predict(const Dataset& data, const PredictOptions& options = {});
  std::vector<Tensor> predict(const std::vector<Tensor>& x, const PredictOptions& options = {});

  std::map<std::string, float> train_on_batch(const Tensor& x, const Tensor& y);
  std::map<std::string, float> train_on_batch(const std::vector<Tensor>& x, const std::vector<Tensor>& y);
  std::map<std::string, float> test_on_batch(const Tensor& x, const Tensor& y);
  std::map<std::string, float> test_on_batch(const std::vector<Tensor>& x, const std::vector<Tensor>& y);
  Tensor predict_on_batch(const Tensor& x);
  std::vector<Tensor> predict_on_batch(const std::vector<Tensor>& x);

  // Keras-layout summary: name (type), output shape, params; totals.
  void summary(std::ostream& out) const;
  void summary() const;
  std::string summary_string() const;

  const std::vector<Layer>& layers() const;
  Layer get_layer(const std::string& name) const;
  Layer get_layer(int index) const;
  const std::vector<KerasTensor>& inputs() const { return model().inputs; }
  const std::vector<KerasTensor>& outputs() const { return model().outputs; }

  // Files, through the ModelFiles io/ implements (models/model_files.h).
  // Weights-only files in Keras's HDF5 layouts (".weights.h5": Keras 3; other ".h5": tf.keras).
  void save_weights(const std::string& path) const;
  // Whole model: ".keras" (Keras 3 zip) or ".h5" (tf.keras 2 layout); see io/saving.h.
  void save(const std::string& path) const;
  // Keras 3 JSON config (io/model_config.h).
  std::string to_json() const;
  // As Keras: .h5 files load layer by layer in order, or by layer name with
  // `.by_name = true`; `.skip_mismatch` skips layers that don't fit (with a warning).
  void load_weights(const std::string& path, const LoadWeightsOptions& options = {}) const;

  // The optimizer compile() resolved (its learning_rate and iterations are variables
  // callbacks read and set). Throws when the model is not compiled.
  optimizers::Optimizer optimizer() const;

  // The compiled train graph (for tests of the graph's guarantees).
  const Graph& graph() const;
  bool stop_training() const { return model().stop_training; }
  void set_stop_training(bool stop) const { model().stop_training = stop; }

  ModelImpl& model() const;

 private:
  History fit_loop(StepRunner& c, BatchSource& train, BatchSource* val, const FitOptions& options,
                   std::uint64_t shuffle_seed);
};

}  // namespace strata
