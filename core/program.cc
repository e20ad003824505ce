#include "core/program.h"

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <tuple>

#include "core/execution_state.h"
#include "core/op_registry.h"

namespace strata {

namespace {

// Key that identifies a node's computation for common-subexpression elimination.
using CseKey = std::tuple<std::string, std::vector<std::pair<int, int>>, Attrs>;

}  // namespace

Program::Program(Graph& graph, std::vector<Output> feeds, std::vector<Output> fetches, std::vector<Output> targets,
                 const Device& device)
    : graph_(graph), device_(device), feeds_(std::move(feeds)) {
  const int n = graph.num_nodes();
  for (const auto& f : feeds_) {
    if (f.graph != &graph || graph.node(f.node).op != "placeholder") {
      throw ValueError("Program: every feed must be a placeholder of this graph");
    }
  }

  // 1. CSE: map every node to the first node computing the same thing.
  std::vector<int> canon(static_cast<std::size_t>(n));
  std::map<CseKey, int> seen;
  for (int id = 0; id < n; ++id) {
    const Node& node = graph.node(id);
    canon[id] = id;
    if (node.def->stateful || node.def->random || node.def->fed || node.def->schedule != OpDef::Schedule::normal) {
      continue;
    }
    std::vector<std::pair<int, int>> ins;
    for (const auto& in : node.inputs) ins.emplace_back(canon[in.node], in.index);
    auto [it, inserted] = seen.emplace(CseKey{node.op, std::move(ins), node.attrs}, id);
    if (!inserted) canon[id] = it->second;
  }

  // 2. Prune: walk back from fetches and targets through canonical inputs.
  std::vector<char> needed(static_cast<std::size_t>(n), 0);
  std::vector<int> stack;
  auto want = [&](const Output& o, const char* what) {
    if (!o.valid() || o.graph != &graph) throw ValueError(std::string("Program: invalid ") + what);
    stack.push_back(canon[o.node]);
  };
  for (const auto& f : fetches) {
    want(f, "fetch");
    const Node& node = graph.node(f.node);
    if (f.index < 0 || f.index >= static_cast<int>(node.outputs.size())) {
      throw ValueError("Program: cannot fetch '" + node.name + "' (" + node.op + "): it has no output " +
                       std::to_string(f.index) +
                       (node.def->stateful ? "; pass a variable update as a target" : ""));
    }
  }
  for (const auto& t : targets) want(t, "target");
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (needed[id]) continue;
    needed[id] = 1;
    for (const auto& in : graph.node(id).inputs) stack.push_back(canon[in.node]);
    if (graph.node(id).run_if.valid()) stack.push_back(canon[graph.node(id).run_if.node]);
  }
  for (int id = 0; id < n; ++id) {
    const Node& node = graph.node(id);
    if (!needed[id] || node.op != "placeholder") continue;
    bool fed = std::any_of(feeds_.begin(), feeds_.end(), [&](const Output& f) { return f.node == id; });
    if (!fed) throw ValueError("Program: input '" + node.name + "' is needed by the fetches but is not fed");
  }

  // Stateful nodes run after every other node of the step, so nothing in the step may
  // read what they output.
  for (int id = 0; id < n; ++id) {
    if (!needed[id]) continue;
    std::vector<Output> reads = graph.node(id).inputs;
    if (graph.node(id).run_if.valid()) reads.push_back(graph.node(id).run_if);
    for (const auto& in : reads) {
      const Node& producer = graph.node(canon[in.node]);
      if (producer.def->stateful) {
        throw ValueError("Program: node '" + graph.node(id).name + "' reads the output of stateful node '" +
                         producer.name + "', which runs after every read of the step");
      }
    }
  }

  // 3. Order: node ids are topological; stateful updates go after every reader.
  std::vector<int> order;
  for (int id = 0; id < n; ++id) {
    if (needed[id] && !graph.node(id).def->stateful) order.push_back(id);
  }
  for (int id = 0; id < n; ++id) {
    if (needed[id] && graph.node(id).def->stateful) order.push_back(id);
  }
  order = schedule_collectives(graph, order, canon);

  value_offset_.resize(static_cast<std::size_t>(n) + 1);
  for (int id = 0; id < n; ++id) {
    value_offset_[id + 1] = value_offset_[id] + static_cast<int>(graph.node(id).outputs.size());
  }
  values_.resize(static_cast<std::size_t>(value_offset_[n]));
  for (const auto& f : fetches) fetch_values_.push_back(value_id(canon[f.node], f.index));
  for (std::size_t i = 0; i < feeds_.size(); ++i) values_[value_id(feeds_[i].node, 0)].feed = static_cast<int>(i);

