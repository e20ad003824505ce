// strata_bench_distributed: data-parallel training measured under mpirun (issue #16).
// Run it through bench/distributed.sh, which starts it with 1 and 2 processes in one go:
//
//   mpirun -np N build/bench/strata_bench_distributed [--workloads=mlp,lstm,cnn] [--steps=30]
//
// Prints, from process 0:
//  - all-reduce bandwidth: the time of one in-place float sum over every process, by
//    message size, as algorithm bandwidth (bytes / time) and bus bandwidth (NCCL's
//    convention: algbw * 2 (N - 1) / N, what each link carries in a ring);
//  - per bench workload (bench/workload.h, the same global batch at every N): the train
//    step's time and its parts: communication in flight, the part that blocked the step
//    (exposed), the part hidden behind the backward pass (overlap), and compute (step
//    minus exposed).
// Lines start with "allreduce" or "step" and hold key=value pairs, for the script.
#include <strata/strata.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/strata_models.h"
#include "bench/workload.h"
#include "core/cpu/parallel.h"
#include "tools/cli/flags.h"

using namespace strata;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point begin) { return std::chrono::duration<double>(Clock::now() - begin).count(); }

void measure_all_reduce(distribution::Communicator& comm) {
  const int n = comm.size();
  for (std::int64_t bytes = 4 << 10; bytes <= (64 << 20); bytes *= 4) {
    std::vector<float> buffer(static_cast<std::size_t>(bytes / 4), 1.f);
    const int reps = bytes <= (1 << 20) ? 50 : 10;
    std::vector<double> times;
    for (int r = 0; r <= reps; ++r) {
      comm.barrier();
      const auto begin = Clock::now();
      comm.start_all_reduce(buffer.data(), static_cast<std::int64_t>(buffer.size()));
      comm.wait_all_reduce(buffer.data());
      if (r > 0) times.push_back(seconds_since(begin));  // the first warms the connections
    }
    // The slowest process's time is the collective's: take each process's median, then the max.
    double median = bench::median(times);
    comm.all_reduce_sum(&median, 1);  // for the mean over processes
    median /= n;
    const double algbw = static_cast<double>(bytes) / median / 1e9;
    if (comm.rank() == 0) {
      std::printf("allreduce processes=%d bytes=%lld time_us=%.1f algbw_GBps=%.3f busbw_GBps=%.3f\n", n,
                  static_cast<long long>(bytes), median * 1e6, algbw, n > 1 ? algbw * 2.0 * (n - 1) / n : 0.0);
    }
  }
}

void measure_steps(const std::string& name, int steps, distribution::Communicator& comm) {
  bench::Workload w = bench::make_workload(name, 2, false);
  const std::int64_t samples = w.batch_size * (steps + 3);
  w.samples = samples;
  bench::Data data = bench::make_data(w, 1);
  std::vector<std::int64_t> x_dims{samples};
  x_dims.insert(x_dims.end(), w.sample_shape.begin(), w.sample_shape.end());
  Tensor x{Shape(x_dims)}, y{Shape{samples}, DType::int64};
  std::memcpy(x.raw_data(), data.x.data(), x.nbytes());
  std::memcpy(y.raw_data(), data.labels.data(), y.nbytes());

  set_random_seed(1);
  Model model = bench::build_strata_model(w);
  model.compile({.optimizer = optimizers::Adam({.learning_rate = w.learning_rate}),
                 .loss = losses::SparseCategoricalCrossentropy({.from_logits = true})});
  std::int64_t parameters = 0;
  for (const auto& v : model.trainable_weights()) parameters += v.value().size();
  // Three warm-up steps, then the timed ones (fit shares each global batch out).
  model.fit(x.slice_rows(0, 3 * w.batch_size), y.slice_rows(0, 3 * w.batch_size),
            {.batch_size = w.batch_size, .epochs = 1, .verbose = 0, .shuffle = false});
  comm.barrier();
  comm.reset_gradient_traffic();
  const auto begin = Clock::now();
  model.fit(x.slice_rows(3 * w.batch_size, samples), y.slice_rows(3 * w.batch_size, samples),
            {.batch_size = w.batch_size, .epochs = 1, .verbose = 0, .shuffle = false});
  double values[3] = {seconds_since(begin) / steps, comm.gradient_traffic().in_flight_seconds / steps,
                      comm.gradient_traffic().blocked_seconds / steps};
  const auto traffic = comm.gradient_traffic();
  comm.all_reduce_sum(values, 3);  // means over processes
  for (double& v : values) v /= comm.size();
  const auto [step, in_flight, exposed] = values;
  if (comm.rank() == 0) {
    std::printf(
        "step workload=%s processes=%d global_batch=%lld parameters=%lld buckets_per_step=%.0f step_ms=%.3f "
        "compute_ms=%.3f comm_in_flight_ms=%.3f comm_exposed_ms=%.3f overlap_pct=%.1f\n",
        name.c_str(), comm.size(), static_cast<long long>(w.batch_size), static_cast<long long>(parameters),
        static_cast<double>(traffic.reductions) / steps, step * 1e3, (step - exposed) * 1e3, in_flight * 1e3,
        exposed * 1e3, in_flight > 0 ? 100.0 * (in_flight - exposed) / in_flight : 0.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string workloads = "mlp,lstm,cnn";
  int steps = 30;
  bool all_reduce = true;
  cli::Flags flags("Data-parallel training measured under mpirun (bench/distributed.sh runs it).");
  flags.add("workloads", &workloads, "bench workloads to time (bench/workload.h)")
      .add("steps", &steps, "timed train steps per workload")
      .add("allreduce", &all_reduce, "measure the all-reduce's bandwidth first");
  try {
    if (!flags.parse(argc, argv)) return 0;
    distribution::DataParallel strategy;
    distribution::set_distribution(strategy);
    distribution::Communicator& comm = strategy.communicator();
    if (comm.rank() == 0) {
      std::printf("# %s; %d worker thread(s) per process\n", comm.describe().c_str(), cpu::num_threads());
    }
    if (all_reduce) measure_all_reduce(comm);
    for (const auto& name : bench::split_list(workloads)) measure_steps(name, steps, comm);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata_bench_distributed: %s\n", e.what());
    return 1;
  }
}
