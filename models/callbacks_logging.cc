#include "models/callbacks_logging.h"

#include <unistd.h>

#include <array>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "core/error.h"
#include "models/model.h"

namespace strata::callbacks {

// --- CRC-32C and the TFRecord framing --------------------------------------------------------

std::uint32_t crc32c(const void* data, std::size_t size) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t crc = 0xFFFFFFFFu;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::uint32_t masked_crc32c(const void* data, std::size_t size) {
  std::uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

namespace {

// Minimal protobuf encoding for the Event / Summary messages.
void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

template <typename T>
void put_le(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));  // the machines we build for are little-endian
  out.append(bytes, sizeof(T));
}

void put_bytes_field(std::string& out, int field, const std::string& bytes) {
  put_varint(out, static_cast<std::uint64_t>(field) << 3 | 2);
  put_varint(out, bytes.size());
  out += bytes;
}

double wall_time() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string event_header(std::int64_t step) {
  std::string e;
  e += static_cast<char>(0x09);  // wall_time, double
  put_le<double>(e, wall_time());
  if (step != 0) {
    e += static_cast<char>(0x10);  // step, varint
    put_varint(e, static_cast<std::uint64_t>(step));
  }
  return e;
}

}  // namespace

EventFileWriter::EventFileWriter(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw IOError("TensorBoard: cannot create log directory '" + dir + "': " + ec.message());
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  static int counter = 0;
  path_ = dir + "/events.out.tfevents." +
          std::to_string(static_cast<long long>(wall_time())) + "." + host + "." + std::to_string(getpid()) + "." +
          std::to_string(counter++) + ".v2";
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) throw IOError("TensorBoard: cannot open '" + path_ + "' for writing");
  std::string e = event_header(0);
  put_bytes_field(e, 3, "brain.Event:2");  // file_version
  write_record(e);
  flush();
}

EventFileWriter::~EventFileWriter() {
  if (file_) std::fclose(file_);
}

void EventFileWriter::add_scalar(const std::string& tag, float value, std::int64_t step) {
  std::string v;
  put_bytes_field(v, 1, tag);
  v += static_cast<char>(0x15);  // simple_value, float
  put_le<float>(v, value);
  std::string summary;
  put_bytes_field(summary, 1, v);
  std::string e = event_header(step);
  put_bytes_field(e, 5, summary);
  write_record(e);
}

void EventFileWriter::write_record(const std::string& data) {
  std::string r;
  put_le<std::uint64_t>(r, data.size());
  std::uint32_t len_crc = masked_crc32c(r.data(), 8);
  put_le<std::uint32_t>(r, len_crc);
  r += data;
  put_le<std::uint32_t>(r, masked_crc32c(data.data(), data.size()));
  if (std::fwrite(r.data(), 1, r.size(), file_) != r.size()) throw IOError("TensorBoard: write failed on " + path_);
}

void EventFileWriter::flush() { std::fflush(file_); }

namespace {

// Python's repr of a float: the shortest text that reads back as the same double.
std::string python_float(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, static_cast<double>(v));
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

class CSVLoggerImpl : public CallbackImpl {
 public:
  CSVLoggerImpl(std::string filename, CSVLoggerOptions o) : filename_(std::move(filename)), o_(std::move(o)) {}
  bool chief_only() const override { return true; }

  void on_train_begin(Logs&) override {
    keys_.clear();
    write_header_ = true;
    if (o_.append && std::filesystem::exists(filename_)) {
      std::ifstream in(filename_);
      std::string first;
      write_header_ = !std::getline(in, first) || first.empty();
    }
    out_.open(filename_, o_.append ? std::ios::app : std::ios::trunc);
    if (!out_) throw IOError("CSVLogger: cannot open '" + filename_ + "' for writing");
  }

  void on_epoch_end(int epoch, Logs& logs) override {
    if (keys_.empty()) {
      for (const auto& [k, v] : logs) keys_.push_back(k);  // std::map: sorted, as Keras sorts
      bool has_val = false;
      for (const auto& k : keys_) has_val = has_val || k.rfind("val_", 0) == 0;
      if (!has_val) {
        std::size_t n = keys_.size();
        for (std::size_t i = 0; i < n; ++i) keys_.push_back("val_" + keys_[i]);
      }
      if (write_header_) {
        out_ << "epoch";
        for (const auto& k : keys_) out_ << o_.separator << k;
        out_ << "\n";
      }
    }
    out_ << epoch;
    for (const auto& k : keys_) {
      auto it = logs.find(k);
      out_ << o_.separator << (it == logs.end() ? std::string("NA") : python_float(it->second));
    }
    out_ << "\n";
    out_.flush();
  }

  void on_train_end(Logs&) override { out_.close(); }

 private:
  std::string filename_;
  CSVLoggerOptions o_;
  std::ofstream out_;
  std::vector<std::string> keys_;
  bool write_header_ = true;
};

class TensorBoardImpl : public CallbackImpl {
 public:
  explicit TensorBoardImpl(TensorBoardOptions o) : o_(std::move(o)) {
    if (auto* s = std::get_if<std::string>(&o_.update_freq)) {
      if (*s == "batch") {
        batch_freq_ = 1;
      } else if (*s != "epoch") {
        throw ValueError("TensorBoard: update_freq must be 'epoch', 'batch' or an integer, got '" + *s + "'");
      }
    } else {
      batch_freq_ = std::get<std::int64_t>(o_.update_freq);
      if (batch_freq_ <= 0) throw ValueError("TensorBoard: update_freq must be positive");
    }
  }

  bool chief_only() const override { return true; }

  void on_train_begin(Logs&) override {
    train_ = std::make_unique<EventFileWriter>(o_.log_dir + "/train");
    validation_.reset();
    batches_ = 0;
  }

  void on_train_batch_end(std::int64_t, Logs& logs) override {
    ++batches_;
    if (batch_freq_ == 0 || batches_ % batch_freq_ != 0) return;
    std::int64_t step = model().optimizer().iterations();
    for (const auto& [k, v] : logs) train_->add_scalar("batch_" + k, v, step);
    train_->flush();
  }

  void on_epoch_end(int epoch, Logs& logs) override {
    bool wrote_lr = false;
    for (const auto& [k, v] : logs) {
      if (k.rfind("val_", 0) == 0) {
        if (!validation_) validation_ = std::make_unique<EventFileWriter>(o_.log_dir + "/validation");
        validation_->add_scalar("epoch_" + k.substr(4), v, epoch);
      } else {
        train_->add_scalar("epoch_" + k, v, epoch);
        wrote_lr = wrote_lr || k == "learning_rate";
      }
    }
    if (!wrote_lr) train_->add_scalar("epoch_learning_rate", model().optimizer().learning_rate(), epoch);
    train_->flush();
    if (validation_) validation_->flush();
  }

  void on_train_end(Logs&) override {
    train_.reset();
    validation_.reset();
  }

 private:
  TensorBoardOptions o_;
  std::int64_t batch_freq_ = 0, batches_ = 0;
  std::unique_ptr<EventFileWriter> train_, validation_;
};

}  // namespace

Callback CSVLogger(const std::string& filename, CSVLoggerOptions options) {
  return Callback(std::make_shared<CSVLoggerImpl>(filename, std::move(options)));
}

Callback TensorBoard(TensorBoardOptions options) {
  return Callback(std::make_shared<TensorBoardImpl>(std::move(options)));
}

}  // namespace strata::callbacks
