// Console tables, targets, CSV and Markdown for the suite (see report.h). Each table is
// built once as strings and rendered twice, as aligned text and as Markdown, so the
// console and results.md cannot disagree.
#include "bench/report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace strata::bench {
namespace {

struct Stats {
  double median = 0, min = 0, max = 0;
  int n = 0;
};

Stats stats_of(const std::vector<double>& v) {
  if (v.empty()) return {};
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {bench::median(v), *lo, *hi, static_cast<int>(v.size())};
}

std::string fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

// "12345 (12000..12500)", with the precision a value of that size deserves.
std::string with_range(const Stats& s) {
  if (s.n == 0) return "-";
  const char* f = s.median >= 100 ? "%.0f" : "%.1f";
  return fmt(f, s.median) + " (" + fmt(f, s.min) + ".." + fmt(f, s.max) + ")";
}

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;

  std::string text() const {
    std::vector<std::size_t> width(headers.size());
    for (std::size_t c = 0; c < headers.size(); ++c) {
      width[c] = headers[c].size();
      for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
    }
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t c = 0; c < cells.size(); ++c) {
        out += cells[c] + std::string(width[c] - cells[c].size() + 2, ' ');
      }
      out += "\n";
    };
    line(headers);
    for (const auto& row : rows) line(row);
    return out;
  }

  std::string markdown() const {
    auto line = [](const std::vector<std::string>& cells) {
      std::string s = "|";
      for (const auto& c : cells) s += " " + c + " |";
      return s + "\n";
    };
    std::string out = line(headers) + "|";
    for (std::size_t c = 0; c < headers.size(); ++c) out += "---|";
    out += "\n";
    for (const auto& row : rows) out += line(row);
    return out;
  }
};

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

// samples/s -> GFLOP/s for the workloads that count flops.
std::vector<double> gflops(const std::vector<double>& samples_per_s, double flops_per_sample) {
  std::vector<double> g;
  for (double s : samples_per_s) g.push_back(s * flops_per_sample / 1e9);
  return g;
}

Table workload_table(const WorkloadResult& r) {
  const bool flops = r.workload.train_flops_per_sample() > 0;
  Table t{{"framework", "train samples/s", "predict samples/s", "batch-1 us", "last loss"}, {}};
  if (flops) {
    t.headers.insert(t.headers.begin() + 3, "train GFLOP/s");
    t.headers.insert(t.headers.begin() + 4, "predict GFLOP/s");
  }
  for (const auto& f : r.frameworks) {
    std::vector<std::string> row{f.framework, with_range(stats_of(f.train)), with_range(stats_of(f.predict)),
                                 with_range(stats_of(f.latency_us)), fmt("%.4g", f.last_loss)};
    if (flops) {
      row.insert(row.begin() + 3, with_range(stats_of(gflops(f.train, r.workload.train_flops_per_sample()))));
      row.insert(row.begin() + 4, with_range(stats_of(gflops(f.predict, r.workload.predict_flops_per_sample()))));
    }
    if (!f.failed.empty()) row = {f.framework, "failed: " + f.failed, "", "", ""};
    row.resize(t.headers.size());
    t.rows.push_back(row);
  }
  return t;
}

// "strata/libtorch: train 1.38x, predict 1.10x (>1: Strata faster), batch-1 latency
// 0.66x (<1: Strata faster)" for each other framework that ran.
std::vector<std::string> ratio_lines(const WorkloadResult& r) {
  std::vector<std::string> lines;
  const FrameworkResult* strata = find(r, "strata");
  if (!strata) return lines;
  for (const auto& other : r.frameworks) {
    if (other.framework == "strata" || other.train.empty()) continue;
    auto ratio = [](const std::vector<double>& a, const std::vector<double>& b) {
      return fmt("%.2fx", bench::median(a) / bench::median(b));
    };
    lines.push_back("strata/" + other.framework + ": train " + ratio(strata->train, other.train) + ", predict " +
                    ratio(strata->predict, other.predict) + " (>1: Strata faster); batch-1 latency " +
                    ratio(strata->latency_us, other.latency_us) + " (<1: Strata faster)");
  }
  return lines;
}

