// strata-predict MODEL INPUT.npy|INPUT.npz [-o OUT.npy|OUT.npz] [--batch-size N]
// Loads a Keras model (.h5 or .keras, told by signature), predicts on the input array(s)
// (an .npz holds one array per model input, in the model's input order) and writes the
// predictions (.npy for one output, .npz for several), or prints them.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/npy.h"
#include "io/saving.h"

namespace {

int usage() {
  std::cerr
      << "usage: strata-predict MODEL INPUT.npy|INPUT.npz [-o OUT.npy|OUT.npz] [--batch-size N]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  std::vector<std::string> positional;
  std::string out_path;
  std::int64_t batch_size = 32;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "-o" || a == "--output") && i + 1 < argc) {
      out_path = argv[++i];
    } else if (a.starts_with("--batch-size")) {
      std::string v =
          a.size() > 12 && a[12] == '=' ? a.substr(13) : (i + 1 < argc ? argv[++i] : "");
      try {
        batch_size = std::stoll(v);
      } catch (...) {
        std::cerr << "strata-predict: --batch-size needs a positive integer, got '" << v << "'\n";
        return 2;
      }
      if (batch_size <= 0) {
        std::cerr << "strata-predict: --batch-size must be positive, got " << batch_size << "\n";
        return 2;
      }
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (a.starts_with("-")) {
      std::cerr << "strata-predict: unknown option '" << a << "'\n";
      return usage();
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) return usage();
  try {
    Model model = models::load_model(positional[0], {.compile = false});
    std::vector<Tensor> x;
    if (positional[1].ends_with(".npz")) {
      for (auto& [name, t] : io::load_npz(positional[1])) x.push_back(t);
    } else {
      x.push_back(io::load_npy(positional[1]));
    }
    if (x.size() != model.inputs().size()) {
      throw ValueError("model '" + model.name() + "' takes " +
                       std::to_string(model.inputs().size()) + " inputs, '" + positional[1] +
                       "' holds " + std::to_string(x.size()) + " arrays");
    }
    auto y = model.predict(x, {.batch_size = batch_size});
    if (out_path.empty()) {
      for (std::size_t i = 0; i < y.size(); ++i) {
        std::cout << "output " << i << " " << y[i].shape().to_string() << "\n"
                  << y[i].to_string(1 << 20) << "\n";
      }
    } else if (out_path.ends_with(".npz")) {
      std::vector<std::pair<std::string, Tensor>> arrays;
      for (std::size_t i = 0; i < y.size(); ++i)
        arrays.emplace_back("output_" + std::to_string(i), y[i]);
      io::save_npz(out_path, arrays);
    } else {
      if (y.size() != 1)
        throw ValueError("the model has " + std::to_string(y.size()) +
                         " outputs: write them to an .npz");
      io::save_npy(out_path, y[0]);
    }
  } catch (const Error& e) {
    std::cerr << "strata-predict: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
