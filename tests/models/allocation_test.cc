// Training through the public Model API allocates nothing in steady state, and memory
// stays flat over thousands of steps. This binary (the models suite) interposes malloc
// and its siblings, and free: operator new, std::vector and Eigen all end in them. While
// `counting` is set every allocation is counted; live heap bytes (malloc_usable_size of
// every block, added on allocation, subtracted on free) are tracked all the time.
//
// What is measured is fit's own per-batch path (Model::fit with verbose = 0): taking the
// next batch from the arrays (including the reshuffle that starts a new pass), the train
// step, the metric updates and the running logs handed to callbacks. The counting window
// opens and closes in a LambdaCallback's on_train_batch_end, so it covers whole batches
// of the loop and nothing of fit's set-up or epoch-end work. train_on_batch is not
// measured: like Keras it returns a fresh map of results, which allocates by design.
//
// STRATA_ALLOC_TRACE=1 prints a backtrace for every counted allocation (to stderr), the
// way to find one: resolve the frames with addr2line -f -C -e <binary> <offset>.
#include <execinfo.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/rng.h"
#include "strata.h"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
std::atomic<long long> live_bytes{0};
bool tracing = std::getenv("STRATA_ALLOC_TRACE") != nullptr;
thread_local bool in_trace = false;

void trace() {
  if (!tracing || in_trace) return;
  in_trace = true;  // backtrace may allocate (it loads libgcc once)
  void* frames[24];
  int n = backtrace(frames, 24);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  static const char sep[] = "----\n";
  (void)!write(STDERR_FILENO, sep, sizeof sep - 1);
  in_trace = false;
}

inline void* note(void* p) {
  if (p) live_bytes.fetch_add(static_cast<long long>(malloc_usable_size(p)), std::memory_order_relaxed);
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    trace();
  }
  return p;
}
}  // namespace

extern "C" {
void* malloc(std::size_t n) { return note(__libc_malloc(n)); }
void* calloc(std::size_t a, std::size_t b) { return note(__libc_calloc(a, b)); }
void* realloc(void* p, std::size_t n) {
  const long long old = p ? static_cast<long long>(malloc_usable_size(p)) : 0;
  void* q = __libc_realloc(p, n);
  if (q || n == 0) live_bytes.fetch_sub(old, std::memory_order_relaxed);  // p was freed or moved
  return note(q);
}
void* aligned_alloc(std::size_t alignment, std::size_t n) { return note(__libc_memalign(alignment, n)); }
void* memalign(std::size_t alignment, std::size_t n) { return note(__libc_memalign(alignment, n)); }
int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  *out = note(__libc_memalign(alignment, n));
  return *out ? 0 : ENOMEM;
}
void free(void* p) {
  if (p) live_bytes.fetch_sub(static_cast<long long>(malloc_usable_size(p)), std::memory_order_relaxed);
  __libc_free(p);
}
}

using namespace strata;

namespace {

void start_counting() {
  if (tracing) {
    void* frame[1];
    backtrace(frame, 1);  // load the unwinder before the window opens
  }
  allocations = 0;
  counting = true;
}

long stop_counting() {
  counting = false;
  return allocations.load();
}

// VmRSS of this process in KiB (0 if unreadable).
long rss_kib() {
  long kib = 0;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::strtol(line + 6, nullptr, 10);
    }
    std::fclose(f);
  }
  return kib;
}

Tensor random_tensor(Shape shape, std::uint64_t seed) {
  Tensor t(std::move(shape));
  Philox rng(seed, 0);
  for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = rng.uniform(static_cast<std::uint64_t>(i)) - 0.5f;
  return t;
}

Tensor labels(std::int64_t n, std::int64_t classes) {
  Tensor y(Shape{n}, DType::int64);
  for (std::int64_t i = 0; i < n; ++i) y.data<std::int64_t>()[i] = i % classes;
  return y;
}

