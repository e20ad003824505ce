// strata_mlp_chain_bound: how fast the bench's MLP (784-256-256-10, relu) can predict
// one sample on two cores when nothing but the arithmetic and the unavoidable hand-offs
// is paid: hand-written AVX-512, outside the library. Each thread keeps the same half of
// every layer's weight rows (the product split over k, so each reads whole 1 KB rows and
// its half stays in its own cache); a layer's two partial rows are exchanged at a
// barrier, each thread finishing the half of the columns that feeds its own rows of the
// next layer. A prediction is one fork, two barriers and one join.
//
// A second schedule pairs the first two layers as the engine does at batch 1
// (core/cpu/dense_pair.h): each thread computes its own block of layer 1's columns (bias
// and relu included) and multiplies them by the same rows of layer 2's weights; one fork,
// one join, and the caller adds the two partial rows and runs layer 3. It runs twice: on
// layer 1's weights in place (each thread reads part of every row, as the engine must) and
// on a copy packed so that each thread's block is contiguous (which the engine cannot
// keep, since weights change under training). A third run makes the same schedule of the
// library's parts: its matrix-vector kernel (cpu::gemv_row) and its thread pool's
// fork-join (cpu::pool().run), on the weights in place — what the engine's pair kernel
// does, without the executor around it.
//
// It prints, measured in one run: each layer's share of the products on one core (the
// cache streaming rate), an empty fork/two barriers/join, and the whole chain. The
// engine's batch-1 latency (strata_bench, strata_profile_steps --predict_one) adds what a
// general executor costs to this; docs/performance.md compares them.
//   build/bench/strata_mlp_chain_bound [--calls=100000] [--reps=7]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/cpu/gemv.h"
#include "core/cpu/parallel.h"
#include "core/cpu/thread_pool.h"

#if defined(__AVX512F__)
#include <immintrin.h>

namespace {

constexpr int kIn = 784, kHidden = 256, kClasses = 10, kClassesPadded = 16;
constexpr int kSplit1 = kIn / 2, kSplit2 = kHidden / 2;

// The caller's block of layer 1's columns in the paired schedule: 144 of 256 measured
// best, as in the engine (it starts first).
constexpr int kPairCallerColumns = 144;

struct Weights {
  alignas(64) float w1[kIn * kHidden], w2[kHidden * kHidden], w3[kHidden * kClassesPadded];
  // w1's two column blocks of the paired schedule, each contiguous (kIn rows of its width).
  alignas(64) float w1_packed[kIn * kHidden];
  alignas(64) float b1[kHidden], b2[kHidden], b3[kClassesPadded];
};

// The values passed between the threads of one prediction, each on lines of its own.
struct Exchange {
  alignas(64) float x[kIn];
  alignas(64) float partial1[2][kHidden];
  alignas(64) float partial2[2][kHidden];
  alignas(64) float h1[kHidden];
  alignas(64) float h2[kHidden];
  alignas(64) float partial3[2][kClassesPadded];
  alignas(64) float out[kClassesPadded];
};

struct alignas(64) Flag {
  std::atomic<unsigned> value{0};
};

// out[0..256) = sum over rows [k0, k1) of x[k] * w[k][0..256): one 1 KB row per step.
void rows_256(const float* x, const float* w, int k0, int k1, float* out) {
  __m512 acc[16];
  for (auto& a : acc) a = _mm512_setzero_ps();
  for (int k = k0; k < k1; ++k) {
    const __m512 xk = _mm512_set1_ps(x[k]);
    const float* row = w + static_cast<std::size_t>(k) * kHidden;
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) acc[j] = _mm512_fmadd_ps(xk, _mm512_load_ps(row + 16 * j), acc[j]);
  }
  for (int j = 0; j < 16; ++j) _mm512_store_ps(out + 16 * j, acc[j]);
}

void rows_16(const float* x, const float* w, int k0, int k1, float* out) {
  __m512 a = _mm512_setzero_ps();
  for (int k = k0; k < k1; ++k) a = _mm512_fmadd_ps(_mm512_set1_ps(x[k]), _mm512_load_ps(w + k * 16), a);
  _mm512_store_ps(out, a);
}

