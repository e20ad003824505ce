// strata_bench_models: real models as people load them (issue #37), Strata against ONNX
// Runtime and Keras on TensorFlow, each engine in its own process, interleaved in one
// run (bench/run models builds and runs it).
//
//   bench/run models [--models=resnet50,mobilenetv2,efficientnetb0,convnexttiny,transformer,lstm]
//                    [--reps=5] [--calls_batch1=20] [--calls_batch32=3] [--threads=2]
//                    [--engines=strata,onnxruntime,keras] [--dir=build/bench/real_models]
//                    [--python=python3] [--results_dir=bench/results]
//
// The models are files: bench/make_real_models.py writes each as a Keras 3 file (which
// Strata and Keras load) and an ONNX export of it (which ONNX Runtime loads), with a
// seeded input of batch 1 and one of batch 32; the driver runs it for the models whose
// files are missing. For each model it starts one worker per engine (the same protocol
// for all, bench/model_worker.py: Strata's is this binary with --worker), has each load
// its file and predict once (the load time), then runs --reps rounds, each engine in turn
// with the order rotating by round, each predicting at batch 1 (--calls_batch1 timed
// calls after a warm-up) and at batch 32 (--calls_batch32). The workers quit before the
// next model, so each peak RSS is one model's. It reports each engine's median latency
// over the rounds with its range, Strata's ratio to each engine as the median of the
// per-round ratios, throughput, how far each engine's output is from Strata's, the peak
// RSS and the load time; and it fails (exit 1) when Strata's output is further than
// --keras_tolerance of the output's magnitude from Keras's.
//
// Separate processes, not one: ONNX Runtime and TensorFlow each bring their own thread
// pools and allocators, and in one process their threads would compete with Strata's
// and their memory would be counted together.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>

#include "bench/line_worker.h"
#include "bench/machine_info.h"
#include "bench/models_report.h"
#include "bench/strata_model_worker.h"
#include "bench/workload.h"
#include "io/npy.h"
#include "tools/cli/flags.h"

