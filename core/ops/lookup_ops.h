// Lookup tables owned by layers, and the ops that read them.
//
// A preprocessing layer's vocabulary or bin boundaries are layer state: data never
// enters the graph as a constant. The layer holds a TableHandle, a slot in a process-wide
// registry; its ops carry only the slot's id as an attribute and read the table when
// they run. Replacing the table (adapt, set_vocabulary) is seen by every program already
// compiled, as in Keras. The slot is freed when the handle (the layer) goes away.
//
// None of these ops is differentiable: their outputs are integers or strings.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/graph.h"
#include "core/string_pool.h"

namespace strata {

class LookupTable {
 public:
  virtual ~LookupTable() = default;
};

// A registry slot for one layer's table. Not copyable (one owner); movable.
class TableHandle {
 public:
  TableHandle();
  ~TableHandle();
  TableHandle(const TableHandle&) = delete;
  TableHandle& operator=(const TableHandle&) = delete;
  TableHandle(TableHandle&& other) noexcept : id_(other.id_) { other.id_ = 0; }

  std::int64_t id() const { return id_; }
  void set(std::shared_ptr<const LookupTable> table) const;
  std::shared_ptr<const LookupTable> get() const;

 private:
  std::int64_t id_ = 0;
};

// The table in slot `id`; ValueError when it was freed or never set, naming the op and
// node (a message is built only then: running a lookup allocates nothing).
std::shared_ptr<const LookupTable> find_lookup_table(std::int64_t id, const char* op, const std::string& node);

// Keras's IndexLookup (StringLookup, IntegerLookup) as a table. Keys are strings or
// int64; `tokens[i]` has index token_start + i.
struct IndexLookupTable : LookupTable {
  bool string_keys = true;
  std::vector<StringValue> string_tokens;
  std::vector<std::int64_t> int_tokens;
  std::unordered_map<const char*, std::int64_t> string_index;  // interned pointer -> index
  std::unordered_map<std::int64_t, std::int64_t> int_index;
  // The same string index keyed by the bytes (views of the interned tokens), for tokens
  // made while a model runs (TextVectorization's), which are never interned.
  std::unordered_map<std::string_view, std::int64_t> text_index;

  std::int64_t oov_start = 0;    // 1 when a mask token takes index 0 (output_mode "int")
  std::int64_t num_oov = 1;
  std::int64_t token_start = 1;  // oov_start + num_oov
  bool has_mask = false;
  StringValue string_mask;
  std::int64_t int_mask = 0;
  std::int64_t mask_output = 0;  // what a mask token maps to (0, or int64 max outside "int")
  bool floormod_oov = false;     // IntegerLookup's oov_method "floormod"
  std::optional<std::pair<std::uint64_t, std::uint64_t>> salt;  // OOV hashing key
  StringValue string_oov_token;  // invert: what OOV indices give
  std::int64_t int_oov_token = -1;
  // output_mode "tf_idf": a weight per index (Keras's idf_weights, OOV slots and any
  // padding to max_tokens included); empty otherwise.
  std::vector<float> idf_weights;

  std::int64_t size() const {
    return token_start + static_cast<std::int64_t>(string_keys ? string_tokens.size() : int_tokens.size());
  }
  // Builds the index maps from the tokens.
  void index_tokens();
};

// Bin boundaries (Discretization), ascending.
struct BoundariesTable : LookupTable {
  std::vector<float> boundaries;
};

namespace ops {

// Indices (int64) of `keys` (string, int32 or int64) in an IndexLookupTable.
Output index_lookup(Output keys, const TableHandle& table, DType vocabulary_dtype);
// The tokens (of `vocabulary_dtype`) at int indices: the inverse lookup.
Output index_lookup_invert(Output indices, const TableHandle& table, DType vocabulary_dtype);
// output_mode "tf_idf": counts (..., depth) float32 times the IndexLookupTable's idf_weights
// along the last axis, read when the program runs (a table whose weights are not `depth`
// long is a ValueError then, naming the node).
Output tf_idf_weigh(Output counts, const TableHandle& table);
// The bucket of each value (count of boundaries <= value), int32, like np.digitize.
Output bucketize(Output values, const TableHandle& table);

}  // namespace ops
}  // namespace strata