// dst[c] = relu(p0[c] + p1[c] + bias[c]) for the 128 columns of thread t.
void finish_half(int t, const float* p0, const float* p1, const float* bias, float* dst) {
  for (int c = t * kSplit2; c < (t + 1) * kSplit2; c += 16) {
    const __m512 v = _mm512_add_ps(_mm512_add_ps(_mm512_load_ps(p0 + c), _mm512_load_ps(p1 + c)), _mm512_load_ps(bias + c));
    _mm512_store_ps(dst + c, _mm512_max_ps(v, _mm512_setzero_ps()));
  }
}

class Team {
 public:
  Team(const Weights& w, Exchange& e) : w_(w), e_(e), worker_([this] { work(); }) {}
  ~Team() {
    stopping_.store(true);
    worker_.join();
  }

  // One prediction of e.x into e.out (compute) or the hand-offs alone (!compute).
  void predict(bool compute) {
    const unsigned g = ++generation_;
    compute_ = compute;
    go_.value.store(g, std::memory_order_release);
    body(0, g, compute);
    if (compute) {
      _mm512_store_ps(e_.out, _mm512_add_ps(_mm512_add_ps(_mm512_load_ps(e_.partial3[0]), _mm512_load_ps(e_.partial3[1])),
                                           _mm512_load_ps(w_.b3)));
    }
  }

 private:
  static void wait_for(const std::atomic<unsigned>& flag, unsigned value) {
    while (flag.load(std::memory_order_acquire) < value) _mm_pause();
  }
  void barrier(int t, unsigned sequence) {
    arrived_[t].value.store(sequence, std::memory_order_release);
    wait_for(arrived_[1 - t].value, sequence);
  }
  void body(int t, unsigned g, bool compute) {
    if (compute) rows_256(e_.x, w_.w1, t * kSplit1, (t + 1) * kSplit1, e_.partial1[t]);
    barrier(t, 3 * g);
    if (compute) {
      finish_half(t, e_.partial1[0], e_.partial1[1], w_.b1, e_.h1);
      rows_256(e_.h1, w_.w2, t * kSplit2, (t + 1) * kSplit2, e_.partial2[t]);
    }
    barrier(t, 3 * g + 1);
    if (compute) {
      finish_half(t, e_.partial2[0], e_.partial2[1], w_.b2, e_.h2);
      rows_16(e_.h2, w_.w3, t * kSplit2, (t + 1) * kSplit2, e_.partial3[t]);
    }
    barrier(t, 3 * g + 2);
  }
  void work() {
    for (unsigned g = 1;; ++g) {
      while (go_.value.load(std::memory_order_acquire) < g) {
        if (stopping_.load(std::memory_order_relaxed)) return;
        _mm_pause();
      }
      body(1, g, compute_);
    }
  }

  const Weights& w_;
  Exchange& e_;
  Flag go_, arrived_[2];
  unsigned generation_ = 0;
  bool compute_ = true;  // written before go_ is released, read after it is acquired
  std::atomic<bool> stopping_{false};
  std::thread worker_;
};

// Columns [0, 16·V) of x · w for a row-major w with row stride ld: even and odd rows
// into separate accumulators, so no multiply-add waits for the previous one.
template <int V>
void columns(const float* x, const float* w, int ld, int rows, float* out) {
  __m512 even[V], odd[V];
#pragma GCC unroll 16
  for (int j = 0; j < V; ++j) even[j] = odd[j] = _mm512_setzero_ps();
  for (int k = 0; k < rows; k += 2) {  // rows is even here (784)
    const __m512 x0 = _mm512_set1_ps(x[k]), x1 = _mm512_set1_ps(x[k + 1]);
    const float* r = w + static_cast<std::size_t>(k) * ld;
#pragma GCC unroll 16
    for (int j = 0; j < V; ++j) even[j] = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r + 16 * j), even[j]);
#pragma GCC unroll 16
    for (int j = 0; j < V; ++j) odd[j] = _mm512_fmadd_ps(x1, _mm512_loadu_ps(r + ld + 16 * j), odd[j]);
  }
#pragma GCC unroll 16
  for (int j = 0; j < V; ++j) _mm512_store_ps(out + 16 * j, _mm512_add_ps(even[j], odd[j]));
}

// The paired schedule: layers 1 and 2 split by layer 1's columns, one fork and one join.
enum class PairMode { in_place, packed, library };

