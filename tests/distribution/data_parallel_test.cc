// Data-parallel training (distribution/): where the all-reduce nodes run in a step (their
// math is tests/core/collective_op_cases.cc), the per-sample dropout masks of a shard,
// and — under `mpirun -np 2` and `-np 4` on this machine — that N processes end with the weights one process reaches on the same global
// batches, that every process exits, that a dead or hung process stops the others with
// an error in bounded time, and that a killed job resumes bit-identically.
// The jobs are tests/distribution/mpi_job.cc, started by these tests; they skip when
// Strata was built without MPI or mpirun is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/device.h"
#include "core/ops.h"
#include "core/program.h"
#include "distribution/data_parallel.h"
#include "distribution/gradient_buckets.h"
#include "models/data_parallel_step.h"
#include "training_job.h"
#include "../io/test_util.h"

using namespace strata;

namespace data_parallel_test {

namespace fs = std::filesystem;

namespace {

// The buckets start as soon as the backward pass has produced their gradients and are
// waited for only by the first update that reads them: communication overlaps compute.
TEST(CollectiveOps, BucketsStartEarlyAndAreWaitedForLate) {
  set_random_seed(1);
  Model model = Sequential({layers::Input({8}), layers::Dense(16, {.activation = "relu"}),
                            layers::Dense(16, {.activation = "relu"}), layers::Dense(4)});
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 8}, DType::float32}, "x");
  Output loss = ops::reduce_sum(model.model().call(g, {x})[0]);
  std::vector<Variable> vars;
  std::vector<Output> var_nodes;
  for (const auto& layer : model.layers()) {
    for (const auto& v : layer.trainable_weights()) {
      vars.push_back(v);
      var_nodes.push_back(g.variable(v));
    }
  }
  std::vector<Output> grads = gradients(loss, var_nodes);
  // Tiny buckets: one per gradient.
  ASSERT_EQ(distribution::count_buckets(grads, 4), grads.size());
  std::vector<Output> reduced = distribution::all_reduce_gradients(x, grads, 4);
  std::vector<Output> updates;
  for (std::size_t i = 0; i < vars.size(); ++i) updates.push_back(ops::assign_add(g.variable(vars[i]), reduced[i]));
  Program p(g, {x}, {}, updates);
  const auto order = p.execution_order();
  auto position = [&](int node) { return std::find(order.begin(), order.end(), node) - order.begin(); };
  for (std::size_t i = 0; i < grads.size(); ++i) {
    const int wait = reduced[i].node;
    const int start = g.node(wait).inputs[0].node;
    // The start runs right after its gradient; the wait right before the update reading it.
    EXPECT_EQ(position(start), position(grads[i].node) + 1) << "bucket of gradient " << i;
    EXPECT_EQ(position(wait) + 1, position(updates[i].node)) << "bucket of gradient " << i;
  }
  // The first bucket (the last layer's bias) starts before the backward pass ends.
  const int first_start = g.node(reduced.back().node).inputs[0].node;
  EXPECT_LT(position(first_start), position(grads.front().node));
}

// A shard's dropout masks are the rows of the whole batch's masks, for Dropout and for
// an LSTM's input and recurrent dropout (checked through the models' outputs).
TEST(DataParallelShard, DropoutMasksAreTheGlobalBatchRows) {
  for (const std::string kind : {"mlp", "lstm"}) {
    Model model = distributed_test::build_model(kind);
    Graph g;
    Shape in = model.inputs()[0].spec().shape;
    Output x = g.placeholder({in, DType::float32}, "x");
    Output y = model.model().call(g, {x})[0];
    Program p(g, {x}, {y});
    auto [data, labels] = distributed_test::make_data(kind, 10);
    Tensor whole = p.run({data}, {.training = true, .step = 3})[0];
    Tensor part = p.run({data.slice_rows(4, 7)}, {.training = true, .step = 3, .sample_offset = 4, .global_batch = 10})[0];
    for (std::int64_t r = 0; r < 3; ++r) {
      for (std::int64_t k = 0; k < part.shape()[1]; ++k) {
        // Equal up to the rounding of a product over another batch size; a mask that
        // differed would zero units or scale them by 1/(1 - rate).
        EXPECT_NEAR(part.item(r * part.shape()[1] + k), whole.item((r + 4) * whole.shape()[1] + k), 1e-5)
            << kind << " row " << r << " unit " << k;
      }
    }
  }
}

