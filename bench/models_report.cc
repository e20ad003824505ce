// The real-model benchmark's report (see models_report.h).
#include "bench/models_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bench/stats.h"
#include "bench/table.h"

namespace strata::bench {
namespace {

// Three significant figures or so, from 0.1 ms to seconds.
std::string milliseconds(double seconds) {
  const double ms = seconds * 1e3;
  return fmt(ms >= 100 ? "%.0f" : ms >= 10 ? "%.1f" : "%.2f", ms);
}

std::vector<double> ran_rounds(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) {
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

// "median (min..max)" of the rounds, through `show`.
template <typename Show>
std::string spread(const std::vector<double>& values, Show show) {
  if (values.empty()) return "-";
  const Summary s = summarize(values);
  return show(s.median) + " (" + show(s.min) + ".." + show(s.max) + ")";
}

std::string ratio(double r) { return fmt("%.2f", r) + "x"; }

const EngineOnModel* strata_of(const ModelResult& m) {
  for (const EngineOnModel& e : m.engines) {
    if (e.engine == "strata" && e.ran()) return &e;
  }
  return nullptr;
}

Table make_table(const std::vector<ModelResult>& results, double keras_tolerance) {
  Table t{{"model", "batch", "engine", "latency ms (min..max)", "samples/s", "strata/engine (min..max)",
           "max |diff|", "max rel diff", "load s", "peak RSS MB"},
          {}};
  for (const ModelResult& m : results) {
    const EngineOnModel* strata = strata_of(m);
    for (std::size_t b = 0; b < kModelBatches.size(); ++b) {
      for (std::size_t i = 0; i < m.engines.size(); ++i) {
        const EngineOnModel& e = m.engines[i];
        std::vector<std::string> row(t.headers.size(), "");
        if (b == 0 && i == 0) row[0] = m.model + " (" + m.sample_shape + ")";
        if (i == 0) row[1] = std::to_string(kModelBatches[b]);
        row[2] = e.engine;
        if (!e.ran()) {
          row[3] = "not run (notes)";
          t.rows.push_back(row);
          continue;
        }
        const std::vector<double> seconds = ran_rounds(e.round_seconds[b]);
        row[3] = spread(seconds, milliseconds);
        if (!seconds.empty()) row[4] = fmt("%.1f", kModelBatches[b] / summarize(seconds).median);
        if (strata && &e != strata) {
          row[5] = spread(round_ratios(*strata, e, b), ratio);
          if (const auto& d = e.difference[b]) {
            if (!d->mismatch.empty()) {
              row[6] = d->mismatch;
            } else {
              row[6] = fmt("%.2e", d->max_abs);
              row[7] = fmt("%.2e", d->max_rel);
              if (e.engine == "keras" && !(d->max_rel <= keras_tolerance)) row[7] += " MISMATCH";
            }
          }
        }
        if (b == 0) {
          row[8] = fmt("%.2f", e.load_seconds);
          row[9] = fmt("%.0f", e.peak_rss_mb);
        }
        t.rows.push_back(row);
      }
    }
  }
  return t;
}

std::vector<std::string> notes(const std::vector<ModelResult>& results) {
  std::vector<std::string> out;
  for (const ModelResult& m : results) {
    for (const EngineOnModel& e : m.engines) {
      if (!e.not_run.empty()) out.push_back(e.engine + " on " + m.model + ": not run: " + e.not_run);
      if (!e.failed.empty()) out.push_back(e.engine + " on " + m.model + ": failed: " + e.failed);
    }
  }
  // Which call each engine timed: one line per engine when it never changed, else per
  // model and batch (Keras keeps the faster of two calls per input shape).
  std::vector<std::string> engines;
  for (const ModelResult& m : results) {
    for (const EngineOnModel& e : m.engines) {
      if (std::find(engines.begin(), engines.end(), e.engine) == engines.end()) engines.push_back(e.engine);
    }
  }
  for (const std::string& engine : engines) {
    std::vector<std::string> each, distinct;
    for (const ModelResult& m : results) {
      for (const EngineOnModel& e : m.engines) {
        for (std::size_t b = 0; e.engine == engine && b < kModelBatches.size(); ++b) {
          if (e.how[b].empty()) continue;
          each.push_back(m.model + " b" + std::to_string(kModelBatches[b]) + ": " + e.how[b]);
          if (std::find(distinct.begin(), distinct.end(), e.how[b]) == distinct.end()) distinct.push_back(e.how[b]);
        }
      }
    }
    if (distinct.empty()) continue;
    std::string line = engine + " timed ";
    for (const std::string& c : distinct.size() == 1 ? distinct : each) line += c + ", ";
    out.push_back(line.substr(0, line.size() - 2));
  }
  return out;
}

void write_csv(const std::string& path, const std::vector<ModelResult>& results) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "model,batch,engine,metric,median,min,max,rounds,unit,note\n";
  auto row = [&](const std::string& model, std::int64_t batch, const std::string& engine, const std::string& metric,
                 const std::vector<double>& values, const std::string& unit, const std::string& note) {
    const Summary s = summarize(values);
    out << model << "," << batch << "," << engine << "," << metric << "," << s.median << "," << s.min << ","
        << s.max << "," << s.n << "," << unit << ",\"" << note << "\"\n";
  };
  for (const ModelResult& m : results) {
    const EngineOnModel* strata = strata_of(m);
    for (const EngineOnModel& e : m.engines) {
      if (!e.ran()) {
        out << m.model << ",0," << e.engine << ",not_run,,,,0,,\"" << e.not_run << "\"\n";
        continue;
      }
      row(m.model, 1, e.engine, "load_to_first_prediction", {e.load_seconds}, "s", "");
      row(m.model, 0, e.engine, "peak_rss", {e.peak_rss_mb}, "MB", "");
      for (std::size_t b = 0; b < kModelBatches.size(); ++b) {
        const std::int64_t batch = kModelBatches[b];
        const std::vector<double> seconds = ran_rounds(e.round_seconds[b]);
        if (seconds.empty()) continue;
        std::vector<double> ms, per_second;
        for (double s : seconds) {
          ms.push_back(s * 1e3);
          per_second.push_back(static_cast<double>(batch) / s);
        }
        row(m.model, batch, e.engine, "latency", ms, "ms", e.how[b]);
        row(m.model, batch, e.engine, "throughput", per_second, "samples/s", "");
        if (strata && &e != strata) {
          const std::vector<double> ratios = round_ratios(*strata, e, b);
          if (!ratios.empty()) row(m.model, batch, e.engine, "strata_over_engine_latency", ratios, "x", "");
          if (const auto& d = e.difference[b]; d && d->mismatch.empty()) {
            row(m.model, batch, e.engine, "max_abs_diff_vs_strata", {d->max_abs}, "", "");
            row(m.model, batch, e.engine, "max_rel_diff_vs_strata", {d->max_rel}, "of max |output|", "");
          }
        }
      }
      if (!e.failed.empty()) out << m.model << ",0," << e.engine << ",failed,,,,0,,\"" << e.failed << "\"\n";
    }
  }
}

void write_markdown(const std::string& path, const std::vector<ModelResult>& results, const ModelsRunInfo& info) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "# Real models: Strata vs ONNX Runtime vs Keras (TensorFlow)\n\n"
      << "`" << info.command << "`\n\n"
      << "- date: " << info.date << "\n- CPU: " << info.cpu << "\n- Strata's GEMM kernels: " << info.strata_kernels
      << "\n- threads: " << info.threads
      << " per engine, each engine its own process\n- rounds: " << info.reps << " (engine order rotating), each "
      << info.calls_batch1 << " batch-1 and " << info.calls_batch32
      << " batch-32 predictions after warm-up calls for at least 0.2 s; a figure is the median of the rounds' medians\n"
      << "- load before: " << info.load_before << "\n- load after: " << info.load_after << "\n- versions:";
  for (const std::string& v : info.versions) out << " " << v << ";";
  out << "\n\nstrata/engine is Strata's latency over the engine's, per round (< 1: Strata faster); "
         "max rel diff is max |strata - engine| over max |engine|, checked against Keras at "
      << info.keras_tolerance << ". Load s: from the start of loading the file to the end of the first "
         "batch-1 prediction. Peak RSS: the engine's process over its life (interpreter and libraries "
         "included).\n\n"
      << make_table(results, info.keras_tolerance).markdown() << "\n";
  for (const std::string& n : notes(results)) out << "- " << n << "\n";
}

}  // namespace

