#include "io/train_state.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "optimizers/optimizer.h"

namespace strata::io {

namespace {

constexpr const char* kMagic = "STRATA-TRAIN-STATE 1\n";

struct Group {
  const char* name;
  std::vector<Variable> variables;
};

std::vector<Group> groups(const Model& model) {
  return {{"model", model.weights()}, {"optimizer", model.optimizer().variables()}};
}

}  // namespace

void save_train_state(const std::string& path, const Model& model, const FitState& fit) {
  nlohmann::json header;
  header["fit"] = {{"epoch", fit.epoch},         {"step", fit.step},
                   {"pass", fit.pass},           {"pass_batch", fit.pass_batch},
                   {"shuffle_seed", fit.shuffle_seed}, {"train_steps", fit.train_steps}};
  header["tensors"] = nlohmann::json::array();
  std::string data;
  for (const auto& g : groups(model)) {
    for (const auto& v : g.variables) {
      const Tensor& t = v.value();
      header["tensors"].push_back({{"group", g.name},
                                   {"path", v.path()},
                                   {"dtype", to_string(t.dtype())},
                                   {"shape", t.shape().dims()},
                                   {"offset", data.size()},
                                   {"nbytes", t.nbytes()}});
      data.append(static_cast<const char*>(t.raw_data()), t.nbytes());
    }
  }
  std::string h = header.dump();
  std::uint64_t len = h.size();
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw IOError("cannot write training state '" + tmp + "'");
    out << kMagic;
    out.write(reinterpret_cast<const char*>(&len), sizeof len);
    out << h << data;
    out.flush();
    if (!out) throw IOError("writing training state '" + tmp + "' failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw IOError("cannot move '" + tmp + "' to '" + path + "': " + ec.message());
}

FitState load_train_state(const std::string& path, const Model& model) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("cannot open training state '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  const std::size_t magic = std::strlen(kMagic);
  if (bytes.compare(0, magic, kMagic) != 0) throw IOError("'" + path + "' is not a Strata training-state file");
  std::uint64_t len = 0;
  if (bytes.size() < magic + 8) throw IOError("'" + path + "' is truncated");
  std::memcpy(&len, bytes.data() + magic, 8);
  if (bytes.size() < magic + 8 + len) throw IOError("'" + path + "' is truncated (header)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.substr(magic + 8, len));
  } catch (const std::exception& e) {
    throw IOError("'" + path + "': corrupt header: " + e.what());
  }
  const std::size_t data = magic + 8 + len;
  const auto& tensors = header.at("tensors");
  // Check everything first: a mismatch assigns nothing.
  std::vector<std::pair<Variable, const nlohmann::json*>> plan;
  std::size_t index = 0;
  for (const auto& g : groups(model)) {
    std::size_t in_group = 0;
    for (const auto& v : g.variables) {
      std::string where = "'" + path + "' does not match model '" + model.name() + "': ";
      if (index >= tensors.size() || tensors[index].at("group") != g.name) {
        throw ValueError(where + "the model's " + g.name + " variable " + std::to_string(in_group) + " '" + v.path() +
                         "' " + v.shape().to_string() + " has no counterpart in the file");
      }
      const auto& t = tensors[index];
      Shape shape(t.at("shape").get<std::vector<std::int64_t>>());
      std::string dtype = t.at("dtype");
      if (t.at("path") != v.path() || shape != v.shape() || dtype != to_string(v.dtype())) {
        throw ValueError(where + "first mismatching " + std::string(g.name) + " weight is " +
                         std::to_string(in_group) + ": the file has '" + t.at("path").get<std::string>() + "' " +
                         shape.to_string() + " " + dtype + ", the model '" + v.path() + "' " + v.shape().to_string() +
                         " " + to_string(v.dtype()));
      }
      if (data + t.at("offset").get<std::size_t>() + t.at("nbytes").get<std::size_t>() > bytes.size()) {
        throw IOError("'" + path + "' is truncated (tensor '" + v.path() + "')");
      }
      plan.emplace_back(v, &t);
      ++index;
      ++in_group;
    }
    while (index < tensors.size() && tensors[index].at("group") == g.name) {
      throw ValueError("'" + path + "' does not match model '" + model.name() + "': the file has an extra " +
                       std::string(g.name) + " variable '" + tensors[index].at("path").get<std::string>() + "'");
    }
  }
  for (auto& [v, t] : plan) {
    Variable var = v;
    std::memcpy(var.value().raw_data(), bytes.data() + data + t->at("offset").get<std::size_t>(),
                t->at("nbytes").get<std::size_t>());
  }
  const auto& f = header.at("fit");
  return FitState{.epoch = f.at("epoch"),
                  .step = f.at("step"),
                  .pass = f.at("pass"),
                  .pass_batch = f.at("pass_batch"),
                  .shuffle_seed = f.at("shuffle_seed"),
                  .train_steps = f.at("train_steps")};
}

}  // namespace strata::io