// Without mpirun a DataParallel is one process: fit runs exactly as without it.
TEST(DataParallelLocal, OneProcessTrainsAsWithoutDistribution) {
  auto [x, y] = distributed_test::make_data("mlp", 100);
  Model plain = distributed_test::build_model("mlp");
  plain.fit(x, y, {.batch_size = 20, .epochs = 1, .verbose = 0});
  distribution::set_distribution(distribution::DataParallel());
  EXPECT_EQ(distribution::num_processes(), 1);
  EXPECT_TRUE(distribution::is_chief());
  Model data_parallel = distributed_test::build_model("mlp");
  data_parallel.fit(x, y, {.batch_size = 20, .epochs = 1, .verbose = 0});
  distribution::set_distribution(std::nullopt);
  auto a = plain.get_weights(), b = data_parallel.get_weights();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(std::memcmp(a[i].raw_data(), b[i].raw_data(), a[i].nbytes()), 0) << "weight " << i;
  }
}

// Layers whose state Keras shares between replicas and Strata's processes would not: refused
// for several processes, naming the layer, wherever it is nested; fine for one.
TEST(DataParallelLocal, LayersWithStateKerasSharesBetweenReplicasAreRefused) {
  auto x = Input({4, 3}, {.batch_size = 2});
  Model encoder(x, layers::Bidirectional(layers::LSTM(2, {.return_sequences = true, .stateful = true}))(x),
                {.name = "encoder"});
  auto outer_in = Input({4, 3}, {.batch_size = 2});
  Model outer(outer_in, layers::Dense(2)(layers::Flatten()(encoder(outer_in))));
  EXPECT_THROW_WITH(refuse_layers_without_data_parallelism(outer.impl(), 2), NotImplementedError, "LSTM",
                    "stateful=True", "DataParallel of 2 processes");
  auto b = Input({3});
  Model synchronized(b, layers::BatchNormalization({.synchronized = true, .name = "bn"})(b));
  EXPECT_THROW_WITH(refuse_layers_without_data_parallelism(synchronized.impl(), 4), NotImplementedError,
                    "BatchNormalization 'bn'", "synchronized=True", "DataParallel of 4 processes");
  Model plain(b, layers::BatchNormalization()(b));
  EXPECT_NO_THROW(refuse_layers_without_data_parallelism(plain.impl(), 2));
  // keras.ops.moments(synchronized=True), saved by Keras 3.15.1 as an operation node.
  Model moments = models::load_model(std::string(STRATA_TEST_DATA) + "/keras_ops/misc/moments_synchronized_variance.keras");
  EXPECT_THROW_WITH(refuse_layers_without_data_parallelism(moments.impl(), 2), NotImplementedError, "Moments",
                    "synchronized=True", "DataParallel of 2 processes");
}

TEST(DataParallelLocal, BadOptionsAreRefused) {
  EXPECT_THROW(distribution::DataParallel({.bucket_bytes = 0}), ValueError);
  EXPECT_THROW(distribution::DataParallel({.timeout = std::chrono::milliseconds(0)}), ValueError);
}

// ------------------------------------------------------------------ jobs under mpirun

constexpr int kTimedOut = 124;  // GNU timeout's status when the limit stopped the job

struct JobResult {
  int exit_code = -1;
  double seconds = 0;
  std::string output;
};

fs::path scratch_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("strata_distribution_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool can_run_jobs(std::string* why) {
  if (!distribution::built_with_mpi()) {
    *why = "Strata was built without MPI (Debian: libopenmpi-dev, openmpi-bin)";
    return false;
  }
  if (!fs::exists(STRATA_MPIEXEC)) {
    *why = std::string("mpirun not found at ") + STRATA_MPIEXEC;
    return false;
  }
  return true;
}

