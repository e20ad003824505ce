// The string hashes TensorFlow (and so Keras's Hashing, HashedCrossing and lookup layers)
// uses, reproduced bit for bit:
//   fingerprint64      FarmHash's Fingerprint64 (farmhashna::Hash64), behind
//                      tf.strings.to_hash_bucket_fast;
//   siphash24          SipHash-2-4 with a 128-bit key, behind to_hash_bucket_strong;
//   fingerprint_cat64  TensorFlow's FingerprintCat64, which chains the features of
//                      tf.sparse.cross_hashed.
// Inputs are read as little-endian bytes, as on every platform TensorFlow runs on.
#pragma once

#include <cstdint>
#include <string_view>

namespace strata {

std::uint64_t fingerprint64(std::string_view bytes);
std::uint64_t siphash24(std::uint64_t key0, std::uint64_t key1, std::string_view bytes);
std::uint64_t fingerprint_cat64(std::uint64_t first, std::uint64_t second);

}  // namespace strata
