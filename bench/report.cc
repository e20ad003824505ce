// Console tables, targets, CSV and Markdown for the suite (see report.h). Each table is
// built once as strings and rendered twice, as aligned text and as Markdown, so the
// console and results.md cannot disagree.
#include "bench/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bench/table.h"

namespace strata::bench {
namespace {

// The precision a value of this size deserves.
const char* precision(double value) { return std::abs(value) >= 100 ? "%.0f" : "%.1f"; }

// 0.034 -> "3.4%", 0.34 -> "34%".
std::string percent(double share) { return fmt(std::abs(share) < 0.1 ? "%.1f%%" : "%.0f%%", 100 * share); }

// "12345 (12000..12500, 4.1%)": the median, the range and the relative spread.
std::string with_range(const Summary& s) {
  if (s.n == 0) return "-";
  const char* f = precision(s.median);
  std::string cell = fmt(f, s.median) + " (" + fmt(f, s.min) + ".." + fmt(f, s.max);
  if (s.n > 1) cell += ", " + percent(s.relative_spread());
  return cell + ")";
}

const FrameworkResult* find(const WorkloadResult& r, const std::string& framework) {
  for (const auto& f : r.frameworks) {
    if (f.framework == framework && !f.train.empty()) return &f;
  }
  return nullptr;
}

const WorkloadResult* find(const SuiteResults& s, const std::string& workload) {
  for (const auto& w : s.workloads) {
    if (w.workload.name == workload) return &w;
  }
  return nullptr;
}

std::vector<double> scaled(const std::vector<double>& values, double factor) {
  std::vector<double> out;
  for (double v : values) out.push_back(v * factor);
  return out;
}

// samples/s -> GFLOP/s.
std::vector<double> gflops(const std::vector<double>& samples_per_s, double flops_per_sample) {
  return scaled(samples_per_s, flops_per_sample / 1e9);
}

// The three figures each framework measures per repetition, by name.
struct Quantity {
  const char* name;       // "train"
  const char* long_name;  // "training throughput"
  std::vector<double> FrameworkResult::*values;
};
constexpr Quantity kQuantities[] = {{"train", "training throughput", &FrameworkResult::train},
                                    {"predict", "inference throughput", &FrameworkResult::predict},
                                    {"batch-1 latency", "batch-1 latency", &FrameworkResult::latency_us}};

// Training and inference GFLOP/s, and training as a share of the FMA peak, show the
// samples/s median converted: their range and spread are those of samples/s.
Table workload_table(const WorkloadResult& r, const FmaPeak& fma_peak) {
  const double train_flops = r.workload.train_flops_per_sample();
  const double predict_flops = r.workload.predict_flops_per_sample();
  const bool flops = train_flops > 0, share = flops && fma_peak.median() > 0;
  Table t{{"framework", "train samples/s", "predict samples/s"}, {}};
  if (flops) t.headers.push_back("train GFLOP/s");
  if (share) t.headers.push_back("train % of FMA peak");
  if (flops) t.headers.push_back("predict GFLOP/s");
  t.headers.insert(t.headers.end(), {"batch-1 us", "last loss"});
  for (const auto& f : r.frameworks) {
    std::vector<std::string> row{f.framework};
    if (!f.not_run.empty()) {
      row.push_back(f.not_run);
    } else if (!f.failed.empty()) {
      row.push_back("failed: " + f.failed);
    } else {
      const double train = summarize(f.train).median, predict = summarize(f.predict).median;
      row.insert(row.end(), {with_range(summarize(f.train)), with_range(summarize(f.predict))});
      if (flops) row.push_back(fmt("%.1f", train * train_flops / 1e9));
      if (share) row.push_back(fmt("%.1f%%", 100 * train * train_flops / 1e9 / fma_peak.median()));
      if (flops) row.push_back(fmt("%.1f", predict * predict_flops / 1e9));
      row.insert(row.end(), {with_range(summarize(f.latency_us)), fmt("%.4g", f.last_loss)});
    }
    row.resize(t.headers.size());
    t.rows.push_back(row);
  }
  return t;
}

// "1.38x", or "1.38x (uncertain)" when the two ranges overlap.
std::string ratio_text(const std::vector<double>& a, const std::vector<double>& b) {
  const Summary sa = summarize(a), sb = summarize(b);
  return fmt("%.2fx", sa.median / sb.median) + (ratio_uncertain(sa, sb) ? " (uncertain)" : "");
}

// "strata/libtorch: train 1.38x, predict 1.10x (uncertain), batch-1 latency 0.66x
// (throughput >1, latency <1: Strata faster)" for each other framework that ran.
std::vector<std::string> ratio_lines(const WorkloadResult& r) {
  std::vector<std::string> lines;
  const FrameworkResult* strata = find(r, "strata");
  if (!strata) return lines;
  for (const auto& other : r.frameworks) {
    if (other.framework == "strata" || other.train.empty()) continue;
    lines.push_back("strata/" + other.framework + ": train " + ratio_text(strata->train, other.train) +
                    ", predict " + ratio_text(strata->predict, other.predict) + ", batch-1 latency " +
                    ratio_text(strata->latency_us, other.latency_us) + " (throughput >1, latency <1: Strata faster)");
  }
  return lines;
}

// "7 repetitions; every median settled (moved <= 2% with the last)", or which did not.
std::string repetitions_line(const WorkloadResult& r) {
  std::string line = std::to_string(r.repetitions) + (r.repetitions == 1 ? " repetition" : " repetitions");
  if (r.stable) return line + "; every median settled (moved <= " + percent(r.stable_within) + " with the last)";
  line += ", the --max_reps cap; ";
  if (r.repetitions < 2) return line + "too few to judge whether the medians settled";
  line += "not settled (moved > " + percent(r.stable_within) + " with the last): ";
  const std::vector<std::string> unsettled = unsettled_medians(r, r.stable_within);
  for (std::size_t i = 0; i < unsettled.size(); ++i) line += (i ? ", " : "") + unsettled[i];
  return line;
}

std::vector<std::string> noise_warnings(const WorkloadResult& r) {
  std::vector<std::string> lines;
  for (const auto& f : r.frameworks) {
    for (const Quantity& q : kQuantities) {
      const Summary s = summarize(f.*q.values);
      if (s.n > 1 && s.max > 1.5 * s.min) {
        lines.push_back("warning: " + f.framework + "'s " + q.long_name + " varied " + fmt("%.1fx", s.max / s.min) +
                        " across repetitions: the machine is noisy; compare ratios or rerun with more --reps");
      }
    }
  }
  return lines;
}

Table gemm_table(const std::vector<GemmResult>& gemm) {
  Table t{{"GEMM (float32)", "m x n x k", "GFLOP/s"}, {}};
  for (const auto& g : gemm) t.rows.push_back({g.backend, g.shape, with_range(summarize(g.gflops))});
  return t;
}

// Issue #17: cpu::gemm's median as a share of the best library's median (OpenBLAS,
// oneDNN) on each shape both measured, and the lowest share.
Table gemm_share_table(const std::vector<GemmResult>& gemm) {
  Table t{{"m x n x k", "strata cpu::gemm", "best library", "share", ">= 95%"}, {}};
  for (const auto& g : gemm) {
    if (g.backend != "strata cpu::gemm") continue;
    double best = 0;
    std::string best_name;
    for (const auto& other : gemm) {
      const bool library = other.backend.rfind("OpenBLAS", 0) == 0 || other.backend.rfind("oneDNN", 0) == 0;
      if (!library || other.shape != g.shape || other.gflops.empty()) continue;
      if (bench::median(other.gflops) > best) best = bench::median(other.gflops), best_name = other.backend;
    }
    if (best <= 0) continue;
    const double share = bench::median(g.gflops) / best;
    t.rows.push_back({g.shape, fmt("%.1f", bench::median(g.gflops)), best_name + " " + fmt("%.1f", best),
                      fmt("%.0f%%", 100 * share), share >= 0.95 ? "yes" : "NO"});
  }
  return t;
}

// The GEMM with the best median: the machine's GEMM peak. Null when gemm_peak did not run.
const GemmResult* best_gemm(const std::vector<GemmResult>& gemm) {
  const GemmResult* best = nullptr;
  for (const auto& g : gemm) {
    if (!best || median(g.gflops) > median(best->gflops)) best = &g;
  }
  return best;
}

double gemm_peak(const std::vector<GemmResult>& gemm) {
  const GemmResult* best = best_gemm(gemm);
  return best ? median(best->gflops) : 0;
}

// "GEMM peak: 322.6 GFLOP/s (318.0..325.1, 2.2%), OpenBLAS (torch::mm) at 2048x2048x2048;
// 67% of the FMA peak".
std::string gemm_peak_line(const SuiteResults& s) {
  const GemmResult* best = best_gemm(s.gemm);
  if (!best) return "GEMM peak: not measured (add gemm_peak to --workloads)";
  std::string line = "GEMM peak: " + with_range(summarize(best->gflops)) + " GFLOP/s, " + best->backend + " at " +
                     best->shape;
  if (s.fma_peak.median() > 0) line += "; " + percent(median(best->gflops) / s.fma_peak.median()) + " of the FMA peak";
  return line;
}

struct Target {
  std::string what;
  std::string measured;  // "" when not run
  std::string target;
  bool pass = false;
  bool uncertain = false;  // the ranges overlap at the target
};

std::vector<Target> targets(const SuiteResults& s) {
  std::vector<Target> out;
  const bool gpu = s.device == BenchDevice::cuda;
  auto ratio_target = [&](const std::string& workload, bool latency, double bound) {
    Target t{workload + (latency ? " batch-1 latency, strata/libtorch" : " training throughput, strata/libtorch"), "",
             (latency ? "<= " : ">= ") + fmt("%.1fx", bound)};
    const WorkloadResult* w = find(s, workload);
    const FrameworkResult* a = w ? find(*w, "strata") : nullptr;
    const FrameworkResult* b = w ? find(*w, "libtorch") : nullptr;
    if (a && b) {
      const Summary sa = summarize(latency ? a->latency_us : a->train);
      const Summary sb = summarize(latency ? b->latency_us : b->train);
      const double r = sa.median / sb.median;
      t.measured = fmt("%.2fx", r);
      t.pass = latency ? r <= bound : r >= bound;
      t.uncertain = ratio_uncertain(sa, sb, bound);
    }
    out.push_back(t);
  };
  // Issue #7's ratios are the CPU's targets; issue #12 sets the GPU's dense4096 only.
  if (!gpu) {
    ratio_target("mlp", false, 1.2);
    ratio_target("lstm", false, 1.2);
    ratio_target("bilstm", false, 1.0);
    ratio_target("cnn", false, 1.0);
    ratio_target("resnet20", false, 1.5);  // issue #37: CNN training at 1.5x libtorch
    ratio_target("mobilenet_small", false, 1.5);
    ratio_target("mlp", true, 0.3);
    ratio_target("lstm", true, 0.3);
  }
  const GemmResult* best = best_gemm(s.gemm);
  const double share = dense_gemm_share_target(s.device);
  for (const char* phase : {"predict", "train"}) {
    Target t{std::string("dense4096 ") + phase + " GFLOP/s, share of " + (gpu ? "cuBLAS SGEMM peak" : "GEMM peak"), "",
             ">= " + fmt("%.0f%%", 100 * share)};
    const WorkloadResult* w = find(s, "dense4096");
    const FrameworkResult* f = w ? find(*w, "strata") : nullptr;
    if (f && best) {
      const bool train = std::string(phase) == "train";
      const Summary g = summarize(gflops(train ? f->train : f->predict, train ? w->workload.train_flops_per_sample()
                                                                               : w->workload.predict_flops_per_sample()));
      const Summary peak = summarize(best->gflops);
      t.measured = fmt("%.0f%%", 100 * g.median / peak.median) + fmt(" (%.1f", g.median) +
                   fmt(" of %.1f)", peak.median);
      t.pass = g.median >= share * peak.median;
      t.uncertain = ratio_uncertain(g, peak, share);
    } else if (f) {
      t.target += " (run gemm_peak too)";
    }
    out.push_back(t);
  }
  return out;
}

Table targets_table(const SuiteResults& s) {
  const std::string where =
      s.device == BenchDevice::cuda ? device_name(s.device) : std::to_string(s.threads) + " threads";
  Table t{{"target (float32, " + where + ")", "measured", "target", "result"}, {}};
  for (const Target& x : targets(s)) {
    const std::string result = std::string(x.pass ? "PASS" : "MISS") + (x.uncertain ? " (uncertain)" : "");
    t.rows.push_back({x.what, x.measured.empty() ? "not run" : x.measured, x.target, x.measured.empty() ? "-" : result});
  }
  return t;
}

// "issue #7" on the CPU, "issue #12, cuda:0" on the GPU.
std::string targets_heading(const SuiteResults& s) {
  return s.device == BenchDevice::cuda ? "issue #12, " + device_name(s.device) : "issue #7";
}

std::string title(const Workload& w) {
  std::string shape;
  for (std::int64_t d : w.sample_shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  return w.name + ": input " + shape + ", batch " + std::to_string(w.batch_size) + ", " + std::to_string(w.samples) +
         " samples/epoch" + (w.device == BenchDevice::cpu ? "" : ", on " + device_name(w.device));
}

// `stable` is "1" or "0" for a workload's rows (whether its medians settled before the
// cap) and empty for the machine's.
void csv_row(std::ofstream& out, const std::string& workload, const std::string& framework,
             const std::string& metric, const Summary& s, const std::string& stable, const std::string& unit) {
  out << workload << ',' << framework << ',' << metric << ',' << s.median << ',' << s.min << ',' << s.max << ','
      << s.q1 << ',' << s.q3 << ',' << s.relative_spread() << ',' << s.n << ',' << stable << ',' << unit << '\n';
}

void write_csv(const std::string& path, const SuiteResults& s) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "workload,framework,metric,median,min,max,q1,q3,spread,reps,stable,unit\n";
  if (!s.fma_peak.gflops.empty()) {
    csv_row(out, "machine", "fma_peak", "gflops", summarize(s.fma_peak.gflops), "", "GFLOP/s");
  }
  if (const GemmResult* best = best_gemm(s.gemm)) {
    csv_row(out, "machine", "gemm_peak", "gflops", summarize(best->gflops), "", "GFLOP/s");
  }
  if (!s.memory.read_gbps.empty()) {
    csv_row(out, "machine", "cache_read", "gbps", summarize(s.memory.read_gbps), "", "GB/s");
  }
  if (!s.memory.round_trip_ns.empty()) {
    csv_row(out, "machine", "core_round_trip", "ns", summarize(s.memory.round_trip_ns), "", "ns");
  }
  for (const auto& w : s.workloads) {
    const std::string stable = w.stable ? "1" : "0";
    const double train_flops = w.workload.train_flops_per_sample();
    for (const auto& f : w.frameworks) {
      if (f.train.empty()) continue;
      auto row = [&](const std::string& metric, const std::vector<double>& values, const std::string& unit) {
        csv_row(out, w.workload.name, f.framework, metric, summarize(values), stable, unit);
      };
      row("train", f.train, "samples/s");
      row("predict", f.predict, "samples/s");
      row("batch1_latency", f.latency_us, "us");
      if (train_flops > 0) {
        const std::vector<double> train_gflops = gflops(f.train, train_flops);
        row("train_gflops", train_gflops, "GFLOP/s");
        row("predict_gflops", gflops(f.predict, w.workload.predict_flops_per_sample()), "GFLOP/s");
        if (s.fma_peak.median() > 0) {
          row("train_fma_peak_share", scaled(train_gflops, 100 / s.fma_peak.median()), "% of FMA peak");
        }
      }
      row("last_loss", {f.last_loss}, "loss");
    }
  }
  for (const auto& g : s.gemm) {
    csv_row(out, "gemm_peak", g.backend, "gemm_" + g.shape, summarize(g.gflops), "", "GFLOP/s");
  }
  for (const auto& o : s.overhead) {
    if (!o.us.empty()) csv_row(out, "step_overhead", o.framework, "train_step_us", summarize(o.us), "", "us");
  }
}

void write_markdown(const std::string& path, const SuiteResults& s, const RunInfo& info) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "# Strata benchmark results\n\n"
      << "- command: `" << info.command << "`\n"
      << "- date: " << info.date << "\n"
      << "- CPU: " << info.cpu << "; " << info.threads << " threads\n"
      << "- kernels: " << info.kernel_paths << "\n";
  if (!info.gpu.empty()) out << "- GPU: " << info.gpu << "; " << info.precision << "\n";
  out
      << "- repetitions: " << info.reps << " to " << info.max_reps
      << " per workload, interleaved, until every median moves by <= " << percent(info.stable_within)
      << " with the last\n"
      << "- " << fma_peak_line(s.fma_peak, info.threads) << "\n"
      << "- " << gemm_peak_line(s) << "\n"
      << "- " << memory_limits_line(s.memory, info.threads) << "\n"
      << "- load (`uptime`) before: " << info.load_before << "; after: " << info.load_after << "\n"
      << "- versions: " << info.versions << "\n"
      << "- OMP_WAIT_POLICY=" << info.wait_policy << "\n";
  if (!info.keras_status.empty()) out << "- keras: " << info.keras_status << "\n";
  out << "\n" << legend() << " Keras's loss is fit's epoch mean.\n";
  out << "\n## Targets (" << targets_heading(s) << ")\n\n" << targets_table(s).markdown();
  if (const std::string floor = mlp_batch1_floor_line(s); !floor.empty()) out << "\n" << floor << "\n";
  for (const auto& w : s.workloads) {
    out << "\n## " << title(w.workload) << "\n\n" << repetitions_line(w) << "\n\n"
        << workload_table(w, s.fma_peak).markdown();
    for (const auto& line : ratio_lines(w)) out << "\n" << line << "\n";
    for (const auto& line : noise_warnings(w)) out << "\n" << line << "\n";
    for (const auto& f : w.frameworks) {
      if (!f.note.empty()) out << "\n" << f.framework << ": " << f.note << "\n";
    }
  }
  if (!s.gemm.empty()) {
    out << "\n## GEMM peak\n\n" << gemm_table(s.gemm).markdown();
    out << "\n" << gemm_peak_line(s) << "\n";
    if (const Table shares = gemm_share_table(s.gemm); !shares.rows.empty()) {
      out << "\n### cpu::gemm against the best library, per shape\n\n" << shares.markdown();
    }
  }
  if (!s.overhead.empty()) {
    out << "\n## Per-step host overhead\n\n";
    for (const auto& line : overhead_lines(s.overhead)) out << line << "\n\n";
  }
}

}  // namespace

