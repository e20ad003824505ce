// NumPy .npy and .npz files (np.save / np.savez / np.load). Reads little-endian
// float32/float64 (as float32), int8..int64, uint8/uint16 and bool (as int32/int64), and
// string arrays ('U' and 'S', as string tensors), C order; writes float32/int32/int64 and
// strings (as 'U', or 'S' when a value is not UTF-8) in format 1.0. .npz members are "<name>.npy" in a ZIP
// (stored or deflated, as np.savez / np.savez_compressed write them). Every malformed file
// is an IOError naming it.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace strata::io {

Tensor load_npy(const std::string& path);
void save_npy(const std::string& path, const Tensor& tensor);

// Members in archive order, names without ".npy".
std::vector<std::pair<std::string, Tensor>> load_npz(const std::string& path);
void save_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays,
              bool compressed = false);

// The bytes of a .npy file, and back; `source` names the bytes in messages.
Tensor npy_from_bytes(const std::string& bytes, const std::string& source);
std::string npy_to_bytes(const Tensor& tensor);

}  // namespace strata::io