  plan(order, canon);
  place_steps();
  graph.finalize();
}

Program::~Program() = default;

// Moves each `early` node to just after the last of its inputs and each `late` node to
// just before the first node reading it (or to the end of the non-stateful nodes when
// only a fetch reads it); every other node keeps its place. Inputs still come first:
// an early node's inputs precede it by construction, and a late node is placed only
// when a reader needs it, after everything that reader's inputs need.
std::vector<int> Program::schedule_collectives(const Graph& graph, const std::vector<int>& order,
                                               const std::vector<int>& canon) {
  using Schedule = OpDef::Schedule;
  auto schedule_of = [&](int id) { return graph.node(id).def->schedule; };
  if (std::none_of(order.begin(), order.end(), [&](int id) { return schedule_of(id) != Schedule::normal; })) {
    return order;
  }
  std::vector<char> placed(static_cast<std::size_t>(graph.num_nodes()), 0);
  std::vector<int> early, late, out;
  for (int id : order) {
    if (schedule_of(id) == Schedule::early) early.push_back(id);
    if (schedule_of(id) == Schedule::late) late.push_back(id);
  }
  auto inputs_placed = [&](int id) {
    return std::all_of(graph.node(id).inputs.begin(), graph.node(id).inputs.end(),
                       [&](const Output& in) { return placed[canon[in.node]] != 0; });
  };
  auto place = [&](int id) {
    out.push_back(id);
    placed[id] = 1;
  };
  std::function<void(int)> place_late = [&](int id) {
    if (placed[id]) return;
    for (const auto& in : graph.node(id).inputs) {
      const int producer = canon[in.node];
      if (!placed[producer] && schedule_of(producer) == Schedule::late) place_late(producer);
    }
    place(id);
  };
  auto place_ready_early = [&] {
    for (int id : early) {
      if (!placed[id] && inputs_placed(id)) place(id);
    }
  };
  place_ready_early();  // those reading only fed values
  bool stateful_reached = false;
  for (int id : order) {
    if (schedule_of(id) != Schedule::normal) continue;
    if (graph.node(id).def->stateful && !stateful_reached) {
      stateful_reached = true;
      for (int w : late) {
        bool fetched_only = true;  // read by no node of the order: place before the updates
        for (int r : order) {
          for (const auto& in : graph.node(r).inputs) fetched_only = fetched_only && canon[in.node] != w;
        }
        if (fetched_only) place_late(w);
      }
    }
    for (const auto& in : graph.node(id).inputs) {
      const int producer = canon[in.node];
      if (!placed[producer] && schedule_of(producer) == Schedule::late) place_late(producer);
    }
    place(id);
    place_ready_early();
  }
  for (int w : late) place_late(w);
  return out;
}

int Program::value_id(int node, int index) const { return value_offset_[node] + index; }

int Program::num_invariant_steps() const {
  return static_cast<int>(std::count_if(steps_.begin(), steps_.end(), [](const Step& s) { return s.invariant; }));
}

