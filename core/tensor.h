// Tensor: a row-major, dense array with a dtype, a fully defined shape and a device.
// A Tensor is a handle: copies share storage (like Keras/NumPy references); clone()
// makes an independent copy. Storage comes from its device's allocator (core/allocator.h)
// and can grow in place, which is how the executor reuses buffers across steps without
// allocating.
//
// Host access — data<T>(), values(), raw_data(), item(), to_vector() and the row
// helpers — reads the CPU's memory: on a tensor of another device it throws, naming the
// device. to(device) is the one way data moves between devices.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"

namespace strata {

class Tensor {
 public:
  Tensor() = default;
  // Zero-initialized tensor of the given shape, on `device` (the CPU by default).
  explicit Tensor(Shape shape, DType dtype = DType::float32);
  Tensor(Shape shape, DType dtype, const Device& device);

  template <typename T>
  static Tensor from_vector(Shape shape, const std::vector<T>& values);
  static Tensor scalar(float value);
  static Tensor filled(Shape shape, float value);
  // A string tensor (dtype string) holding `values` in row-major order; each distinct
  // value is interned for the process's life (core/string_pool.h).
  static Tensor from_strings(Shape shape, const std::vector<std::string>& values);
  // The elements of a string tensor as std::strings; ValueError for other dtypes.
  std::vector<std::string> to_strings() const;

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int rank() const { return shape_.rank(); }
  std::int64_t size() const { return size_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(size_) * size_of(dtype_); }
  // Where the storage lives (the CPU for an undefined tensor).
  Device device() const;
  bool on_cpu() const { return !storage_ || storage_->device.type == DeviceType::cpu; }
  bool is_on(const Device& device) const { return storage_ ? storage_->device == device : device.type == DeviceType::cpu; }
  // This tensor on `device`: itself when it is there already, else a copy.
  Tensor to(const Device& device) const;
  // Copies `source`'s elements into this tensor's storage, from any device to any
  // device; ShapeError when the shapes or dtypes differ.
  void copy_from(const Tensor& source);

  // Typed access; throws ValueError if T does not match dtype().
  template <typename T>
  T* data();
  template <typename T>
  const T* data() const;
  template <typename T>
  std::span<T> values() { return {data<T>(), static_cast<std::size_t>(size_)}; }
  template <typename T>
  std::span<const T> values() const { return {data<T>(), static_cast<std::size_t>(size_)}; }
  template <typename T>
  std::vector<T> to_vector() const;
  void* raw_data() {
    mark_written();
    return host_pointer();
  }
  const void* raw_data() const { return host_pointer(); }

  // Convenience for tests and examples: element at a flat index, as float (ValueError
  // for a string tensor).
  float item(std::int64_t flat_index = 0) const;

  Tensor clone() const;
  // A tensor sharing this one's storage, viewed with another shape of equal size.
  Tensor reshaped(Shape shape) const;
  // Rows [begin, end) along axis 0, copied.
  Tensor slice_rows(std::int64_t begin, std::int64_t end) const;
  // Rows picked by index along axis 0, copied (used for shuffling and batching).
  Tensor gather_rows(std::span<const std::int64_t> rows) const;
  void gather_rows_into(std::span<const std::int64_t> rows, Tensor& out) const;

  // Changes shape/dtype, reusing the storage when it is large enough; contents are
  // unspecified afterwards. Used by the executor's buffer plan. The first form keeps the
  // storage's device (the CPU for a tensor without storage); the second puts the storage
  // on `device`, allocating anew when it is elsewhere.
  void reset(const Shape& shape, DType dtype);
  void reset(const Shape& shape, DType dtype, const Device& device);
  // The device pointer of a tensor on any device: for device kernels and copies only.
  void* device_data() {
    mark_written();
    return storage_ ? storage_->data : nullptr;
  }
  const void* device_data() const { return storage_ ? storage_->data : nullptr; }
  std::size_t capacity_bytes() const { return storage_ ? storage_->capacity : 0; }
  // Drops this handle's reference to its storage (the tensor becomes undefined) but keeps
  // its shape's capacity, so that assigning a tensor of the same rank later allocates
  // nothing. The executor uses it to let go of fed tensors after a run.
  void release() {
    storage_.reset();
    size_ = 0;
  }
  // How many handles share this tensor's storage (0 when undefined).
  long use_count() const { return storage_.use_count(); }
  // True when both handles share one storage.
  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }

  std::string to_string(int max_elements = 8) const;

  // Which contents the storage holds: a number no other storage of the process has had,
  // and a count of the accesses that may have written it — every non-const data<T>(),
  // values<T>(), raw_data() and device_data() (kernels take their outputs' pointers that
  // way, and optimizer updates their variables'), and copy_from. A kernel that keeps
  // something derived from an input between runs (a Dense pair's packed weights,
  // core/cpu/dense_pair.h) compares it to know the input is unchanged. Writes through a
  // pointer kept from an earlier access are not counted: take the pointer anew to write,
  // as kernels do on every run. Handles sharing storage share the version.
  struct Version {
    std::uint64_t storage = 0;
    std::uint64_t writes = 0;
    bool operator==(const Version&) const = default;
  };
  Version version() const {
    return storage_ ? Version{storage_->id, storage_->writes.load(std::memory_order_relaxed)} : Version{};
  }

 private:
  struct Storage {
    Storage(std::size_t bytes, const Device& device);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    void* data = nullptr;
    std::size_t capacity = 0;
    Device device;
    const std::uint64_t id;               // unique in the process: Version::storage
    std::atomic<std::uint64_t> writes{0};  // Version::writes
  };
  // A relaxed load and store, not an atomic increment: two threads taking pointers into
  // one output at once may count once instead of twice, which still changes the count, and
  // a locked increment would cost every kernel call.
  void mark_written() {
    if (storage_) storage_->writes.store(storage_->writes.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // Inline: every kernel's typed access passes here, and the call cost more than the
  // check. The message is built out of line.
  void check_dtype(DType expected) const {
    if (!storage_ || dtype_ != expected) [[unlikely]] throw_bad_access(expected);
  }
  [[noreturn]] void throw_bad_access(DType expected) const;
  void* host_pointer() const {
    if (!storage_) return nullptr;
    if (storage_->device.type != DeviceType::cpu) throw_not_on_host();
    return storage_->data;
  }
  [[noreturn]] void throw_not_on_host() const;

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  DType dtype_ = DType::float32;
  std::int64_t size_ = 0;
};

template <typename T>
Tensor Tensor::from_vector(Shape shape, const std::vector<T>& values) {
  Tensor t(std::move(shape), dtype_of<T>());
  if (static_cast<std::int64_t>(values.size()) != t.size()) {
    throw ShapeError("Tensor::from_vector: shape " + t.shape().to_string() + " holds " +
                     std::to_string(t.size()) + " elements, got " +
                     std::to_string(values.size()) + " values");
  }
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

template <typename T>
T* Tensor::data() {
  check_dtype(dtype_of<T>());
  return static_cast<T*>(raw_data());
}

template <typename T>
const T* Tensor::data() const {
  check_dtype(dtype_of<T>());
  return static_cast<const T*>(raw_data());
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  auto v = values<T>();
  return {v.begin(), v.end()};
}

}  // namespace strata