// Runs mpi_job under mpirun with `processes` processes (loopback, oversubscribed), with
// a hard limit so that a hang fails the test instead of stalling the suite.
JobResult run_job(int processes, const std::string& args, const fs::path& dir, int limit_seconds = 180) {
  const fs::path log = dir / "job.log";
  std::ostringstream cmd;
  // A clean environment: this process may itself be an MPI singleton (a DataParallel
  // test ran before), whose variables would make mpirun think it runs inside a job.
  // The sanitizer runs' settings (scripts/sanitizer_build.sh) pass through. Shared memory
  // copies through the kernel (CMA) need ptrace rights a container may not grant: off.
  // STRATA_DEFAULT_DEVICE passes too: the suite's "cpu" keeps the jobs on the CPU, as the
  // reference they are compared with (SameAnswerOnGpus clears it in its jobs); and so do
  // the GPUs this process sees (CUDA_VISIBLE_DEVICES, only when set: empty hides them all),
  // where its libraries are (LD_LIBRARY_PATH: a wheel's NCCL or cuDNN) and where a
  // relocated Open MPI and PMIx are (scripts/gpu_check.sh sets those, only when set), and
  // the agent mpirun is told it has for remote nodes (a machine without ssh or rsh, where
  // scripts/gpu_run_packed.sh names one that exists; only when set).
  cmd << "env -i PATH=\"$PATH\" HOME=\"$HOME\" TMPDIR=\"${TMPDIR:-/tmp}\" OMPI_ALLOW_RUN_AS_ROOT=1 "
         "STRATA_DEFAULT_DEVICE=\"$STRATA_DEFAULT_DEVICE\" LD_LIBRARY_PATH=\"$LD_LIBRARY_PATH\" "
         "${CUDA_VISIBLE_DEVICES+CUDA_VISIBLE_DEVICES=\"$CUDA_VISIBLE_DEVICES\"} "
         "${OPAL_PREFIX+OPAL_PREFIX=\"$OPAL_PREFIX\"} ${PMIX_PREFIX+PMIX_PREFIX=\"$PMIX_PREFIX\"} "
         "${PMIX_MCA_mca_base_component_path+PMIX_MCA_mca_base_component_path=\"$PMIX_MCA_mca_base_component_path\"} "
         "${OMPI_MCA_plm_rsh_agent+OMPI_MCA_plm_rsh_agent=\"$OMPI_MCA_plm_rsh_agent\"} "
         "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none ASAN_OPTIONS=\"$ASAN_OPTIONS\" LSAN_OPTIONS=\"$LSAN_OPTIONS\" "
         "UBSAN_OPTIONS=\"$UBSAN_OPTIONS\" TSAN_OPTIONS=\"$TSAN_OPTIONS\" timeout --kill-after=10 "
      << limit_seconds << " " << STRATA_MPIEXEC << " -np " << processes
      << " --oversubscribe --bind-to none " << STRATA_MPI_JOB << " " << args << " > " << log << " 2>&1";
  const auto begin = std::chrono::steady_clock::now();
  const int status = std::system(cmd.str().c_str());
  JobResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log);
  r.output.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

double number_after(const std::string& text, const std::string& label) {
  const auto at = text.find(label);
  if (at == std::string::npos) return std::nan("");
  return std::stod(text.substr(at + label.size()));
}

// max |a - b| / max |b| over every weight tensor.
double relative_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double diff = 0, scale = 0;
    for (std::int64_t j = 0; j < b[i].size(); ++j) {
      diff = std::max(diff, static_cast<double>(std::fabs(a[i].item(j) - b[i].item(j))));
      scale = std::max(scale, static_cast<double>(std::fabs(b[i].item(j))));
    }
    worst = std::max(worst, diff / std::max(scale, 1e-12));
  }
  return worst;
}

