// plot_model: the layer graph as Graphviz DOT, like keras.utils.plot_model — one box per
// layer ("name (ClassName)"), arrows along the layer calls, and with show_shapes each
// box's input and output shapes ("(None, 4)"). model_to_dot returns the DOT text;
// plot_model writes it, or renders it with Graphviz's `dot` when the file name ends in
// .png, .svg or .pdf.
#pragma once

#include <string>

#include "models/model.h"

namespace strata {

// Fields in the order of Keras's signature.
struct PlotModelOptions {
  bool show_shapes = false;
  bool show_dtype = false;
  bool show_layer_names = true;
  std::string rankdir = "TB";  // "TB" top to bottom, "LR" left to right
  int dpi = 200;
};

std::string model_to_dot(const Model& model, const PlotModelOptions& options = {});

// `to_file` ending in ".dot" gets the DOT text; ".png", ".svg", ".pdf" are rendered by
// running `dot` (Graphviz) on it. Throws IOError when `dot` is not installed (saying so
// and suggesting a .dot file) or fails; the output file is written atomically.
void plot_model(const Model& model, const std::string& to_file = "model.png", const PlotModelOptions& options = {});

}  // namespace strata