void Program::plan(const std::vector<int>& order, const std::vector<int>& canon) {
  // 4. Liveness: the last step reading each value; fetched values live to the end.
  const int end = static_cast<int>(order.size());
  std::vector<int> last_use(values_.size(), -1);
  for (int pos = 0; pos < end; ++pos) {
    const Node& node = graph_.node(order[pos]);
    for (const auto& in : node.inputs) last_use[value_id(canon[in.node], in.index)] = pos;
    if (node.run_if.valid()) last_use[value_id(canon[node.run_if.node], node.run_if.index)] = pos;
  }
  for (int v : fetch_values_) last_use[v] = end;

  // 5. Invariant values: variables, and what steps compute from them and constants alone
  // (no feed, nothing random, stateful or reading the run's mode). Only where no step
  // writes a variable: a train step's reads would see its own last updates.
  for (int pos = 0; pos < end; ++pos) writes_variables_ = writes_variables_ || graph_.node(order[pos]).def->stateful;
  std::vector<char> invariant(values_.size(), 0);
  std::vector<char> source_seen(values_.size(), 0);

  std::vector<int> free_buffers;
  for (int pos = 0; pos < end; ++pos) {
    const Node& node = graph_.node(order[pos]);
    Step step;
    step.node = node.id;
    for (const auto& in : node.inputs) step.inputs.push_back(value_id(canon[in.node], in.index));
    if (node.run_if.valid()) step.run_if = value_id(canon[node.run_if.node], node.run_if.index);
    const OpDef& def = *node.def;
    step.invariant = !writes_variables_ && !def.fed && !def.random && !def.stateful && !def.reads_mode &&
                     def.schedule == OpDef::Schedule::normal &&
                     std::all_of(step.inputs.begin(), step.inputs.end(), [&](int v) { return invariant[v] != 0; });
    if (step.invariant) {
      for (int v : step.inputs) {
        if (values_[v].variable >= 0 && !source_seen[v]) {
          source_seen[v] = 1;
          invariant_sources_.push_back(v);
        }
      }
    }
    for (int o = 0; o < static_cast<int>(node.outputs.size()); ++o) {
      int v = value_id(node.id, o);
      step.outputs.push_back(v);
      step.outputs_read.push_back(last_use[v] > pos ? 1 : 0);
      if (node.def->fed) {
        if (values_[v].feed < 0) {
          values_[v].variable = node.id;
          invariant[v] = 1;
        }
        continue;
      }
      if (step.invariant) {  // a buffer of its own, never reused: skipped runs still read it
        invariant[v] = 1;
        values_[v].buffer = num_buffers_++;
        continue;
      }
      if (free_buffers.empty()) {
        values_[v].buffer = num_buffers_++;
      } else {
        values_[v].buffer = free_buffers.back();
        free_buffers.pop_back();
      }
    }
    // Release buffers whose last reader is this step, and outputs nobody reads.
    std::vector<int> release = step.inputs;
    release.insert(release.end(), step.outputs.begin(), step.outputs.end());
    if (step.run_if >= 0) release.push_back(step.run_if);
    std::sort(release.begin(), release.end());
    release.erase(std::unique(release.begin(), release.end()), release.end());
    for (int v : release) {
      if (values_[v].buffer >= 0 && !invariant[v] && last_use[v] <= pos) free_buffers.push_back(values_[v].buffer);
    }
    steps_.push_back(std::move(step));
  }
}

// Binds every step to its op's kernel for the Program's device. Every missing kernel is
// named in one error, with the layer that made the node (its name scope).
void Program::place_steps() {
  std::string missing;
  int count = 0;
  for (Step& step : steps_) {
    const Node& node = graph_.node(step.node);
    step.kernel = node.def->kernel(device_.type);
    if (step.kernel || node.def->fed) continue;
    if (++count <= 5) {
      const auto slash = node.name.find('/');
      missing += std::string(missing.empty() ? "" : "; ") + "op '" + node.op + "' (node '" + node.name + "'" +
                 (slash == std::string::npos ? "" : ", layer '" + node.name.substr(0, slash) + "'") + ")";
    }
  }
  if (count > 0) {
    throw NotImplementedError("cannot run on " + to_string(device_) + ": " + std::to_string(count) +
                              " node(s) have no kernel for it: " + missing + (count > 5 ? "; ..." : "") +
                              ". Compile for \"cpu\" instead (compile's device option, or STRATA_DEFAULT_DEVICE=cpu "
                              "for the whole process)");
  }
  if (device_.type != DeviceType::cpu) require_available(device_);
  pair_steps();
  for (const Value& value : values_) {
    if (value.variable >= 0 && graph_.node(value.variable).variable.defined()) variable_nodes_.push_back(value.variable);
  }
  if (log_device_placement()) {
    for (const Step& step : steps_) {
      const Node& node = graph_.node(step.node);
      if (!node.def->fed) std::cerr << node.name << " (" << node.op << "): " << to_string(device_) << "\n";
    }
  }
}

// Marks steps that may run with the next computing step as one kernel: that step is a
// node of the same op whose first input is this step's first output. Only variables and
// fed values come between them, so nothing else runs in between either way.
void Program::pair_steps() {
  for (std::size_t s = 0; s < steps_.size(); ++s) {
    const Node& node = graph_.node(steps_[s].node);
    const DeviceKernel* kernel = node.def->on(device_.type);
    if (node.def->fed || !kernel || !kernel->pair || steps_[s].outputs.empty() || steps_[s].invariant ||
        steps_[s].run_if >= 0) {
      continue;
    }
    std::size_t next = s + 1;
    while (next < steps_.size() && graph_.node(steps_[next].node).def->fed) ++next;
    if (next == steps_.size()) break;
    const Step& second = steps_[next];
    if (second.invariant || second.run_if >= 0) continue;  // a run may skip it (5. in program.h; Node::run_if)
    if (graph_.node(second.node).def != node.def || second.inputs.empty()) continue;
    if (second.inputs[0] != steps_[s].outputs[0]) continue;
    // The second step's outputs are shaped before the first step runs: they must not be
    // a buffer the first one still reads.
    bool shares_a_buffer = false;
    for (int out : second.outputs) {
      for (int in : steps_[s].inputs) {
        shares_a_buffer = shares_a_buffer || (values_[out].buffer >= 0 && values_[out].buffer == values_[in].buffer);
      }
    }
    if (shares_a_buffer) continue;
    steps_[s].pair_kernel = &kernel->pair;
    steps_[s].paired_with = static_cast<int>(next);
    s = next;  // a step is in one pair at most
  }
}