double FmaPeak::median() const { return bench::median(gflops); }

std::vector<std::string> unsettled_medians(const WorkloadResult& r, double tolerance) {
  std::vector<std::string> out;
  for (const auto& f : r.frameworks) {
    if (!f.failed.empty() || f.train.empty()) continue;
    for (const Quantity& q : kQuantities) {
      const double shift = last_median_shift(f.*q.values);
      if (!(shift <= tolerance)) {
        out.push_back(f.framework + " " + q.name + " (" + (std::isinf(shift) ? "one value" : percent(shift)) + ")");
      }
    }
  }
  return out;
}

std::string legend() {
  return "Each cell: the median over the repetitions (min..max, spread), spread = (max - min) / median. "
         "GFLOP/s and % of FMA peak convert the samples/s median, counting the model's matrix products "
         "(bench/workload.cc). A ratio is (uncertain) when the two frameworks' ranges overlap, a target when "
         "Strata's range overlaps the other's times the target; the ranges are the interquartile ranges with 4 or "
         "more repetitions, else min..max.";
}

std::string fma_peak_line(const FmaPeak& peak, int threads) {
  if (peak.gflops.empty()) return "FMA peak: not measured";
  return "FMA peak: " + with_range(summarize(peak.gflops)) + " GFLOP/s over " + std::to_string(peak.gflops.size()) +
         " trials, " + peak.instructions + " on " + std::to_string(threads) + " threads";
}