// Trains `kind` on `samples` samples under mpirun with `processes` processes, and in
// this process alone, and compares weights, loss history, evaluation and predictions.
// Returns what the job printed. `extra` adds mpi_job flags.
std::string expect_same_answer(const std::string& kind, int processes, std::int64_t samples,
                               const std::string& data = "arrays", const std::string& extra = "",
                               double tolerance = 1e-5) {
  const fs::path dir = scratch_dir(kind + std::to_string(processes));
  const JobResult job = run_job(processes, "--model=" + kind + " --samples=" + std::to_string(samples) + " --data=" +
                                               data + " --out=" + (dir / "w.weights.h5").string() + " " + extra, dir);
  EXPECT_EQ(job.exit_code, 0) << job.output;
  if (job.exit_code != 0) return job.output;
  EXPECT_NE(job.output.find("processes " + std::to_string(processes) + " agree"), std::string::npos) << job.output;

  auto [x, y] = distributed_test::make_data(kind, samples);
  Model reference = distributed_test::build_model(kind);
  History h = distributed_test::train(reference, x, y, data, distributed_test::kEpochs);
  const std::int64_t batches = (samples + distributed_test::kBatchSize - 1) / distributed_test::kBatchSize;
  EXPECT_EQ(reference.optimizer().iterations(), distributed_test::kEpochs * batches);
  Model trained = distributed_test::build_model(kind);
  trained.load_weights((dir / "w.weights.h5").string());
  const double diff = relative_difference(trained.get_weights(), reference.get_weights());
  EXPECT_LT(diff, tolerance) << kind << " on " << processes << " processes";
  char measured[32];
  std::snprintf(measured, sizeof measured, "%.3g", diff);
  ::testing::Test::RecordProperty("max_relative_weight_difference", measured);
  std::cout << kind << " on " << processes << " processes: weights within " << measured << " (relative) of one process\n";

  // Global logs: the loss of the last epoch, and evaluate / predict over every process.
  std::istringstream lines(job.output);
  std::string line;
  std::vector<double> losses;
  while (std::getline(lines, line)) {
    if (line.rfind("history loss ", 0) == 0) {
      std::istringstream values(line.substr(13));
      for (double v; values >> v;) losses.push_back(v);
    }
  }
  EXPECT_EQ(losses.size(), h.history["loss"].size()) << job.output;
  for (std::size_t e = 0; e < std::min(losses.size(), h.history["loss"].size()); ++e) {
    EXPECT_NEAR(losses[e], h.history["loss"][e], tolerance * std::fabs(losses[e]));
  }
  auto scores = reference.evaluate(x, y, {.batch_size = distributed_test::kBatchSize, .verbose = 0});
  EXPECT_NEAR(number_after(job.output, "evaluate loss "), scores["loss"], std::max(1e-4, tolerance) * scores["loss"]);
  // Weights equal within 1e-5 give the same predicted classes; within 1e-4 (GPUs) a sample
  // on the edge may flip.
  EXPECT_NEAR(number_after(job.output, "evaluate accuracy "), scores["accuracy"],
              tolerance > 1e-5 ? 1.5 / static_cast<double>(samples) : 1e-6);
  EXPECT_EQ(number_after(job.output, "predict rows "), static_cast<double>(samples));
  const auto [sum, magnitude] =
      distributed_test::prediction_checksum(reference.predict(x, {.batch_size = 64, .verbose = 0}));
  EXPECT_NEAR(number_after(job.output, "checksum "), sum, tolerance * magnitude);
  fs::remove_all(dir);
  return job.output;
}

class SameAnswer : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

// N processes sharing every global batch of 50 end, after 20 steps with dropout and
// shuffling, with one process's weights, loss history, evaluation and predictions.
TEST_P(SameAnswer, AsOneProcessOnTheSameGlobalBatches) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  const auto& [kind, processes] = GetParam();
  expect_same_answer(kind, processes, 500);
}