std::vector<std::string> noise_warnings(const WorkloadResult& r) {
  std::vector<std::string> lines;
  for (const auto& f : r.frameworks) {
    for (const auto& [what, values] : {std::pair{"training throughput", &f.train},
                                       std::pair{"inference throughput", &f.predict},
                                       std::pair{"batch-1 latency", &f.latency_us}}) {
      const Stats s = stats_of(*values);
      if (s.n > 1 && s.max > 1.5 * s.min) {
        lines.push_back("warning: " + f.framework + "'s " + what + " varied " + fmt("%.1fx", s.max / s.min) +
                        " across repetitions: the machine is noisy; compare ratios or rerun with more --reps");
      }
    }
  }
  return lines;
}

Table gemm_table(const std::vector<GemmResult>& gemm) {
  Table t{{"GEMM (float32)", "m x n x k", "GFLOP/s"}, {}};
  for (const auto& g : gemm) t.rows.push_back({g.backend, g.shape, with_range(stats_of(g.gflops))});
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

double gemm_peak(const std::vector<GemmResult>& gemm) {
  double peak = 0;
  for (const auto& g : gemm) peak = std::max(peak, bench::median(g.gflops));
  return peak;
}

struct Target {
  std::string what;
  std::string measured;  // "" when not run
  std::string target;
  bool pass = false;
};

std::vector<Target> targets(const SuiteResults& s) {
  std::vector<Target> out;
  auto ratio_target = [&](const std::string& workload, bool latency, double bound) {
    Target t{workload + (latency ? " batch-1 latency, strata/libtorch" : " training throughput, strata/libtorch"), "",
             (latency ? "<= " : ">= ") + fmt("%.1fx", bound)};
    const WorkloadResult* w = find(s, workload);
    const FrameworkResult* a = w ? find(*w, "strata") : nullptr;
    const FrameworkResult* b = w ? find(*w, "libtorch") : nullptr;
    if (a && b) {
      const double r = latency ? bench::median(a->latency_us) / bench::median(b->latency_us)
                               : bench::median(a->train) / bench::median(b->train);
      t.measured = fmt("%.2fx", r);
      t.pass = latency ? r <= bound : r >= bound;
    }
    out.push_back(t);
  };
  ratio_target("mlp", false, 1.2);
  ratio_target("lstm", false, 1.2);
  ratio_target("bilstm", false, 1.0);
  ratio_target("cnn", false, 1.0);
  ratio_target("mlp", true, 0.3);
  ratio_target("lstm", true, 0.3);
  const double peak = gemm_peak(s.gemm);
  for (const char* phase : {"predict", "train"}) {
    Target t{std::string("dense4096 ") + phase + " GFLOP/s, share of GEMM peak", "", ">= 70%"};
    const WorkloadResult* w = find(s, "dense4096");
    const FrameworkResult* f = w ? find(*w, "strata") : nullptr;
    if (f && peak > 0) {
      const bool train = std::string(phase) == "train";
      const double g = bench::median(train ? f->train : f->predict) *
                       (train ? w->workload.train_flops_per_sample() : w->workload.predict_flops_per_sample()) / 1e9;
      t.measured = fmt("%.0f%%", 100 * g / peak) + fmt(" (%.1f", g) + fmt(" of %.1f)", peak);
      t.pass = g >= 0.7 * peak;
    } else if (f) {
      t.measured = "";
      t.target += " (run gemm_peak too)";
    }
    out.push_back(t);
  }
  return out;
}

Table targets_table(const SuiteResults& s) {
  Table t{{"target (float32, " + std::to_string(s.threads) + " threads)", "measured", "target", "result"}, {}};
  for (const Target& x : targets(s)) {
    t.rows.push_back({x.what, x.measured.empty() ? "not run" : x.measured, x.target,
                      x.measured.empty() ? "-" : (x.pass ? "PASS" : "MISS")});
  }
  return t;
}

std::string title(const Workload& w) {
  std::string shape;
  for (std::int64_t d : w.sample_shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  return w.name + ": input " + shape + ", batch " + std::to_string(w.batch_size) + ", " + std::to_string(w.samples) +
         " samples/epoch";
}

void csv_row(std::ofstream& out, const std::string& workload, const std::string& framework,
             const std::string& metric, const Stats& s, const std::string& unit) {
  out << workload << ',' << framework << ',' << metric << ',' << s.median << ',' << s.min << ',' << s.max << ','
      << s.n << ',' << unit << '\n';
}

void write_csv(const std::string& path, const SuiteResults& s) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "workload,framework,metric,median,min,max,reps,unit\n";
  for (const auto& w : s.workloads) {
    for (const auto& f : w.frameworks) {
      if (f.train.empty()) continue;
      csv_row(out, w.workload.name, f.framework, "train", stats_of(f.train), "samples/s");
      csv_row(out, w.workload.name, f.framework, "predict", stats_of(f.predict), "samples/s");
      csv_row(out, w.workload.name, f.framework, "batch1_latency", stats_of(f.latency_us), "us");
      if (w.workload.train_flops_per_sample() > 0) {
        csv_row(out, w.workload.name, f.framework, "train_gflops",
                stats_of(gflops(f.train, w.workload.train_flops_per_sample())), "GFLOP/s");
        csv_row(out, w.workload.name, f.framework, "predict_gflops",
                stats_of(gflops(f.predict, w.workload.predict_flops_per_sample())), "GFLOP/s");
      }
      csv_row(out, w.workload.name, f.framework, "last_loss", stats_of({f.last_loss}), "loss");
    }
  }
  for (const auto& g : s.gemm) csv_row(out, "gemm_peak", g.backend, "gemm_" + g.shape, stats_of(g.gflops), "GFLOP/s");
  if (!s.gemm.empty()) csv_row(out, "gemm_peak", "best", "peak", stats_of({gemm_peak(s.gemm)}), "GFLOP/s");
}

void write_markdown(const std::string& path, const SuiteResults& s, const RunInfo& info) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "# Strata benchmark results\n\n"
      << "- command: `" << info.command << "`\n"
      << "- date: " << info.date << "\n"
      << "- CPU: " << info.cpu << "; " << info.threads << " threads; " << info.reps << " repetitions, interleaved\n"
      << "- load (`uptime`) before: " << info.load_before << "; after: " << info.load_after << "\n"
      << "- versions: " << info.versions << "\n"
      << "- OMP_WAIT_POLICY=" << info.wait_policy << "\n";
  if (!info.keras_status.empty()) out << "- keras: " << info.keras_status << "\n";
  out << "\nMedians over the repetitions, (min..max) in brackets. Keras's loss is fit's epoch mean.\n";
  out << "\n## Targets (issue #7)\n\n" << targets_table(s).markdown();
  for (const auto& w : s.workloads) {
    out << "\n## " << title(w.workload) << "\n\n" << workload_table(w).markdown();
    for (const auto& line : ratio_lines(w)) out << "\n" << line << "\n";
    for (const auto& line : noise_warnings(w)) out << "\n" << line << "\n";
    for (const auto& f : w.frameworks) {
      if (!f.note.empty()) out << "\n" << f.framework << ": " << f.note << "\n";
    }
  }
  if (!s.gemm.empty()) {
    out << "\n## GEMM peak\n\n" << gemm_table(s.gemm).markdown();
    out << "\npeak (best median): " << fmt("%.1f", gemm_peak(s.gemm)) << " GFLOP/s\n";
    out << "\n### cpu::gemm against the best library, per shape\n\n" << gemm_share_table(s.gemm).markdown();
  }
}

}  // namespace

void print_workload(const WorkloadResult& r) {
  std::printf("\n%s\n%s", title(r.workload).c_str(), workload_table(r).text().c_str());
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
  std::printf("\ncpu::gemm against the best library, per shape\n%s", gemm_share_table(gemm).text().c_str());
  std::fflush(stdout);
}

void print_targets(const SuiteResults& results) {
  std::printf("\nTargets (issue #7)\n%s", targets_table(results).text().c_str());
}

void write_results(const std::string& dir, const SuiteResults& results, const RunInfo& info) {
  std::filesystem::create_directories(dir);
  write_csv(dir + "/results.csv", results);
  write_markdown(dir + "/results.md", results, info);
  std::printf("\nwrote %s/results.csv and %s/results.md\n", dir.c_str(), dir.c_str());
}

}  // namespace strata::bench
