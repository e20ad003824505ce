#include "core/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/allocator.h"
#include "core/device_backend.h"
#include "core/string_pool.h"

namespace strata {

namespace {
std::atomic<std::uint64_t> storages_made{0};

// Copies between `dst` and `src` memory, at least one of them on a device: the device's
// backend copies (only one kind of device exists beside the CPU in any one copy).
void copy_between(void* dst, const Device& dst_device, const void* src, const Device& src_device, std::size_t bytes,
                  const char* what) {
  const Device& device = dst_device.type != DeviceType::cpu ? dst_device : src_device;
  DeviceBackend* backend = device_backend(device.type);
  if (!backend) {
    throw ValueError(std::string(what) + "(" + to_string(device) + "): Strata was built without " +
                     to_string(device.type));
  }
  backend->copy(dst, src, bytes, dst_device.type != DeviceType::cpu, src_device.type != DeviceType::cpu);
}
}  // namespace

Tensor::Storage::Storage(std::size_t bytes, const Device& where)
    : capacity(bytes), device{where.type, where.index, {}}, id(storages_made.fetch_add(1, std::memory_order_relaxed) + 1) {
  // Zeroed, and at least one byte, so an empty tensor still has an address.
  data = allocator_for(device).allocate(bytes);
}

Tensor::Storage::~Storage() { allocator_for(device).deallocate(data, capacity); }

Tensor::Tensor(Shape shape, DType dtype) : Tensor(std::move(shape), dtype, Device{}) {}

Tensor::Tensor(Shape shape, DType dtype, const Device& device)
    : shape_(std::move(shape)), dtype_(dtype), size_(shape_.num_elements()) {
  storage_ = std::make_shared<Storage>(nbytes(), device);
}

Device Tensor::device() const {
  if (!storage_) return {};
  Device d = storage_->device;
  if (d.type == DeviceType::cpu) d.name = "cpu";
  return d;
}

void Tensor::throw_not_on_host() const {
  throw ValueError("a tensor of shape " + shape_.to_string() + " on " + strata::to_string(storage_->device) +
                   " was read as host memory: copy it with .to(cpu) first");
}

Tensor Tensor::to(const Device& device) const {
  if (!storage_) throw ValueError("Tensor::to(" + strata::to_string(device) + "): the tensor is undefined");
  if (storage_->device == device) return *this;
  // A string element is a handle into the host's intern pool: meaningless on a device.
  if (dtype_ == DType::string && device.type != DeviceType::cpu) {
    throw ValueError("Tensor::to(" + strata::to_string(device) + "): a string tensor of shape " + shape_.to_string() +
                     " stays on the CPU (map strings to numbers with a lookup or hashing layer first)");
  }
  Tensor out(shape_, dtype_, device);
  copy_between(out.device_data(), device, device_data(), storage_->device, nbytes(), "Tensor::to");
  return out;
}

void Tensor::copy_from(const Tensor& source) {
  if (!storage_ || !source.storage_ || source.shape_ != shape_ || source.dtype_ != dtype_) {
    throw ShapeError("Tensor::copy_from: cannot copy a tensor of shape " + source.shape_.to_string() + " (" +
                     strata::to_string(source.dtype_) + ") into one of shape " + shape_.to_string() + " (" +
                     strata::to_string(dtype_) + ")");
  }
  mark_written();
  if (on_cpu() && source.on_cpu()) {
    std::memcpy(storage_->data, source.storage_->data, nbytes());
    return;
  }
  if (dtype_ == DType::string) {
    throw ValueError("Tensor::copy_from: a string tensor of shape " + shape_.to_string() + " stays on the CPU");
  }
  copy_between(storage_->data, storage_->device, source.storage_->data, source.storage_->device, nbytes(),
               "Tensor::copy_from");
}

Tensor Tensor::scalar(float value) {
  Tensor t(Shape{}, DType::float32);
  *t.data<float>() = value;
  return t;
}

Tensor Tensor::filled(Shape shape, float value) {
  Tensor t(std::move(shape), DType::float32);
  std::fill_n(t.data<float>(), t.size(), value);
  return t;
}

void Tensor::throw_bad_access(DType expected) const {
  if (!storage_) throw ValueError("access to an undefined tensor");
  throw ValueError("tensor of dtype " + strata::to_string(dtype_) + " accessed as " + strata::to_string(expected));
}

float Tensor::item(std::int64_t i) const {
  if (i < 0 || i >= size_) {
    throw ValueError("Tensor::item: index " + std::to_string(i) + " out of range for shape " +
                     shape_.to_string());
  }
  switch (dtype_) {
    case DType::float32: return data<float>()[i];
    case DType::int32: return static_cast<float>(data<std::int32_t>()[i]);
    case DType::int64: return static_cast<float>(data<std::int64_t>()[i]);
    case DType::string:
      throw ValueError("Tensor::item: a string tensor has no float value (use to_strings())");
  }
  return 0;
}

Tensor Tensor::from_strings(Shape shape, const std::vector<std::string>& values) {
  Tensor t(std::move(shape), DType::string);
  if (static_cast<std::int64_t>(values.size()) != t.size()) {
    throw ShapeError("Tensor::from_strings: shape " + t.shape().to_string() + " holds " +
                     std::to_string(t.size()) + " elements, got " +
                     std::to_string(values.size()) + " values");
  }
  StringValue* out = t.data<StringValue>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = intern_string(values[i]);
  return t;
}

std::vector<std::string> Tensor::to_strings() const {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(size_));
  for (const StringValue& v : values<StringValue>()) out.push_back(v.str());
  return out;
}

