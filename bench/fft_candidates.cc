// strata_fft_candidates: which maintained FFT library the spectrogram ops should use on the
// CPU (issue #38: "an FFT from a maintained library, not a hand-written one, chosen by
// measurement"). Times a batch of real-input forward FFTs (the r2c transform a
// spectrogram's frames need) at the frame sizes Keras's audio layers use by default or
// commonly (256, 400 — 25 ms at 16 kHz, not a power of two — 512, 1024, 2048), on one
// thread, with each library's plan made once outside the timing:
//   eigen    Eigen's unsupported FFT module (kissfft backend), header-only, MPL-2.0, already
//            a dependency of Strata (libeigen3-dev);
//   kissfft  KISS FFT's C library, kiss_fftr (libkissfft-dev), BSD-3-Clause;
//   fftw     FFTW 3, fftwf_plan_many_dft_r2c with FFTW_MEASURE (libfftw3-dev), GPL-2.0+.
// The libraries found at configure time are compiled in; each prints ns per transform
// (the median of --reps runs of --frames transforms) and its largest difference from the
// first library's result on the same input.
//   build/bench/strata_fft_candidates [--frames=2000] [--reps=7]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unsupported/Eigen/FFT>
#ifdef STRATA_BENCH_KISSFFT
#include <kissfft/kiss_fftr.h>
#endif
#ifdef STRATA_BENCH_FFTW
#include <fftw3.h>
#endif

namespace {

using Spectrum = std::vector<std::complex<float>>;  // frames · (n / 2 + 1)

struct Candidate {
  std::string name;
  // Transforms `frames` frames of n samples each; returns the spectra.
  std::function<void(const std::vector<float>& in, Spectrum& out)> run;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<Candidate> candidates(int n, int frames) {
  std::vector<Candidate> out;
  const int bins = n / 2 + 1;
  {
    auto fft = std::make_shared<Eigen::FFT<float>>();
    fft->SetFlag(Eigen::FFT<float>::HalfSpectrum);
    out.push_back({"eigen", [fft, n, bins, frames](const std::vector<float>& in, Spectrum& spectra) {
                     std::vector<std::complex<float>> one(static_cast<std::size_t>(bins));
                     for (int f = 0; f < frames; ++f) {
                       fft->fwd(one.data(), in.data() + static_cast<std::size_t>(f) * n, n);
                       std::copy(one.begin(), one.end(), spectra.begin() + static_cast<std::ptrdiff_t>(f) * bins);
                     }
                   }});
  }
#ifdef STRATA_BENCH_KISSFFT
  {
    auto cfg = std::shared_ptr<kiss_fftr_state>(kiss_fftr_alloc(n, 0, nullptr, nullptr), kiss_fftr_free);
    out.push_back({"kissfft", [cfg, n, bins, frames](const std::vector<float>& in, Spectrum& spectra) {
                     for (int f = 0; f < frames; ++f) {
                       kiss_fftr(cfg.get(), in.data() + static_cast<std::size_t>(f) * n,
                                 reinterpret_cast<kiss_fft_cpx*>(spectra.data() + static_cast<std::ptrdiff_t>(f) * bins));
                     }
                   }});
  }
#endif
#ifdef STRATA_BENCH_FFTW
  {
    // FFTW_MEASURE overwrites the arrays while planning: plan on scratch, run on the data.
    std::vector<float> scratch_in(static_cast<std::size_t>(n) * frames);
    Spectrum scratch_out(static_cast<std::size_t>(bins) * frames);
    fftwf_plan plan = fftwf_plan_many_dft_r2c(1, &n, frames, scratch_in.data(), nullptr, 1, n,
                                              reinterpret_cast<fftwf_complex*>(scratch_out.data()), nullptr, 1, bins,
                                              FFTW_MEASURE);
    auto held = std::shared_ptr<fftwf_plan_s>(plan, fftwf_destroy_plan);
    out.push_back({"fftw", [held](const std::vector<float>& in, Spectrum& spectra) {
                     fftwf_execute_dft_r2c(held.get(), const_cast<float*>(in.data()),
                                           reinterpret_cast<fftwf_complex*>(spectra.data()));
                   }});
  }
#endif
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 2000, reps = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--frames=", 9) == 0) frames = std::atoi(argv[i] + 9);
    if (std::strncmp(argv[i], "--reps=", 7) == 0) reps = std::atoi(argv[i] + 7);
  }
  std::printf("%-8s %6s %14s %16s\n", "library", "n", "ns/transform", "max|diff|");
  for (int n : {256, 400, 512, 1024, 2048}) {
    std::vector<float> in(static_cast<std::size_t>(n) * frames);
    std::mt19937 rng(38);
    std::normal_distribution<float> normal;
    for (float& v : in) v = normal(rng);
    const int bins = n / 2 + 1;
    Spectrum first;
    for (const auto& c : candidates(n, frames)) {
      Spectrum out(static_cast<std::size_t>(bins) * frames);
      c.run(in, out);  // warm
      std::vector<double> times;
      for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        c.run(in, out);
        times.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
      }
      double diff = 0;
      if (first.empty()) first = out;
      for (std::size_t i = 0; i < out.size(); ++i) diff = std::max<double>(diff, std::abs(out[i] - first[i]));
      std::printf("%-8s %6d %14.0f %16.3g\n", c.name.c_str(), n, median(times) / frames, diff);
    }
  }
  return 0;
}
