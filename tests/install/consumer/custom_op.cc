// A custom op written outside Strata, against the installed package only, as
// docs/extending.md's "Custom ops" section teaches (it quotes the snippet regions below):
// an op declared with its shape inference and gradient, a CPU kernel for it, a layer that
// calls it, trained by fit, and its gradient checked by check_gradients, the helper that
// checks the built-in ops. Exits non-zero on any mismatch.
#include <strata/core/op_registry.h>
#include <strata/strata.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace strata;  // as a user's file has it

namespace {

// [snippet custom_op]
// smooth_abs(x) = sqrt(x² + eps²) - eps: |x| with a rounded corner at 0, eps an attribute.
void register_smooth_abs() {
  OpRegistry& registry = OpRegistry::global();
  registry.add({
      .name = "smooth_abs",
      // Shapes and dtypes when the node is added: wrong inputs fail there, not at run time.
      .infer = [](const InferContext& ctx) {
        if (ctx.inputs.size() != 1 || ctx.inputs[0].dtype != DType::float32)
          throw ValueError("smooth_abs: expects one float32 input");
        return std::vector<TensorSpec>{ctx.inputs[0]};
      },
      // d/dx = x / (y + eps), built from graph ops: they run on any device and are
      // differentiable again.
      .gradient = [](const Node& node, const std::vector<Output>& output_grads) {
        const Output x = node.inputs[0], y{x.graph, node.id, 0};
        const float eps = static_cast<float>(node.attrs.get<double>("eps"));
        return std::vector<Output>{ops::div(ops::mul(output_grads[0], x), ops::add(y, eps))};
      },
  });
  // The CPU kernel: its output is already shaped by `infer` on the fed shapes.
  registry.add_kernel("smooth_abs", DeviceType::cpu, {.run = [](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const float eps = static_cast<float>(ctx.node.attrs.get<double>("eps"));
    const float* in = x.data<float>();
    float* out = ctx.output(0).data<float>();
    for (std::int64_t i = 0; i < x.size(); ++i) out[i] = std::sqrt(in[i] * in[i] + eps * eps) - eps;
  }});
}

// The op as a function on symbolic values, like the built-in ops:: functions.
Output smooth_abs(Output x, double eps) { return x.graph->add("smooth_abs", {x}, {{"eps", eps}}); }
// [end snippet]

// [snippet custom_op_layer]
// A layer calling the op: Dense's product, then smooth_abs as its activation.
class SmoothAbsDense : public CustomLayer {
 public:
  explicit SmoothAbsDense(std::int64_t units, std::string name = "")
      : CustomLayer("SmoothAbsDense", name), units(units) {}

  void build(const std::vector<TensorSpec>& inputs) override {
    w = add_weight("w", {inputs[0].shape.dims().back(), units}, initializers::GlorotUniform());
    b = add_weight("b", {units}, initializers::Zeros());
  }
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {smooth_abs(ops::add(ops::matmul(inputs[0], graph.variable(w)), graph.variable(b)), 0.1)};
  }

  std::int64_t units;
  Variable w, b;
};
// [end snippet]

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  failures += ok ? 0 : 1;
}

}  // namespace

int main() {
  register_smooth_abs();

  // The kernel's values against the formula, through a Program.
  {
    Graph g;
    Output x = g.placeholder({Shape{kUnknownDim}}, "x");
    Program program(g, {x}, {smooth_abs(x, 0.5)});
    const std::vector<float> in{-2.f, -0.25f, 0.f, 1.f};
    const std::vector<float> out = program.run({Tensor::from_vector<float>({4}, in)}).at(0).to_vector<float>();
    bool equal = true;
    for (std::size_t i = 0; i < in.size(); ++i)
      equal = equal && std::fabs(out[i] - (std::sqrt(in[i] * in[i] + 0.25f) - 0.5f)) < 1e-6f;
    expect(equal, "smooth_abs's CPU kernel computes sqrt(x^2 + eps^2) - eps");
  }

  // [snippet custom_op_gradient_check]
  // The symbolic gradient against central finite differences, as the built-in ops are checked.
  GradientCheckResult check = check_gradients(
      [](Graph&, const std::vector<Output>& in) { return smooth_abs(in[0], 0.1); },
      {Tensor::from_vector<float>({2, 3}, {-1.5f, -0.2f, 0.05f, 0.3f, 0.9f, 2.f})});
  // check.ok, or check.report names the worst element
  // [end snippet]
  expect(check.ok, "smooth_abs's gradient matches finite differences (max error " +
                       std::to_string(check.max_abs_error) + ")" + (check.ok ? "" : "\n" + check.report));

  // A wrong input fails when the graph is defined.
  {
    Graph g;
    Output labels = g.placeholder({Shape{4}, DType::int64}, "labels");
    bool refused = false;
    try {
      smooth_abs(labels, 0.1);
    } catch (const ValueError& e) {
      refused = std::string(e.what()).find("smooth_abs") != std::string::npos;
    }
    expect(refused, "smooth_abs refuses an int64 input when the node is added");
  }

  // The layer in a model, trained by fit: the targets are |x|-like, which a smooth_abs output fits.
  set_random_seed(7);
  std::vector<float> xs, ys;
  for (int i = 0; i < 256; ++i) {
    const float a = static_cast<float>(i % 16) / 8.f - 1.f, b = static_cast<float>(i / 16) / 8.f - 1.f;
    xs.insert(xs.end(), {a, b});
    ys.push_back(std::fabs(a - b));
  }
  const Tensor x = Tensor::from_vector<float>({256, 2}, xs), y = Tensor::from_vector<float>({256, 1}, ys);
  KerasTensor inputs = Input({2});
  Model model(inputs, make_layer<SmoothAbsDense>(1)(inputs));
  model.compile({.optimizer = optimizers::Adam({.learning_rate = 0.05}), .loss = losses::MeanSquaredError()});
  History history = model.fit(x, y, {.batch_size = 32, .epochs = 40, .verbose = 0});
  const std::vector<float>& loss = history.history.at("loss");
  std::printf("fit through smooth_abs: loss %.4f -> %.4f\n", loss.front(), loss.back());
  expect(loss.back() < 0.1 * loss.front(), "fit trains a layer calling smooth_abs (loss falls tenfold)");
  const Tensor probe = Tensor::from_vector<float>({1, 2}, {0.5f, -0.5f});
  const float predicted = model.predict(probe, {.verbose = 0}).to_vector<float>().at(0);
  expect(std::fabs(predicted - 1.f) < 0.15f, "the trained model predicts |0.5 - -0.5| = 1 (got " +
                                                 std::to_string(predicted) + ")");

  std::printf("strata custom op consumer: %d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
