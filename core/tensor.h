// Tensor: a row-major, dense array with a dtype and a fully defined shape.
// A Tensor is a handle: copies share storage (like Keras/NumPy references); clone()
// makes an independent copy. Storage is 64-byte aligned and can grow in place, which
// is how the executor reuses buffers across steps without allocating.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"

namespace strata {

class Tensor {
 public:
  Tensor() = default;
  // Zero-initialized tensor of the given shape.
  explicit Tensor(Shape shape, DType dtype = DType::float32);

  template <typename T>
  static Tensor from_vector(Shape shape, const std::vector<T>& values);
  static Tensor scalar(float value);
  static Tensor filled(Shape shape, float value);

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int rank() const { return shape_.rank(); }
  std::int64_t size() const { return size_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(size_) * size_of(dtype_); }

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
  void* raw_data() { return storage_ ? storage_->data : nullptr; }
  const void* raw_data() const { return storage_ ? storage_->data : nullptr; }

  // Convenience for tests and examples: element at a flat index, as float.
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
  // unspecified afterwards. Used by the executor's buffer plan.
  void reset(const Shape& shape, DType dtype);
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

 private:
  struct Storage {
    explicit Storage(std::size_t bytes);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    void* data = nullptr;
    std::size_t capacity = 0;
  };
  void check_dtype(DType expected) const;

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