std::string memory_limits_line(const MemoryLimits& memory, int threads) {
  if (memory.read_gbps.empty()) return "Cache read: not measured";
  std::string line = "Cache read: " + with_range(summarize(memory.read_gbps)) + " GB/s on " +
                     std::to_string(threads) + " threads, " + std::to_string(memory.bytes_per_thread / 1024) +
                     " KB each";
  if (!memory.round_trip_ns.empty()) {
    line += "; core-to-core round trip: " + with_range(summarize(memory.round_trip_ns)) + " ns";
  }
  return line;
}

// Each of the MLP's batch-1 layers reads its weights once (4 bytes for one multiply-add).
// On one core a layer takes at least its bytes over one core's read rate; split over all
// of them, its bytes over their combined rate plus one round trip between cores (the
// other core must learn that there is work and the caller that it is done). The floor
// takes the better of the two for each layer; everything else a prediction does counts
// as free.
std::string mlp_batch1_floor_line(const SuiteResults& s) {
  const WorkloadResult* w = find(s, "mlp");
  if (!w || s.memory.read_gbps.empty()) return "";
  const Workload& m = w->workload;
  const double all_cores = median(s.memory.read_gbps) * 1e3;  // bytes per µs
  const double one_core = all_cores / s.threads;
  const double round_trip = s.memory.round_trip_ns.empty() ? 0 : median(s.memory.round_trip_ns) / 1e3;
  double bytes = 0, floor_us = 0;
  // At batch 1 each layer's product multiplies every weight of its kernel once: its
  // multiply-adds per sample are its weights.
  for (const Product& p : products(m)) {
    const double b = 4.0 * p.multiply_adds;
    bytes += b;
    floor_us += s.threads > 1 && !s.memory.round_trip_ns.empty() ? std::min(b / one_core, b / all_cores + round_trip)
                                                                  : b / one_core;
  }
  std::string line = "MLP batch-1 floor on this machine (" + fmt("%.2f MB", bytes / 1e6) +
                     " of weights at the cache read rate, one core-to-core round trip per layer split over the "
                     "cores): " + fmt("%.2f us", floor_us);
  for (const char* framework : {"strata", "libtorch"}) {
    const FrameworkResult* f = find(*w, framework);
    if (f && !f->latency_us.empty()) {
      line += "; " + std::string(framework) + " " + fmt("%.2f us", median(f->latency_us));
    }
  }
  if (const FrameworkResult* torch = find(*w, "libtorch"); torch && !torch->latency_us.empty()) {
    line += fmt(" (the floor is %.2fx libtorch's latency)", floor_us / median(torch->latency_us));
  }
  return line;
}