namespace {

using namespace strata::bench;

constexpr const char* kAllModels = "resnet50,mobilenetv2,efficientnetb0,convnexttiny,transformer,lstm";
constexpr const char* kAllEngines = "strata,onnxruntime,keras";

struct ModelsOptions {
  std::string models = kAllModels;
  int reps = 5;
  int calls_batch1 = 20;
  int calls_batch32 = 3;
  int threads = 2;
  std::string engines = kAllEngines;
  std::string dir = STRATA_BENCH_MODELS_DIR;
  std::string python = "python3";
  std::string results_dir = STRATA_BENCH_SOURCE_DIR "/results";
  double keras_tolerance = 1e-3;
  bool worker = false;
};

std::string model_file(const ModelsOptions& o, const std::string& model, const std::string& engine) {
  return o.dir + "/" + model + (engine == "onnxruntime" ? ".onnx" : ".keras");
}
std::string input_file(const ModelsOptions& o, const std::string& model, std::int64_t batch) {
  return o.dir + "/" + model + ".x" + std::to_string(batch) + ".npy";
}
std::string output_file(const ModelsOptions& o, const std::string& model, const std::string& engine,
                        std::int64_t batch) {
  return o.dir + "/outputs/" + model + "." + engine + ".b" + std::to_string(batch) + ".npy";
}

// Runs argv to its end; its exit status (127: could not run).
int run_command(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    ::execvp(argv[0], argv.data());
    std::_Exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// Makes the models whose files are missing with bench/make_real_models.py.
void make_missing_models(const ModelsOptions& o, const std::vector<std::string>& models) {
  std::string missing;
  for (const std::string& m : models) {
    for (const std::string& path : {model_file(o, m, "keras"), model_file(o, m, "onnxruntime"),
                                    input_file(o, m, 1), input_file(o, m, 32)}) {
      if (!std::filesystem::exists(path)) {
        missing += (missing.empty() ? "" : ",") + m;
        break;
      }
    }
  }
  if (missing.empty()) return;
  std::printf("making %s in %s (bench/make_real_models.py)...\n", missing.c_str(), o.dir.c_str());
  const std::vector<std::string> command{o.python, STRATA_BENCH_SOURCE_DIR "/make_real_models.py", "--out", o.dir,
                                         "--models", missing};
  if (run_command(command) != 0) {
    throw std::runtime_error("bench/make_real_models.py could not make " + missing + " (it needs keras, tensorflow "
                             "and tf2onnx in " + o.python + "; see its output above)");
  }
}

LineWorkerCommand engine_command(const ModelsOptions& o, const std::string& engine) {
  if (engine == "strata") {
    return {.name = "strata worker",
            .argv = {"/proc/self/exe", "--worker", "--threads=" + std::to_string(o.threads)},
            .environment = {}};
  }
  return {.name = engine + " worker",
          .argv = {o.python, STRATA_BENCH_SOURCE_DIR "/model_worker.py", engine, std::to_string(o.threads)},
          .environment = {{"TF_CPP_MIN_LOG_LEVEL", "2"},
                          {"KERAS_BACKEND", "tensorflow"},
                          {"CUDA_VISIBLE_DEVICES", ""}}};  // TensorFlow's CPU path, even where a GPU exists
}

std::string sample_shape_of(const strata::Tensor& x) {
  std::string out;
  for (std::size_t d = 1; d < x.shape().rank(); ++d) {
    out += (out.empty() ? "" : "x") + std::to_string(x.shape()[d]);
  }
  return out;
}

OutputDifference compare(const std::string& strata_path, const std::string& engine_path) {
  const strata::Tensor s = strata::io::load_npy(strata_path);
  const strata::Tensor e = strata::io::load_npy(engine_path);
  OutputDifference d;
  if (s.shape() != e.shape()) {
    d.mismatch = "output shapes differ: strata " + s.shape().to_string() + ", engine " + e.shape().to_string();
    return d;
  }
  double largest = 0;
  const auto sv = s.values<float>();
  const auto ev = e.values<float>();
  for (std::size_t i = 0; i < sv.size(); ++i) {
    d.max_abs = std::max(d.max_abs, std::abs(static_cast<double>(sv[i]) - ev[i]));
    largest = std::max(largest, std::abs(static_cast<double>(ev[i])));
    if (std::isnan(sv[i]) != std::isnan(ev[i])) d.max_abs = std::numeric_limits<double>::infinity();
  }
  d.max_rel = largest > 0 ? d.max_abs / largest : d.max_abs;
  return d;
}

void add_version(ModelsRunInfo& info, const std::string& engine, const std::string& versions) {
  const std::string line = engine + ": " + versions;
  if (std::find(info.versions.begin(), info.versions.end(), line) == info.versions.end()) {
    info.versions.push_back(line);
  }
}

ModelResult run_model(const std::string& model, const std::vector<std::string>& engines, const ModelsOptions& o,
                      ModelsRunInfo& info) {
  ModelResult result{model, sample_shape_of(strata::io::load_npy(input_file(o, model, 1))), {}, 0};
  std::printf("\n[%s] %s, engines %s\n", model.c_str(), result.sample_shape.c_str(), o.engines.c_str());
  std::fflush(stdout);
  std::filesystem::create_directories(o.dir + "/outputs");
  std::vector<std::unique_ptr<LineWorker>> workers;
  for (const std::string& engine : engines) {
    EngineOnModel e;
    e.engine = engine;
    for (std::int64_t batch : kModelBatches) std::filesystem::remove(output_file(o, model, engine, batch));
    std::unique_ptr<LineWorker> worker = LineWorker::start(engine_command(o, engine), &e.not_run);
    if (worker) {
      add_version(info, engine, worker->ready());
      try {
        std::istringstream reply(
            worker->request("load " + model_file(o, model, engine) + " " + input_file(o, model, 1)));
        reply >> e.load_seconds;
        std::printf("  %s: loaded and predicted once in %.2f s\n", engine.c_str(), e.load_seconds);
      } catch (const std::exception& error) {
        e.not_run = std::string("load failed: ") + error.what();
        worker.reset();
      }
    }
    if (!e.not_run.empty()) std::printf("  %s: not run: %s\n", engine.c_str(), e.not_run.c_str());
    std::fflush(stdout);
    result.engines.push_back(std::move(e));
    workers.push_back(std::move(worker));
  }
  // Each round starts with the next engine in turn, so none always runs on a warmer (or
  // hotter) machine; within a round each engine runs batch 1, then batch 32.
  const std::size_t n = engines.size();
  for (int round = 0; round < o.reps; ++round) {
    std::string line = "  round " + std::to_string(round + 1) + "/" + std::to_string(o.reps) + ":";
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(round)) % n;
      EngineOnModel& e = result.engines[i];
      for (std::size_t b = 0; b < kModelBatches.size(); ++b) {
        e.round_seconds[b].push_back(std::numeric_limits<double>::quiet_NaN());
        if (!workers[i] || !e.failed.empty()) continue;
        const std::int64_t batch = kModelBatches[b];
        const int calls = batch == 1 ? o.calls_batch1 : o.calls_batch32;
        try {
          std::istringstream reply(workers[i]->request("predict " + input_file(o, model, batch) + " " +
                                                       std::to_string(calls) + " " +
                                                       output_file(o, model, e.engine, batch)));
          double median = 0, min = 0, max = 0;
          reply >> median >> min >> max;
          std::getline(reply >> std::ws, e.how[b]);
          e.round_seconds[b].back() = median;
          char ms[64];
          std::snprintf(ms, sizeof(ms), "%s%.2f", b == 0 ? (" " + e.engine + " ").c_str() : "/", median * 1e3);
          line += ms;
        } catch (const std::exception& error) {
          e.failed = error.what();
          std::printf("  %s failed on %s: %s\n", e.engine.c_str(), model.c_str(), error.what());
        }
      }
      if (workers[i] && e.failed.empty()) line += " ms;";
    }
    result.rounds = round + 1;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (workers[i]) result.engines[i].peak_rss_mb = workers[i]->quit();
  }
  // Each engine's last output against Strata's, on the same input.
  for (std::size_t b = 0; b < kModelBatches.size(); ++b) {
    const std::string strata_out = output_file(o, model, "strata", kModelBatches[b]);
    if (!std::filesystem::exists(strata_out)) break;
    for (EngineOnModel& e : result.engines) {
      const std::string engine_out = output_file(o, model, e.engine, kModelBatches[b]);
      if (e.engine == "strata" || !std::filesystem::exists(engine_out)) continue;
      e.difference[b] = compare(strata_out, engine_out);
    }
  }
  std::printf("\n%s", models_table({result}, o.keras_tolerance).c_str());
  std::fflush(stdout);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  // The worker's stdout is its protocol: set that up before the flags print their line.
  const bool worker = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::strcmp(a, "--worker") == 0; });
  ModelsOptions o;
  strata::cli::Flags flags("Real models as people load them: Strata vs ONNX Runtime vs Keras/TensorFlow, each engine "
                           "in its own process (issue #37).");
  flags.add("models", &o.models, std::string("comma-separated, of: ") + kAllModels)
      .add("reps", &o.reps, "rounds, each engine in turn (rotating), each predicting at batch 1 and 32")
      .add("calls_batch1", &o.calls_batch1, "timed batch-1 predictions per round (after warm-up calls for 0.2 s)")
      .add("calls_batch32", &o.calls_batch32, "timed batch-32 predictions per round (after warm-up calls for 0.2 s)")
      .add("threads", &o.threads, "CPU threads for every engine")
      .add("engines", &o.engines, std::string("comma-separated, of: ") + kAllEngines)
      .add("dir", &o.dir, "the models and inputs (made there by bench/make_real_models.py when missing)")
      .add("python", &o.python, "the Python that runs bench/model_worker.py and make_real_models.py")
      .add("results_dir", &o.results_dir, "where models.csv and models.md go")
      .add("keras_tolerance", &o.keras_tolerance,
           "the largest |strata - keras| allowed, as a share of the output's largest magnitude")
      .add("worker", &o.worker, "serve as Strata's engine on stdin/stdout (the driver starts it)");
  if (worker) {
    if (!flags.parse(argc, const_cast<const char* const*>(argv), std::cerr)) return 0;
    return serve_strata_model_worker(o.threads);
  }
  flags.parse_or_exit(argc, const_cast<const char* const*>(argv));
  if (o.reps < 1 || o.calls_batch1 < 1 || o.calls_batch32 < 1 || o.threads < 1) {
    std::cerr << "error: need --reps, --calls_batch1, --calls_batch32 and --threads >= 1\n";
    return 2;
  }
  const std::vector<std::string> models = split_list(o.models);
  const std::vector<std::string> engines = split_list(o.engines);
  for (const std::string& e : engines) {
    if (e != "strata" && e != "onnxruntime" && e != "keras") {
      std::cerr << "error: unknown engine '" << e << "' in --engines; known: " << kAllEngines << "\n";
      return 2;
    }
  }

  ModelsRunInfo info;
  static_cast<RunStamp&>(info) = stamp_run(argc, argv);
  info.threads = o.threads;
  info.reps = o.reps;
  info.calls_batch1 = o.calls_batch1;
  info.calls_batch32 = o.calls_batch32;
  info.keras_tolerance = o.keras_tolerance;
  std::printf("strata_bench_models: %d threads per engine, %d rounds of %d batch-1 and %d batch-32 predictions\n"
              "CPU: %s; %s\nStrata's GEMM kernels: %s\n",
              o.threads, o.reps, o.calls_batch1, o.calls_batch32, info.cpu.c_str(), info.load_before.c_str(),
              info.strata_kernels.c_str());

  std::vector<ModelResult> results;
  try {
    make_missing_models(o, models);
    for (const std::string& model : models) results.push_back(run_model(model, engines, o, info));
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  info.load_after = shell_line("uptime");
  std::printf("\n== all models ==\n%s\nversions:", models_table(results, o.keras_tolerance).c_str());
  for (const std::string& v : info.versions) std::printf(" %s;", v.c_str());
  std::printf("\n");
  write_models_results(o.results_dir, results, info);

  int status = 0;
  for (const ModelResult& m : results) {
    for (const EngineOnModel& e : m.engines) {
      if (e.engine == "strata" && (!e.ran() || !e.failed.empty())) {
        std::fprintf(stderr, "FAILED: Strata did not run %s: %s\n", m.model.c_str(),
                     (e.ran() ? e.failed : e.not_run).c_str());
        status = 1;
      }
    }
  }
  for (const std::string& mismatch : keras_mismatches(results, o.keras_tolerance)) {
    std::fprintf(stderr, "MISMATCH: Strata's output differs from Keras's on %s\n", mismatch.c_str());
    status = 1;
  }
  return status;
}