// Only process 0 prints the progress and runs the callbacks that write files, and fit
// starts every process from process 0's weights (the others start from other values).
TEST(DataParallelChief, OnlyProcessZeroPrintsAndWritesAndItsWeightsAreEveryonesStart) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  const fs::path logs = scratch_dir("chief_logs");
  const std::string output =
      expect_same_answer("mlp", 2, 500, "arrays", "--perturb_others --verbose=2 --logs=" + logs.string());
  std::size_t epoch_lines = 0;
  for (auto at = output.find("Epoch 1/"); at != std::string::npos; at = output.find("Epoch 1/", at + 1)) ++epoch_lines;
  EXPECT_EQ(epoch_lines, 1u) << output;
  EXPECT_TRUE(fs::exists(logs / "rank0.csv"));
  EXPECT_TRUE(fs::exists(logs / "rank0.weights.h5"));
  EXPECT_FALSE(fs::exists(logs / "rank1.csv"));
  EXPECT_FALSE(fs::exists(logs / "rank1.weights.h5"));
  fs::remove_all(logs);
}

// A shuffled Dataset's batches are shared out the same way.
TEST(SameAnswerDataset, OnAShuffledDataset) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  expect_same_answer("lstm", 2, 500, "dataset");
}

// 502 samples: each epoch's last global batch has 2 samples, so two of four processes
// get none in that step (they add zeros to the sums) and the answer is still the same.
TEST(SameAnswerUneven, WhenSomeProcessesGetNoSamples) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  expect_same_answer("mlp", 4, 502);
}

// A custom train step (Keras's "Customizing what happens in fit()") trains data-parallel
// as compile's: its gradients summed by step.apply, its metrics over the global batch, on
// a shuffled Dataset too and when some processes get no samples.
TEST(SameAnswerCustomStep, OnAShuffledDataset) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  expect_same_answer("custom", 2, 500, "dataset");
}

TEST(SameAnswerCustomStep, WhenSomeProcessesGetNoSamples) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  expect_same_answer("custom", 4, 502);
}

INSTANTIATE_TEST_SUITE_P(Models, SameAnswer,
                         ::testing::Combine(::testing::Values("mlp", "custom", "lstm", "cnn"), ::testing::Values(2, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_np" + std::to_string(std::get<1>(info.param));
                         });

// On GPUs: each process trains on its share of the machine's GPUs (spread_over_gpus), its
// gradients summed through NCCL when every process has a GPU of its own, else through host
// memory over MPI (here: one GPU, two processes); either way the weights are one CPU
// process's within the GPU's float32 tolerance. Needs MPI and a GPU; skips otherwise.
TEST(SameAnswerOnGpus, AsOneProcessOnTheCpu) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine: the GPU all-reduce is compiled, not run";
  std::int64_t gpus = 0;
  for (const Device& d : available_devices()) gpus += d.type == DeviceType::cuda ? 1 : 0;
  for (const char* kind : {"mlp", "cnn"}) {
    if (std::string(kind) == "cnn" && !built_with_cudnn()) {
      std::cout << "cnn on GPUs: not run, Strata was built without cuDNN (the convolutions' CUDA kernels)\n";
      continue;
    }
    const std::string output = expect_same_answer(kind, 2, 500, "arrays", "--gpus", 1e-4);
    if (gpus >= 2 && distribution::built_with_nccl()) {
      EXPECT_NE(output.find("gradients on GPUs over NCCL"), std::string::npos) << output;
    } else {
      EXPECT_NE(output.find("gradients on GPUs are summed through host memory over MPI"), std::string::npos) << output;
    }
  }
}

// Runs a 2-process job that one process sabotages and expects the job to end with an
// error well before the test's own limit would stop it; returns what it printed.
std::string expect_job_stops(const std::string& name, const std::string& args) {
  const fs::path dir = scratch_dir(name);
  const JobResult job = run_job(2, args + " --epochs=50", dir, 120);
  EXPECT_NE(job.exit_code, 0) << job.output;
  EXPECT_NE(job.exit_code, kTimedOut) << "the job hung until the test's limit stopped it:\n" << job.output;
  EXPECT_LT(job.seconds, 60) << job.output;
  fs::remove_all(dir);
  return job.output;
}

