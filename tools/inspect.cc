// strata-inspect MODEL: what a Keras model file holds: its format, the Keras version and
// backend that wrote it, its layer classes and which of them Strata supports, the model
// summary and every weight (name, shape). Files whose layer classes Strata lacks are
// still described from their config.
#include <iostream>

#include "core/error.h"
#include "io/layer_support.h"
#include "io/model_config.h"
#include "io/saving.h"

int main(int argc, char** argv) {
  using namespace strata;
  if (argc != 2 || std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") {
    std::cerr << "usage: strata-inspect MODEL(.h5|.keras)\n";
    return argc == 2 ? 0 : 2;
  }
  const std::string path = argv[1];
  try {
    io::ModelFileInfo info = io::inspect_model_file(path);
    std::cout << "file:          " << path << "\n"
              << "format:        " << info.format << "\n"
              << "keras_version: " << (info.keras_version.empty() ? "(absent)" : info.keras_version)
              << "\n";
    if (!info.backend.empty()) std::cout << "backend:       " << info.backend << "\n";
    if (!info.date_saved.empty()) std::cout << "date_saved:    " << info.date_saved << "\n";
    std::cout << "model class:   " << info.config.value("class_name", "?") << "\n";
    std::cout << "compiled:      " << (info.training_config.is_null() ? "no" : "yes") << "\n";
    if (!info.training_config.is_null()) {
      const auto& tc = info.training_config;
      if (tc.contains("loss")) std::cout << "  loss:        " << tc["loss"].dump() << "\n";
      const auto opt = tc.value("optimizer_config", tc.value("optimizer", io::json()));
      if (opt.is_object()) std::cout << "  optimizer:   " << opt.value("class_name", "?") << "\n";
    }
    const auto classes = io::layer_class_support(info.config);
    int unsupported = 0;
    for (const auto& c : classes) unsupported += c.supported ? 0 : 1;
    std::cout << "\nlayer classes: " << classes.size() << ", "
              << (unsupported ? std::to_string(unsupported) + " not supported" : "all supported") << "\n";
    for (const auto& c : classes) {
      std::cout << "  " << (c.supported ? "supported      " : "NOT SUPPORTED  ") << c.name;
      if (c.count > 1) std::cout << " (x" << c.count << ")";
      std::cout << "\n";
    }
    try {
      Model model = models::load_model(path, {.compile = false});
      std::cout << "\n" << model.summary_string() << "\nweights:\n";
      for (const auto& v : model.weights()) {
        std::cout << "  " << v.path() << "  " << v.shape().to_string() << "  "
                  << to_string(v.dtype()) << "\n";
      }
    } catch (const NotImplementedError& e) {
      std::cout << "\nStrata cannot build this model yet: " << e.what()
                << "\nlayers in the config:\n";
      const auto& cfg = info.config["config"];
      const auto& layers = cfg.is_array() ? cfg : cfg.value("layers", io::json::array());
      for (const auto& l : layers) {
        std::cout << "  " << l["config"].value("name", l.value("name", "?")) << " ("
                  << l.value("class_name", "?") << ")\n";
      }
    }
  } catch (const Error& e) {
    std::cerr << "strata-inspect: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