class PairTeam {
 public:
  PairTeam(const Weights& w, Exchange& e, PairMode mode) : w_(w), e_(e), mode_(mode) {
    if (mode_ != PairMode::library) worker_ = std::thread([this] { work(); });
  }
  ~PairTeam() {
    stopping_.store(true);
    if (worker_.joinable()) worker_.join();
  }

  void predict() {
    if (mode_ == PairMode::library) {
      auto task = [this](int t) { half(t); };
      strata::cpu::pool().run(2, task);
    } else {
      const unsigned g = ++generation_;
      go_.value.store(g, std::memory_order_release);
      half(0);
      while (done_.value.load(std::memory_order_acquire) < g) _mm_pause();
    }
    alignas(64) float h2[kHidden];
    for (int c = 0; c < kHidden; c += 16) {
      const __m512 v = _mm512_add_ps(_mm512_add_ps(_mm512_load_ps(e_.partial2[0] + c), _mm512_load_ps(e_.partial2[1] + c)),
                                     _mm512_load_ps(w_.b2 + c));
      _mm512_store_ps(h2 + c, _mm512_max_ps(v, _mm512_setzero_ps()));
    }
    rows_16(h2, w_.w3, 0, kHidden, e_.partial3[0]);
    _mm512_store_ps(e_.out, _mm512_add_ps(_mm512_load_ps(e_.partial3[0]), _mm512_load_ps(w_.b3)));
  }

 private:
  // Thread t: its columns of h1 = relu(x · w1 + b1), then its partial row of layer 2.
  void half(int t) {
    const int c0 = t == 0 ? 0 : kPairCallerColumns, c1 = t == 0 ? kPairCallerColumns : kHidden;
    alignas(64) float block[kHidden];
    const bool packed = mode_ == PairMode::packed;
    const float* w = packed ? w_.w1_packed + c0 * kIn : w_.w1 + c0;
    const int ld = packed ? c1 - c0 : kHidden;
    if (mode_ == PairMode::library) {
      strata::cpu::gemv_row(c1 - c0, kIn, e_.x, 1, w, ld, block);
    } else if (t == 0) {
      columns<kPairCallerColumns / 16>(e_.x, w, ld, kIn, block);
    } else {
      columns<(kHidden - kPairCallerColumns) / 16>(e_.x, w, ld, kIn, block);
    }
    for (int c = c0; c < c1; c += 16) {
      const __m512 v = _mm512_add_ps(_mm512_load_ps(block + (c - c0)), _mm512_load_ps(w_.b1 + c));
      _mm512_store_ps(e_.h1 + c, _mm512_max_ps(v, _mm512_setzero_ps()));
    }
    if (mode_ == PairMode::library) {
      strata::cpu::gemv_row(kHidden, c1 - c0, e_.h1 + c0, 1, w_.w2 + c0 * kHidden, kHidden, e_.partial2[t]);
    } else {
      rows_256(e_.h1, w_.w2, c0, c1, e_.partial2[t]);
    }
  }
  void work() {
    for (unsigned g = 1;; ++g) {
      while (go_.value.load(std::memory_order_acquire) < g) {
        if (stopping_.load(std::memory_order_relaxed)) return;
        _mm_pause();
      }
      half(1);
      done_.value.store(g, std::memory_order_release);
    }
  }

  const Weights& w_;
  Exchange& e_;
  const PairMode mode_;
  Flag go_, done_;
  unsigned generation_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread worker_;
};