void compile_classifier(Model& m) {
  m.compile({.optimizer = optimizers::Adam(),
             .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
             .metrics = {"accuracy"}});
}

Sequential mlp(std::int64_t features, std::int64_t hidden) {
  Sequential m({layers::Input({features}), layers::Dense(hidden, {.activation = "relu"}),
                layers::Dense(hidden, {.activation = "relu"}), layers::Dense(10)});
  compile_classifier(m);
  return m;
}

Sequential lstm() {
  Sequential m({layers::Input({8, 4}), layers::LSTM(32), layers::Dense(10)});
  compile_classifier(m);
  return m;
}

Sequential cnn() {
  Sequential m({layers::Input({12, 12, 1}), layers::Conv2D(4, 3, {.activation = "relu"}), layers::MaxPooling2D(2),
                layers::Flatten(), layers::Dense(10)});
  compile_classifier(m);
  return m;
}

// Allocations in `counted` batches of fit after `warmup` batches. The arrays hold 8
// batches, so the window also crosses reshuffles that start a new pass.
long allocations_in_fit(Model& m, const Tensor& x, const Tensor& y, std::int64_t batch_size, int warmup,
                        int counted) {
  long result = -1;
  auto window = callbacks::LambdaCallback({.on_train_batch_end = [&](std::int64_t batch, Logs&) {
    if (batch == warmup - 1) start_counting();
    if (batch == warmup + counted - 1) result = stop_counting();
  }});
  m.fit(x, y, {.batch_size = batch_size, .verbose = 0, .callbacks = {window}, .steps_per_epoch = warmup + counted});
  counting = false;
  return result;
}

}  // namespace

TEST(ModelAllocations, TheHookCountsAllocationsAndLiveBytes) {
  const long long before = live_bytes.load();
  start_counting();
  auto* v = new std::vector<float>(1000);
  const long long during = live_bytes.load();
  delete v;
  EXPECT_GE(stop_counting(), 2);
  EXPECT_GE(during - before, 4000);
  EXPECT_EQ(live_bytes.load(), before);
}

TEST(ModelAllocations, FitStepsOfAnMlpAllocateNothing) {
  Sequential m = mlp(32, 64);
  const std::int64_t batch = 32;
  Tensor x = random_tensor({8 * batch, 32}, 1), y = labels(8 * batch, 10);
  EXPECT_EQ(allocations_in_fit(m, x, y, batch, 10, 30), 0) << "heap allocations in 30 steady-state fit steps";
}

TEST(ModelAllocations, FitStepsOfAnLstmAllocateNothing) {
  Sequential m = lstm();
  const std::int64_t batch = 16;
  Tensor x = random_tensor({8 * batch, 8, 4}, 2), y = labels(8 * batch, 10);
  EXPECT_EQ(allocations_in_fit(m, x, y, batch, 10, 30), 0) << "heap allocations in 30 steady-state fit steps";
}

TEST(ModelAllocations, FitStepsOfACnnAllocateNothing) {
  Sequential m = cnn();
  const std::int64_t batch = 16;
  Tensor x = random_tensor({8 * batch, 12, 12, 1}, 3), y = labels(8 * batch, 10);
  EXPECT_EQ(allocations_in_fit(m, x, y, batch, 10, 30), 0) << "heap allocations in 30 steady-state fit steps";
}

// 3×3 convolutions of 16 channels and more run by Winograd (core/cpu/winograd_conv.h),
// forward and for the input's gradient: the kernel transformed again each step (the
// weights change) into buffers that only grow.
TEST(ModelAllocations, FitStepsOfAWinogradCnnAllocateNothing) {
  Sequential m({layers::Input({12, 12, 3}), layers::Conv2D(16, 3, {.padding = "same", .activation = "relu"}),
                layers::Conv2D(16, 3, {.padding = "same", .activation = "relu"}), layers::GlobalAveragePooling2D(),
                layers::Dense(10)});
  compile_classifier(m);
  const std::int64_t batch = 16;
  Tensor x = random_tensor({8 * batch, 12, 12, 3}, 5), y = labels(8 * batch, 10);
  EXPECT_EQ(allocations_in_fit(m, x, y, batch, 10, 30), 0) << "heap allocations in 30 steady-state fit steps";
}

