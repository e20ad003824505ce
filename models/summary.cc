// Model::summary: Keras 3's table — name (type), output shape, params, and for
// functional models what each layer is connected to; then the parameter totals.
#include <iostream>
#include <sstream>

#include "layers/core/input_layer.h"
#include "models/model.h"
#include "models/sequential.h"

namespace strata {

namespace {

std::string with_commas(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (count && count % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++count;
  }
  return out;
}

std::string readable_bytes(std::int64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

// Display width of a UTF-8 string (box characters count as one column).
std::size_t width_of(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  std::size_t w = width_of(s);
  std::string fill(w < width ? width - w : 0, ' ');
  return right ? fill + s : s + fill;
}

std::string repeat(const char* glyph, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += glyph;
  return s;
}

}  // namespace

std::string Model::summary_string() const {
  ModelImpl& m = model();
  const bool sequential = dynamic_cast<const SequentialImpl*>(&m) != nullptr;
  std::vector<std::size_t> widths = sequential ? std::vector<std::size_t>{31, 22, 13}
                                               : std::vector<std::size_t>{29, 20, 11, 20};
  std::vector<std::string> header = {"Layer (type)", "Output Shape", "Param #"};
  if (!sequential) header.push_back("Connected to");

  // Each row: a layer and the shape(s) of its first call.
  std::vector<std::vector<std::string>> rows;
  std::vector<Layer> shown = sequential ? static_cast<const SequentialImpl&>(m).stack : m.layers;
  for (const auto& layer : shown) {
    std::string shape, connected;
    if (layer.class_name() == "InputLayer") {
      shape = static_cast<const InputLayerImpl&>(layer.impl()).spec.shape.to_string();
      connected = "-";
    }
    for (const auto& c : m.calls) {
      if (!(c->layer == layer)) continue;
      for (std::size_t i = 0; i < c->outputs.size(); ++i) shape += (i ? ", " : "") + c->outputs[i].shape.to_string();
      for (const auto& in : c->inputs) {
        connected += (connected.empty() ? "" : ", ") + in.call()->layer.name() + "[0][" + std::to_string(in.index()) + "]";
      }
      break;
    }
    if (shape.empty()) shape = "?";
    std::vector<std::string> row = {layer.name() + " (" + layer.class_name() + ")", shape, with_commas(layer.count_params())};
    if (!sequential) row.push_back(connected.empty() ? "-" : connected);
    rows.push_back(row);
  }
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], width_of(row[i]));
  }

  auto rule = [&](const char* left, const char* mid, const char* right, const char* line) {
    std::string s = left;
    for (std::size_t i = 0; i < widths.size(); ++i) s += repeat(line, widths[i] + 2) + (i + 1 < widths.size() ? mid : right);
    return s + "\n";
  };
  auto cells = [&](const std::vector<std::string>& r, const char* bar) {
    std::string s = bar;
    for (std::size_t i = 0; i < r.size(); ++i) s += " " + pad(r[i], widths[i], i == 2) + " " + bar;
    return s + "\n";
  };

  std::ostringstream out;
  out << "Model: \"" << m.name << "\"\n";
  out << rule("\u250F", "\u2533", "\u2513", "\u2501");
  out << cells(header, "\u2503");
  out << rule("\u2521", "\u2547", "\u2529", "\u2501");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out << cells(rows[r], "\u2502");
    if (r + 1 < rows.size()) out << rule("\u251C", "\u253C", "\u2524", "\u2500");
  }
  out << rule("\u2514", "\u2534", "\u2518", "\u2500");
  std::int64_t trainable = 0, non_trainable = 0;
  for (const auto& v : trainable_weights()) trainable += v.value().size();
  for (const auto& v : non_trainable_weights()) non_trainable += v.value().size();
  auto total_line = [&](const char* label, std::int64_t n) {
    out << " " << label << ": " << with_commas(n) << " (" << readable_bytes(n * 4) << ")\n";
  };
  total_line("Total params", trainable + non_trainable);
  total_line("Trainable params", trainable);
  total_line("Non-trainable params", non_trainable);
  return out.str();
}

void Model::summary(std::ostream& out) const { out << summary_string(); }
void Model::summary() const { summary(std::cout); }

}  // namespace strata
