// Hashing ops with TensorFlow's exact hashes (core/fingerprint.h), for Keras's Hashing
// and HashedCrossing layers. Neither is differentiable: both give int64 bins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

struct HashBucketOptions {
  std::int64_t num_bins = 1;
  // SipHash key (to_hash_bucket_strong); none: FarmHash (to_hash_bucket_fast).
  std::optional<std::pair<std::int64_t, std::int64_t>> salt;
  // Values equal to this go to bin 0 and the rest to [1, num_bins) (when num_bins > 1).
  std::optional<std::variant<std::int64_t, std::string>> mask_value;
};

// Keras's Hashing on strings, int32, int64 or float32 (cast to int64 first, as Keras
// does): integers are hashed as their decimal text, like tf.strings.as_string.
Output hash_bucket(Output values, const HashBucketOptions& options);

// tf.sparse.cross_hashed on dense features of one shape (strings or integers): per
// element, FingerprintCat64 over the features (strings by Fingerprint64, integers as
// their value), starting from TF's key 0xDECAFCAFFE, modulo num_bins.
Output hashed_cross(const std::vector<Output>& features, std::int64_t num_bins);

}  // namespace strata::ops