// A batch-1 prediction allocates its result and nothing else: the result's shape, its
// storage's control block and its block (before, building the call's vectors of inputs
// and results and copying tensors into and out of them took eight allocations a call).
TEST(ModelAllocations, ABatchOnePredictionAllocatesOnlyItsResult) {
  Sequential m = mlp(32, 64);
  Tensor x = random_tensor({1, 32}, 4);
  for (int i = 0; i < 20; ++i) m.predict_on_batch(x);
  constexpr int kCalls = 100;
  start_counting();
  for (int i = 0; i < kCalls; ++i) m.predict_on_batch(x);
  EXPECT_LE(stop_counting(), 3 * kCalls) << "heap allocations in " << kCalls << " batch-1 predictions";
}

namespace {

struct Snapshot {
  long long live = 0;
  long rss = 0;
  int nodes = 0;
};

// Live heap bytes, VmRSS and graph size after step `early` and after the last step.
std::pair<Snapshot, Snapshot> snapshots_in_fit(Model& m, const Tensor& x, const Tensor& y, std::int64_t batch_size,
                                               int early, int steps) {
  std::pair<Snapshot, Snapshot> out;
  rss_kib();  // the first read of /proc may keep buffers: take it before training
  auto probe = callbacks::LambdaCallback({.on_train_batch_end = [&](std::int64_t batch, Logs&) {
    Snapshot* s = batch + 1 == early ? &out.first : batch + 1 == steps ? &out.second : nullptr;
    if (!s) return;
    s->live = live_bytes.load();  // first: the probes below allocate and free
    s->rss = rss_kib();
    s->nodes = m.graph().num_nodes();
  }});
  m.fit(x, y, {.batch_size = batch_size, .verbose = 0, .callbacks = {probe}, .steps_per_epoch = steps});
  return out;
}

}  // namespace

// Live heap bytes are exact, so no growth at all is allowed. VmRSS also counts pages
// that the allocator or the kernel keep mapped for reasons of their own (a first touch
// of a freed page, thread stacks), so it gets 256 KiB: a leak of 32 bytes per step
// would already exceed that over these 9,000 steps.
TEST(ModelMemory, StaysFlatOver10000MlpSteps) {
  Sequential m = mlp(16, 32);
  const std::int64_t batch = 32;
  Tensor x = random_tensor({10 * batch, 16}, 4), y = labels(10 * batch, 10);
  auto [early, late] = snapshots_in_fit(m, x, y, batch, 1000, 10000);
  EXPECT_EQ(late.live - early.live, 0) << "live heap bytes grew between step 1,000 and step 10,000";
  EXPECT_EQ(late.nodes, early.nodes);
  EXPECT_GT(early.rss, 0);
  EXPECT_LE(late.rss - early.rss, 256) << "VmRSS grew from " << early.rss << " KiB at step 1,000 to " << late.rss
                                       << " KiB at step 10,000";
}

TEST(ModelMemory, StaysFlatOver2000LstmSteps) {
  Sequential m = lstm();
  const std::int64_t batch = 16;
  Tensor x = random_tensor({10 * batch, 8, 4}, 5), y = labels(10 * batch, 10);
  auto [early, late] = snapshots_in_fit(m, x, y, batch, 200, 2000);
  EXPECT_EQ(late.live - early.live, 0) << "live heap bytes grew between step 200 and step 2,000";
  EXPECT_EQ(late.nodes, early.nodes);
  EXPECT_LE(late.rss - early.rss, 256) << "VmRSS grew from " << early.rss << " KiB at step 200 to " << late.rss
                                       << " KiB at step 2,000";
}