Tensor Tensor::clone() const {
  if (!storage_) return {};
  if (!on_cpu()) {
    Tensor t = to(Device{});
    return t.to(storage_->device);
  }
  Tensor t(shape_, dtype_);
  std::memcpy(t.raw_data(), raw_data(), nbytes());
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape.num_elements() != size_) {
    throw ShapeError("cannot reshape a tensor of shape " + shape_.to_string() + " (" +
                     std::to_string(size_) + " elements) to " + shape.to_string());
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::slice_rows(std::int64_t begin, std::int64_t end) const {
  if (rank() == 0 || begin < 0 || end > shape_[0] || begin > end) {
    throw ValueError("slice_rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ") out of range for shape " + shape_.to_string());
  }
  Tensor t(shape_.with_dim(0, end - begin), dtype_);
  std::size_t row_bytes = shape_[0] ? nbytes() / shape_[0] : 0;
  std::memcpy(t.raw_data(), static_cast<const char*>(raw_data()) + begin * row_bytes,
              (end - begin) * row_bytes);
  return t;
}

Tensor Tensor::gather_rows(std::span<const std::int64_t> rows) const {
  Tensor t(shape_.with_dim(0, static_cast<std::int64_t>(rows.size())), dtype_);
  gather_rows_into(rows, t);
  return t;
}

void Tensor::gather_rows_into(std::span<const std::int64_t> rows, Tensor& out) const {
  if (rank() == 0) throw ShapeError("gather_rows on a scalar");
  const auto n = static_cast<std::int64_t>(rows.size());
  // A batch shaped like the last one keeps its shape (building a new one allocates).
  const auto& have = out.shape_.dims();
  const bool same_shape = out.dtype_ == dtype_ && have.size() == shape_.dims().size() && have[0] == n &&
                          std::equal(have.begin() + 1, have.end(), shape_.dims().begin() + 1);
  if (same_shape) {
    out.reset(out.shape_, dtype_);
  } else {
    out.reset(shape_.with_dim(0, n), dtype_);
  }
  std::size_t row_bytes = shape_[0] ? nbytes() / shape_[0] : 0;
  auto* dst = static_cast<char*>(out.raw_data());
  const auto* src = static_cast<const char*>(raw_data());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= shape_[0]) {
      throw ValueError("row index " + std::to_string(rows[i]) + " out of range for shape " +
                       shape_.to_string());
    }
    std::memcpy(dst + i * row_bytes, src + rows[i] * row_bytes, row_bytes);
  }
}

void Tensor::reset(const Shape& shape, DType dtype) { reset(shape, dtype, storage_ ? storage_->device : Device{}); }

void Tensor::reset(const Shape& shape, DType dtype, const Device& device) {
  std::int64_t n = shape.num_elements();
  std::size_t bytes = static_cast<std::size_t>(n) * size_of(dtype);
  if (!storage_ || storage_->capacity < bytes || storage_.use_count() > 1 || !(storage_->device == device)) {
    // Grow, never shrink: a buffer settles at its largest size and is then reused.
    std::size_t want = std::max(bytes, storage_ && storage_->device == device ? storage_->capacity : 0);
    storage_ = std::make_shared<Storage>(want, device);
  }
  shape_ = shape;
  dtype_ = dtype;
  size_ = n;
}

std::string Tensor::to_string(int max_elements) const {
  std::ostringstream os;
  os << "Tensor(shape=" << shape_.to_string() << ", dtype=" << strata::to_string(dtype_);
  if (storage_) {
    os << ", values=[";
    for (std::int64_t i = 0; i < std::min<std::int64_t>(size_, max_elements); ++i) {
      os << (i ? ", " : "");
      if (dtype_ == DType::string) {
        os << '"' << data<StringValue>()[i].view() << '"';
      } else {
        os << item(i);
      }
    }
    if (size_ > max_elements) os << ", ...";
    os << "]";
  }
  os << ")";
  return os.str();
}

}  // namespace strata