void print_workload(const WorkloadResult& r, const FmaPeak& fma_peak) {
  std::printf("\n%s: %s\n%s", title(r.workload).c_str(), repetitions_line(r).c_str(),
              workload_table(r, fma_peak).text().c_str());
  for (const auto& f : r.frameworks) {
    if (!f.note.empty()) std::printf("%s: %s\n", f.framework.c_str(), f.note.c_str());
  }
  for (const auto& line : ratio_lines(r)) std::printf("%s\n", line.c_str());
  for (const auto& line : noise_warnings(r)) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void print_gemm(const std::vector<GemmResult>& gemm) {
  std::printf("\ngemm_peak\n%s", gemm_table(gemm).text().c_str());
  std::printf("peak (best median): %.1f GFLOP/s\n", gemm_peak(gemm));
  if (const Table shares = gemm_share_table(gemm); !shares.rows.empty()) {
    std::printf("\ncpu::gemm against the best library, per shape\n%s", shares.text().c_str());
  }
  std::fflush(stdout);
}

std::vector<std::string> overhead_lines(const std::vector<OverheadResult>& overhead) {
  std::string line = "per-step host overhead (Dense(" + std::to_string(kOverheadUnits) + ") on " +
                     std::to_string(kOverheadUnits) + " features, batch " + std::to_string(kOverheadBatch) +
                     ", MSE, SGD; median us per training step, the loss read back each step):";
  for (std::size_t i = 0; i < overhead.size(); ++i) {
    const OverheadResult& o = overhead[i];
    line += std::string(i ? "," : "") + " " + o.framework + " " +
            (o.failed.empty() ? with_range(summarize(o.us)) + " us" : "failed: " + o.failed);
  }
  // CUDA graphs: "strata" is measured with them on (the default), kStrataWithoutGraphs
  // with them off, on a GPU only.
  const OverheadResult* with_graphs = nullptr;
  const OverheadResult* without_graphs = nullptr;
  for (const OverheadResult& o : overhead) {
    if (o.framework == "strata") with_graphs = &o;
    if (o.framework == kStrataWithoutGraphs) without_graphs = &o;
  }
  if (!without_graphs) {
    return {line, "with and without CUDA graphs: not compared (only on --device=cuda)"};
  }
  if (!with_graphs || with_graphs->us.empty() || without_graphs->us.empty()) {
    return {line, "with and without CUDA graphs: not compared (a measurement failed)"};
  }
  const double on = summarize(with_graphs->us).median, off = summarize(without_graphs->us).median;
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%.2fx", off / on);
  return {line, "CUDA graphs: strata's step takes " + with_range(summarize(with_graphs->us)) + " us with them, " +
                    with_range(summarize(without_graphs->us)) + " us without (" + ratio +
                    " less host time per step with them)"};
}

double dense_gemm_share_target(BenchDevice device) { return device == BenchDevice::cuda ? 0.8 : 0.7; }

void print_targets(const SuiteResults& results) {
  std::printf("\n%s\n%s\n", fma_peak_line(results.fma_peak, results.threads).c_str(), gemm_peak_line(results).c_str());
  std::printf("%s\n", memory_limits_line(results.memory, results.threads).c_str());
  std::printf("\nTargets (%s)\n%s", targets_heading(results).c_str(), targets_table(results).text().c_str());
  if (const std::string floor = mlp_batch1_floor_line(results); !floor.empty()) std::printf("%s\n", floor.c_str());
}

void write_results(const std::string& dir, const SuiteResults& results, const RunInfo& info) {
  std::filesystem::create_directories(dir);
  write_csv(dir + "/results.csv", results);
  write_markdown(dir + "/results.md", results, info);
  std::printf("\nwrote %s/results.csv and %s/results.md\n", dir.c_str(), dir.c_str());
}

}  // namespace strata::bench
