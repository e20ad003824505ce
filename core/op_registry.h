// The op registry. Every op declares, in one place (core/ops/<family>): shape/dtype
// inference and a symbolic gradient (or says explicitly that it has none). Each device
// registers its kernels for the ops it supports into the op's per-device table: a CPU
// kernel always (core/cpu/kernels/), a CUDA kernel where one is written (core/cuda/).
// Nothing runs an op that is not registered, and a Program refuses at compile time a
// device its ops have no kernel for.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/graph.h"
#include "core/tensor.h"

namespace strata {

class Collective;  // core/collective.h
class DeviceRun;   // core/device_run.h

struct InferContext {
  const std::string& op;
  const std::vector<TensorSpec>& inputs;
  const Attrs& attrs;
};

// What a kernel keeps between runs of one execution state: something it derives from its
// inputs (a Dense pair's packed weights), which it checks against them on every run
// (Tensor::version). A kernel defines its own subclass.
struct KernelCache {
  virtual ~KernelCache() = default;
};

struct KernelContext {
  const Node& node;
  std::vector<const Tensor*> inputs;
  std::vector<Tensor*> outputs;  // already shaped by inference on the fed shapes
  bool training = false;         // Program mode: dropout and batch norm read it
  std::int64_t step = 0;         // counts runs of the program; random ops key on it
  // Where this process's samples sit in the step's global batch (data-parallel training
  // feeds each process a shard): random ops number their elements from sample_offset in
  // a batch of global_batch samples (0: the fed batch is the whole batch), so each
  // sample's dropout mask is the one a single process would draw.
  std::int64_t sample_offset = 0;
  std::int64_t global_batch = 0;
  Collective* collective = nullptr;  // for all_reduce_start / all_reduce_wait
  // The execution state's run on a device beside the CPU (null for CPU kernels): a CUDA
  // kernel's device, stream and library handles (core/cuda/run_context.h casts it). Such
  // a kernel only enqueues work on that stream: it returns before the work has run.
  DeviceRun* device_run = nullptr;
  std::unique_ptr<KernelCache> cache;  // this step's, set by its kernel; empty until then
  // Per output, whether a later step reads it or the run fetches it (set by a Program's
  // plan; null, every output read). A kernel may skip what nothing reads: the recurrent
  // kernels' workspace for a backward pass an inference program does not have.
  const std::vector<char>* outputs_read = nullptr;
  const Tensor& input(int i) const { return *inputs[static_cast<std::size_t>(i)]; }
  Tensor& output(int i) const { return *outputs[static_cast<std::size_t>(i)]; }
  bool output_read(int i) const { return !outputs_read || (*outputs_read)[static_cast<std::size_t>(i)] != 0; }
};

// Builds, with ops on the graph, the gradients of a node's inputs from the gradients
// of its outputs (every output gradient is defined: missing ones are zeros).
// Returns one Output per input; an invalid Output means "no gradient" (e.g. labels).
using GradFn = std::function<std::vector<Output>(const Node& node,
                                                 const std::vector<Output>& output_grads)>;
using InferFn = std::function<std::vector<TensorSpec>(const InferContext&)>;
using KernelFn = std::function<void(KernelContext&)>;
// Runs a step together with the next one that computes anything, when that step is a node
// of the same op reading the first one's first output as its own first input: one
// kernel for both, or false (nothing computed) where that does not pay, and the executor
// runs the two kernels as usual. Both contexts' outputs are already shaped.
using PairKernelFn = std::function<bool(KernelContext& first, KernelContext& second)>;

// One device's implementation of an op, registered by that device's folder (the CPU's
// core/cpu/kernels/<family>.cc, CUDA's core/cuda/<family>_kernels.cc), never by the op's
// declaration in core/ops.
struct DeviceKernel {
  KernelFn run;
  // Two nodes of this op in a row as one kernel (see PairKernelFn): Dense layers at
  // batch 1 on the CPU, whose products split over the cores then take one fork-join
  // instead of two (core/cpu/dense_pair.h). Empty: every node runs its own kernel.
  PairKernelFn pair;
  // Why a captured device graph (a CUDA graph) could not replay a node of this op
  // faithfully (empty: it can), for a kernel that reads something of the run on the host
  // which a replay would bake in. An execution state whose plan has such a node runs
  // eagerly (core/cuda_graph_policy.h).
  std::function<std::string(const Node&)> graph_refusal;
};

// An op as core/ops declares it, once: shape inference, gradient and flags. Its kernels
// are filled in by the devices, by device type.
struct OpDef {
  std::string name;
  InferFn infer;
  GradFn gradient;            // empty only when differentiable == false
  bool differentiable = true;
  bool stateful = false;      // writes a variable: never merged, never reordered before reads
  bool random = false;        // draws random numbers: never merged with a look-alike
  bool fed = false;           // placeholder/variable: the executor supplies the value
  bool takes_strings = false; // accepts string inputs (ops that move bytes, lookups, hashes);
                              // every other op refuses them when a graph is defined
  bool reads_mode = false;    // its kernels read the run's mode (training_select): never
                              // computed once for every run, even from variables alone
  bool rounds_own_output = false;  // every device's kernel honours the node's output_rounding
                                   // (core/graph.h): a PrecisionScope sets it, adds no rounding op
  // Where a Program places the node (never merged with a look-alike unless normal):
  // `early` as soon as its inputs exist, `late` just before the first node reading it.
  // A collective starts early and is waited for late, so communication overlaps compute.
  enum class Schedule { normal, early, late };
  Schedule schedule = Schedule::normal;
  // The kernels the devices registered (OpRegistry::add_kernel); every op has a CPU one.
  std::map<DeviceType, DeviceKernel> kernels;

  // The device's implementation, or null when the op has none there.
  const DeviceKernel* on(DeviceType type) const {
    auto it = kernels.find(type);
    return it == kernels.end() ? nullptr : &it->second;
  }
  // The kernel for `type`, or null when the op has none there.
  const KernelFn* kernel(DeviceType type) const {
    const DeviceKernel* k = on(type);
    return k && k->run ? &k->run : nullptr;
  }
};

// Every op, declared by core/ops, with the kernels each device registered for it. Built
// once, on first use: the op families declare their ops, the CPU registers its kernels,
// then each device backend compiled in registers its own (register_device_kernels).
class OpRegistry {
 public:
  static OpRegistry& global();
  void add(OpDef def);  // declares an op; throws if it was declared before
  // A device's kernel for a declared op; throws for an unknown op or a second kernel for
  // the same device.
  void add_kernel(const std::string& op, DeviceType device, DeviceKernel kernel);
  const OpDef& get(const std::string& name) const;  // throws NotImplementedError
  bool contains(const std::string& name) const { return ops_.count(name) > 0; }
  std::vector<std::string> names() const;

 private:
  OpRegistry() = default;
  std::map<std::string, OpDef> ops_;
};

// How a device backend (core/cuda, or any other compiled in) adds its kernels: called
// once from that backend's own registration file at load time. `registrar` runs on the
// global registry when it is built (at once, if it already is). Returns true, so that a
// static initializer can hold the call.
using KernelRegistrar = void (*)(OpRegistry&);
bool register_device_kernels(KernelRegistrar registrar);

}  // namespace strata