std::vector<double> round_ratios(const EngineOnModel& strata, const EngineOnModel& other, std::size_t b) {
  std::vector<double> out;
  const auto& s = strata.round_seconds[b];
  const auto& o = other.round_seconds[b];
  for (std::size_t r = 0; r < std::min(s.size(), o.size()); ++r) {
    if (!std::isnan(s[r]) && !std::isnan(o[r]) && o[r] > 0) out.push_back(s[r] / o[r]);
  }
  return out;
}

std::vector<std::string> keras_mismatches(const std::vector<ModelResult>& results, double tolerance) {
  std::vector<std::string> out;
  for (const ModelResult& m : results) {
    for (const EngineOnModel& e : m.engines) {
      if (e.engine != "keras") continue;
      for (std::size_t b = 0; b < kModelBatches.size(); ++b) {
        const auto& d = e.difference[b];
        if (!d) continue;
        const std::string where = m.model + " at batch " + std::to_string(kModelBatches[b]);
        if (!d->mismatch.empty()) {
          out.push_back(where + ": " + d->mismatch);
        } else if (!(d->max_rel <= tolerance)) {
          out.push_back(where + ": max |strata - keras| = " + fmt("%.3g", d->max_abs) + ", " +
                        fmt("%.3g", d->max_rel) + " of the output's magnitude (tolerance " +
                        fmt("%g", tolerance) + ")");
        }
      }
    }
  }
  return out;
}

std::string models_table(const std::vector<ModelResult>& results, double keras_tolerance) {
  std::string out = make_table(results, keras_tolerance).text();
  for (const std::string& n : notes(results)) out += "  " + n + "\n";
  return out;
}

void write_models_results(const std::string& dir, const std::vector<ModelResult>& results,
                          const ModelsRunInfo& info) {
  std::filesystem::create_directories(dir);
  write_csv(dir + "/models.csv", results);
  write_markdown(dir + "/models.md", results, info);
  std::printf("\nwrote %s/models.csv and %s/models.md\n", dir.c_str(), dir.c_str());
}

}  // namespace strata::bench
