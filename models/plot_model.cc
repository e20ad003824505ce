#include "models/plot_model.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"

namespace strata {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string shapes(const std::vector<TensorSpec>& specs, bool dtype) {
  std::string s;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    s += (i ? ", " : "") + specs[i].shape.to_string();
    if (dtype) s += " " + to_string(specs[i].dtype);
  }
  return specs.size() > 1 ? "[" + s + "]" : s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string model_to_dot(const Model& model, const PlotModelOptions& o) {
  if (o.rankdir != "TB" && o.rankdir != "LR") {
    throw ValueError("plot_model: rankdir must be 'TB' or 'LR', got '" + o.rankdir + "'");
  }
  const ModelImpl& m = model.model();
  std::ostringstream dot;
  dot << "digraph \"" << escape(model.name()) << "\" {\n"
      << "  graph [rankdir=" << o.rankdir << ", dpi=" << o.dpi << "];\n"
      << "  node [shape=record, fontname=\"Helvetica\"];\n";
  std::map<const LayerImpl*, std::string> ids;
  auto id_of = [&](const Layer& l) {
    auto [it, fresh] = ids.emplace(&l.impl(), "layer_" + std::to_string(ids.size()));
    return it->second;
  };
  auto node = [&](const Layer& layer, const std::vector<TensorSpec>& in, const std::vector<TensorSpec>& out) {
    std::string title = o.show_layer_names ? layer.name() + " (" + layer.class_name() + ")" : layer.class_name();
    std::string label = escape(title);
    if (o.show_shapes) {
      label = "{" + escape(title) + "|{{Input shape:|" + escape(shapes(in, o.show_dtype)) + "}|{Output shape:|" +
              escape(shapes(out, o.show_dtype)) + "}}}";
    }
    dot << "  " << id_of(layer) << " [label=\"" << label << "\"];\n";
  };
  for (const auto& in : m.inputs) {
    const auto& call = *in.call();
    node(call.layer, call.outputs, call.outputs);
  }
  std::ostringstream edges;
  for (const auto& call : m.calls) {
    std::vector<TensorSpec> in;
    for (const auto& t : call->inputs) in.push_back(t.spec());
    if (!ids.count(&call->layer.impl())) node(call->layer, in, call->outputs);
    for (const auto& t : call->inputs) {
      edges << "  " << id_of(t.call()->layer) << " -> " << id_of(call->layer) << ";\n";
    }
  }
  dot << edges.str() << "}\n";
  return dot.str();
}

void plot_model(const Model& model, const std::string& to_file, const PlotModelOptions& options) {
  std::string text = model_to_dot(model, options);
  std::string tmp = to_file + ".tmp";
  std::string format;
  for (const char* f : {"png", "svg", "pdf"}) {
    if (ends_with(to_file, std::string(".") + f)) format = f;
  }
  if (format.empty() && !ends_with(to_file, ".dot")) {
    throw ValueError("plot_model: to_file must end in .png, .svg, .pdf or .dot, got '" + to_file + "'");
  }
  std::string dot_file = format.empty() ? tmp : to_file + ".dot.tmp";
  {
    std::ofstream out(dot_file);
    if (!out) throw IOError("plot_model: cannot write '" + dot_file + "'");
    out << text;
  }
  if (!format.empty()) {
    if (std::system("command -v dot > /dev/null 2>&1") != 0) {
      std::filesystem::remove(dot_file);
      throw IOError("plot_model: Graphviz's `dot` is not installed, so '" + to_file +
                    "' cannot be rendered (install graphviz, e.g. apt-get install graphviz), or pass a '.dot' file name "
                    "to get the DOT text");
    }
    std::string cmd = "dot -T" + format + " '" + dot_file + "' -o '" + tmp + "'";
    int rc = std::system(cmd.c_str());
    std::filesystem::remove(dot_file);
    if (rc != 0) throw IOError("plot_model: `" + cmd + "` failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, to_file, ec);
  if (ec) throw IOError("plot_model: cannot write '" + to_file + "': " + ec.message());
}

}  // namespace strata
