// Callbacks that write logs to files: CSVLogger (one CSV row per epoch) and TensorBoard
// (scalar event files that the real TensorBoard reads, keras-spec §5).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <variant>

#include "models/callbacks.h"

namespace strata::callbacks {

// Keras's CSVLogger: header "epoch,<sorted log keys>" (val_<k> columns are added when the
// first epoch has no validation keys), missing values "NA", flushed every epoch. With
// append = true an existing file keeps its rows and gets no second header.
struct CSVLoggerOptions {
  std::string separator = ",";
  bool append = false;
};
Callback CSVLogger(const std::string& filename, CSVLoggerOptions options = {});

// Keras's TensorBoard callback, scalars only: events under log_dir/train and
// log_dir/validation with tags "epoch_<key>" (step = epoch; validation keys lose their
// "val_" prefix), "epoch_learning_rate" in train, and with an integer update_freq N
// "batch_<key>" every N training batches (step = the optimizer step). Histograms, graphs,
// images, profiling and embeddings are not written.
struct TensorBoardOptions {
  std::string log_dir = "logs";
  std::variant<std::string, std::int64_t> update_freq = std::string("epoch");
};
Callback TensorBoard(TensorBoardOptions options = {});

// Writes one TensorBoard event file (TFRecord framing with masked CRC32C; Event protos
// hand-encoded). The first record is the file_version event.
class EventFileWriter {
 public:
  // Creates `dir` if needed and a file named events.out.tfevents.<time>.<host>.<pid>.
  explicit EventFileWriter(const std::string& dir);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;
  void add_scalar(const std::string& tag, float value, std::int64_t step);
  void flush();
  const std::string& path() const { return path_; }

 private:
  void write_record(const std::string& data);
  std::string path_;
  std::FILE* file_ = nullptr;
};

// CRC-32C (Castagnoli) and TensorFlow's masked form, exposed for tests.
std::uint32_t crc32c(const void* data, std::size_t size);
std::uint32_t masked_crc32c(const void* data, std::size_t size);

}  // namespace strata::callbacks