template <typename F>
double median_us(int reps, int calls, F f) {
  std::vector<double> per_call;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    per_call.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                       calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

int int_flag(int argc, char** argv, const std::string& name, int fallback) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return std::atoi(argv[i] + prefix.size());
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = int_flag(argc, argv, "calls", 100000), reps = int_flag(argc, argv, "reps", 7);
  static Weights w;
  static Exchange e;
  std::srand(1);
  auto fill = [](float* p, int n, float scale) {
    for (int i = 0; i < n; ++i) p[i] = scale * (static_cast<float>(std::rand()) / RAND_MAX - 0.5f);
  };
  fill(w.w1, kIn * kHidden, 0.1f);
  fill(w.w2, kHidden * kHidden, 0.1f);
  for (int k = 0; k < kHidden; ++k) fill(w.w3 + k * kClassesPadded, kClasses, 0.1f);
  fill(w.b1, kHidden, 0.1f);
  fill(w.b2, kHidden, 0.1f);
  fill(w.b3, kClasses, 0.1f);
  fill(e.x, kIn, 2.f);
  for (const auto [c0, c1] : {std::pair{0, kPairCallerColumns}, std::pair{kPairCallerColumns, kHidden}}) {
    for (int k = 0; k < kIn; ++k) {
      std::copy(w.w1 + k * kHidden + c0, w.w1 + k * kHidden + c1, w.w1_packed + c0 * kIn + k * (c1 - c0));
    }
  }

  // One core, each half-layer product alone (warm in its cache): the streaming rate.
  alignas(64) static float sink[kHidden];
  const double half1 = median_us(reps, calls, [&] { rows_256(e.x, w.w1, 0, kSplit1, sink); asm volatile("" ::: "memory"); });
  const double half2 = median_us(reps, calls, [&] { rows_256(e.x, w.w2, 0, kSplit2, sink); asm volatile("" ::: "memory"); });

  double chain = 0, handoffs = 0;
  {
    Team team(w, e);
    handoffs = median_us(reps, calls, [&] { team.predict(false); });
    chain = median_us(reps, calls, [&] { team.predict(true); });
  }

  // The chain's answer against a plain double-precision evaluation.
  std::vector<double> h1(kHidden), h2(kHidden);
  std::vector<double> want(kClasses);
  for (int c = 0; c < kHidden; ++c) {
    double a = w.b1[c];
    for (int k = 0; k < kIn; ++k) a += static_cast<double>(e.x[k]) * w.w1[k * kHidden + c];
    h1[c] = std::max(a, 0.0);
  }
  for (int c = 0; c < kHidden; ++c) {
    double a = w.b2[c];
    for (int k = 0; k < kHidden; ++k) a += h1[k] * w.w2[k * kHidden + c];
    h2[c] = std::max(a, 0.0);
  }
  for (int c = 0; c < kClasses; ++c) {
    double a = w.b3[c];
    for (int k = 0; k < kHidden; ++k) a += h2[k] * w.w3[k * kClassesPadded + c];
    want[c] = a;
  }
  auto error = [&] {
    double worst = 0;
    for (int c = 0; c < kClasses; ++c) worst = std::max(worst, std::abs(want[c] - e.out[c]) / (1 + std::abs(want[c])));
    return worst;
  };
  double worst = error();

  // The paired schedules, each checked the same way.
  double paired[3] = {0, 0, 0};
  strata::cpu::set_num_threads(2);
  for (const PairMode mode : {PairMode::in_place, PairMode::packed, PairMode::library}) {
    std::fill(std::begin(e.out), std::end(e.out), 0.f);
    PairTeam team(w, e, mode);
    paired[static_cast<int>(mode)] = median_us(reps, calls, [&] { team.predict(); });
    worst = std::max(worst, error());
  }

  const double mb = 4.0 * (kIn * kHidden + kHidden * kHidden + kHidden * kClasses) / 1e6;
  std::printf("MLP 784-256-256-10, batch 1, two threads; medians of %d runs of %d calls\n", reps, calls);
  std::printf("  one core, 392 rows x 256 (layer 1's half): %.3f us = %.0f GB/s\n", half1,
              kSplit1 * kHidden * 4.0 / half1 / 1e3);
  std::printf("  one core, 128 rows x 256 (layer 2's half): %.3f us = %.0f GB/s\n", half2,
              kSplit2 * kHidden * 4.0 / half2 / 1e3);
  std::printf("  hand-offs alone (fork, 2 barriers, join): %.3f us\n", handoffs);
  std::printf("  whole chain (%.2f MB of weights): %.3f us\n", mb, chain);
  std::printf("  paired layers 1-2 by columns (fork, join), weights in place: %.3f us\n", paired[0]);
  std::printf("  paired layers 1-2 by columns (fork, join), layer 1 packed per thread: %.3f us\n", paired[1]);
  std::printf("  paired, the library's matrix-vector kernel and thread pool, weights in place: %.3f us\n", paired[2]);
  std::printf("  largest relative error of the four: %.1e\n", worst);
  return worst < 1e-4 ? 0 : 1;
}

#else

int main() {
  std::printf("strata_mlp_chain_bound needs AVX-512 (build with STRATA_NATIVE on a machine that has it)\n");
  return 0;
}

#endif