// compile refuses, on every process, a model with a synchronized BatchNormalization.
TEST(EveryProcessExits, WhenTheModelHasASynchronizedBatchNormalization) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  const std::string output = expect_job_stops("synchronized", "--model=synchronized_bn");
  EXPECT_NE(output.find("synchronized=True"), std::string::npos) << output;
  EXPECT_NE(output.find("DataParallel of 2 processes"), std::string::npos) << output;
}

// A process killed mid-epoch: the others do not wait for it; the job ends with an error.
TEST(EveryProcessExits, WhenOneIsKilledMidEpoch) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  const std::string output = expect_job_stops("killed", "--kill_rank=1 --kill_step=5 --timeout_ms=5000");
  EXPECT_NE(output.find("kills itself before step 5"), std::string::npos) << output;
}

// A process that stops responding: within the timeout the others stop with a message
// naming what did not complete, and end the job.
TEST(EveryProcessExits, WhenOneHangsTheOthersStopAfterTheTimeout) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  const std::string output = expect_job_stops("hung", "--hang_rank=1 --hang_step=5 --timeout_ms=3000");
  EXPECT_NE(output.find("did not complete within 3"), std::string::npos) << output;
}

// Processes that built different models (here one an MLP, one an LSTM) stop with an error
// naming what differs, before any variable is broadcast, rather than pair one process's
// weights with another's.
TEST(EveryProcessExits, WhenTheProcessesHoldDifferentVariables) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  const std::string output = expect_job_stops("odd", "--model=mlp --odd_rank=1 --odd_model=lstm");
  EXPECT_NE(output.find("every process must build the same model and steps"), std::string::npos) << output;
}

// A job killed mid-epoch and restarted with the same number of processes resumes from
// BackupAndRestore's backup and ends bit-identical to a job never interrupted: compile's
// step on arrays, and a custom train step on a shuffled Dataset.
void expect_resumes_bit_identically(const std::string& job_flags, const std::string& kind) {
  const fs::path dir = scratch_dir("resume");
  const std::string backup = "--backup=" + (dir / "backup").string() + " --save_freq=3";
  const JobResult killed = run_job(2, job_flags + " --kill_rank=1 --kill_step=13 " + backup, dir, 120);
  ASSERT_NE(killed.exit_code, 0) << killed.output;
  ASSERT_TRUE(fs::exists(dir / "backup" / "training_state.strata")) << killed.output;
  const JobResult resumed = run_job(2, job_flags + " --out=" + (dir / "resumed.weights.h5").string() + " " + backup, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  const JobResult whole = run_job(2, job_flags + " --out=" + (dir / "whole.weights.h5").string(), dir);
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  Model a = distributed_test::build_model(kind), b = distributed_test::build_model(kind);
  a.load_weights((dir / "resumed.weights.h5").string());
  b.load_weights((dir / "whole.weights.h5").string());
  auto wa = a.get_weights(), wb = b.get_weights();
  ASSERT_EQ(wa.size(), wb.size());
  for (std::size_t i = 0; i < wa.size(); ++i) {
    EXPECT_EQ(std::memcmp(wa[i].raw_data(), wb[i].raw_data(), wa[i].nbytes()), 0) << "weight " << i;
  }
  fs::remove_all(dir);
}

TEST(DataParallelResume, KilledJobResumesBitIdentically) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  expect_resumes_bit_identically("--model=lstm", "lstm");
}

TEST(DataParallelResume, ACustomStepOnADatasetResumesBitIdentically) {
  std::string why;
  if (!can_run_jobs(&why)) GTEST_SKIP() << why;
  expect_resumes_bit_identically("--model=custom --data=dataset", "custom");
}

}  // namespace

}  // namespace data_parallel_test
