// Helpers for the serving tests: model directories in TensorFlow Serving's layout made
// from the Keras goldens, conversions between tensors and JSON values, and the strata-serve
// program started as a child process.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "tests/io/keras_test_util.h"

namespace strata::serving::testing {

using nlohmann::json;
using strata::testing::expect_close;
using strata::testing::golden_dir;
using strata::testing::load_numbered;

inline std::string golden(const std::string& name) { return golden_dir() + "/" + name; }

// A fresh MODEL_BASE_PATH under the temp directory, removed at the end of the test.
class ModelDir {
 public:
  ModelDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("strata_serving_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ModelDir() { std::filesystem::remove_all(path_); }
  ModelDir(const ModelDir&) = delete;
  ModelDir& operator=(const ModelDir&) = delete;

  std::string path() const { return path_.string(); }

  // Copies golden model `name` + `ext` into base/<version>/, atomically: it is copied
  // under another name, then the directory is renamed into place.
  void add_version(int version, const std::string& name, const std::string& ext) {
    add_file(version, golden(name) + ext, "model" + ext);
  }
  void add_file(int version, const std::string& source, const std::string& file_name) {
    auto staging = path_ / (".staging_" + std::to_string(version));
    std::filesystem::create_directories(staging);
    std::filesystem::copy_file(source, staging / file_name);
    std::filesystem::rename(staging, path_ / std::to_string(version));
  }
  void write_file(int version, const std::string& file_name, const std::string& content) {
    auto dir = path_ / std::to_string(version);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / file_name, std::ios::binary) << content;
  }

 private:
  std::filesystem::path path_;
};

// A float tensor (from dims [axis, rank) at element `offset`) as nested JSON lists.
inline json values_json(const Tensor& t, int axis = 0, std::int64_t offset = 0) {
  if (axis == t.rank()) return t.data<float>()[offset];
  json list = json::array();
  const std::int64_t stride = t.shape().product(axis + 1, t.rank());
  for (std::int64_t i = 0; i < t.shape()[axis]; ++i) list.push_back(values_json(t, axis + 1, offset + i * stride));
  return list;
}

// Row i of a float tensor as nested JSON lists (or a number for a rank-1 tensor).
inline json row_json(const Tensor& t, std::int64_t i) {
  return values_json(t, 1, i * t.shape().product(1, t.rank()));
}

// Nested JSON lists of numbers as a float tensor of `shape` (checked).
inline Tensor tensor_from_json(const json& v, const Shape& shape) {
  std::vector<float> flat;
  std::function<void(const json&)> walk = [&](const json& x) {
    if (x.is_array()) {
      for (const auto& e : x) walk(e);
    } else {
      flat.push_back(x.get<float>());
    }
  };
  walk(v);
  EXPECT_EQ(static_cast<std::int64_t>(flat.size()), shape.num_elements()) << v.dump().substr(0, 200);
  flat.resize(shape.num_elements());
  return Tensor::from_vector(shape, flat);
}

// The rows of a row-format response (one JSON value per example) stacked into `shape`.
inline Tensor stack_rows(const json& rows, const Shape& shape) { return tensor_from_json(rows, shape); }

// strata-serve (`program`, the built one) run with `args`, its standard output read line by
// line (the flags, then what it serves: "strata-serve: serving model 'mlp' version 2 at
// http://127.0.0.1:PORT/v1/models/mlp", "strata-serve: gRPC API at 127.0.0.1:PORT").
class ServeProgram {
 public:
  ServeProgram(const std::string& program, std::vector<std::string> args) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      std::vector<char*> argv{const_cast<char*>(program.c_str())};
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(program.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    lines_ = fdopen(out[0], "r");
  }
  ~ServeProgram() {
    if (pid_ > 0 && !stopped_) stop();
  }
  ServeProgram(const ServeProgram&) = delete;
  ServeProgram& operator=(const ServeProgram&) = delete;

  // The next line it prints; empty when it closed its output.
  std::string line() {
    char buf[4096];
    return lines_ && fgets(buf, sizeof buf, lines_) ? std::string(buf) : std::string();
  }
  // SIGTERM, then its exit status as waitpid gives it.
  int stop() {
    stopped_ = true;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    if (lines_) fclose(lines_);
    lines_ = nullptr;
    return status;
  }

 private:
  pid_t pid_ = -1;
  FILE* lines_ = nullptr;
  bool stopped_ = false;
};

// The port after "HOST:" in a line the program printed; -1 when the line has none.
inline int port_after(const std::string& line, const std::string& host_colon) {
  const auto at = line.find(host_colon);
  return at == std::string::npos ? -1 : std::stoi(line.substr(at + host_colon.size()));
}

}  // namespace strata::serving::testing