// Variables are read in place, and may have moved since the Program was compiled (another
// compile of the model places them on its own device): one on another device would be
// read wrongly, so the run is refused, naming it.
void Program::check_variables() const {
  for (int id : variable_nodes_) {
    const Variable& variable = graph_.node(id).variable;
    if (variable.value().is_on(device_)) continue;
    throw ValueError("variable '" + variable.path() + "' lives on " + to_string(variable.value().device()) +
                     " but the Program runs on " + to_string(device_) +
                     ": move it first (Variable::place_on; compiling a model places its variables)");
  }
}

void Program::check_feeds(const std::vector<Tensor>& feeds) const {
  if (feeds.size() != feeds_.size()) {
    throw ValueError("Program::run: expected " + std::to_string(feeds_.size()) + " inputs, got " +
                     std::to_string(feeds.size()));
  }
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    const Node& ph = graph_.node(feeds_[i].node);
    const TensorSpec& spec = ph.outputs[0];
    if (!feeds[i].defined()) throw ValueError("input '" + ph.name + "' was fed an undefined tensor");
    if (feeds[i].dtype() != spec.dtype) {
      throw ValueError("input '" + ph.name + "' expects dtype " + to_string(spec.dtype) + ", got " +
                       to_string(feeds[i].dtype()));
    }
    if (!feeds[i].shape().is_compatible_with(spec.shape)) {
      throw ShapeError("input '" + ph.name + "' expects shape " + spec.shape.to_string() + ", got " +
                       feeds[i].shape().to_string());
    }
  }
}

// An idle state when there is one; a new one (the only allocation) when every state is
// in use. The idle list's capacity covers every state, so giving one back never allocates.
std::unique_ptr<ExecutionState> Program::acquire_state() const {
  {
    std::lock_guard lock(pool_mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<ExecutionState> state = std::move(idle_.back());
      idle_.pop_back();
      return state;
    }
  }
  auto state = std::make_unique<ExecutionState>(*this);
  std::lock_guard lock(pool_mutex_);
  all_.push_back(state.get());
  idle_.reserve(all_.size());
  return state;
}

void Program::release_state(std::unique_ptr<ExecutionState> state) const {
  state->release_feeds();
  std::lock_guard lock(pool_mutex_);
  idle_.push_back(std::move(state));
}

std::vector<Tensor> Program::run(const std::vector<Tensor>& feeds, const RunOptions& options) const {
  std::vector<Tensor> results;
  run_into(feeds, results, options);
  return results;
}

void Program::run_into(const std::vector<Tensor>& feeds, std::vector<Tensor>& results,
                       const RunOptions& options) const {
  check_feeds(feeds);
  check_variables();
  std::unique_lock<std::mutex> writing;
  if (writes_variables_) writing = std::unique_lock(write_mutex_);
  // The state goes back to the pool however the run ends (a kernel may throw).
  struct Lease {
    const Program& program;
    std::unique_ptr<ExecutionState> state;
    ~Lease() { program.release_state(std::move(state)); }
  } lease{*this, acquire_state()};
  lease.state->run(feeds, results, options);
}

std::int64_t Program::executions(int node_id) const {
  if (node_id < 0 || node_id >= graph_.num_nodes()) {
    throw ValueError("Program::executions: no node " + std::to_string(node_id));
  }
  std::lock_guard lock(pool_mutex_);
  std::int64_t total = 0;
  for (const ExecutionState* state : all_) total += state->executions(node_id);
  return total;
}

std::vector<int> Program::execution_order() const {
  std::vector<int> order;
  for (const auto& s : steps_) order.push_back(s.node);
  return order;
}

int Program::num_paired_steps() const {
  return static_cast<int>(std::count_if(steps_.begin(), steps_.end(), [](const Step& s) { return s.pair_kernel; }));
}

int Program::num_execution_states() const {
  std::lock_guard lock(pool_mutex_);
  return static_cast<int>(all_.size());
}

}  // namespace strata
