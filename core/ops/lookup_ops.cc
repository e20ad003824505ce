#include "core/ops/lookup_ops.h"

#include <algorithm>
#include <charconv>
#include <mutex>

#include "core/error.h"
#include "core/fingerprint.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata {

namespace {

struct TableRegistry {
  std::mutex mutex;
  std::int64_t next_id = 1;
  std::unordered_map<std::int64_t, std::shared_ptr<const LookupTable>> tables;
};

TableRegistry& registry() {
  static TableRegistry* r = new TableRegistry();  // outlives layers destroyed at exit
  return *r;
}

}  // namespace

TableHandle::TableHandle() {
  TableRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  id_ = r.next_id++;
  r.tables[id_] = nullptr;
}

TableHandle::~TableHandle() {
  if (id_ == 0) return;
  TableRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  r.tables.erase(id_);
}

void TableHandle::set(std::shared_ptr<const LookupTable> table) const {
  TableRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  r.tables[id_] = std::move(table);
}

std::shared_ptr<const LookupTable> TableHandle::get() const {
  TableRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.tables.find(id_);
  return it == r.tables.end() ? nullptr : it->second;
}

std::shared_ptr<const LookupTable> find_lookup_table(std::int64_t id, const char* op, const std::string& node) {
  TableRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.tables.find(id);
  if (it == r.tables.end()) {
    throw ValueError(std::string(op) + " '" + node + "': its lookup table (slot " + std::to_string(id) +
                     ") belonged to a layer that no longer exists");
  }
  if (!it->second) {
    throw ValueError(std::string(op) + " '" + node +
                     "': the layer has no vocabulary or bin boundaries yet; give them when creating it or "
                     "call adapt() first");
  }
  return it->second;
}

void IndexLookupTable::index_tokens() {
  string_index.clear();
  int_index.clear();
  for (std::size_t i = 0; i < string_tokens.size(); ++i) {
    string_index.emplace(string_tokens[i].data, token_start + static_cast<std::int64_t>(i));
  }
  for (std::size_t i = 0; i < int_tokens.size(); ++i) {
    int_index.emplace(int_tokens[i], token_start + static_cast<std::int64_t>(i));
  }
}

namespace ops {
namespace {

// The node's table, held for the kernel's run (a table replaced meanwhile stays alive).
template <typename T>
std::shared_ptr<const T> table_of(const KernelContext& ctx, const char* op) {
  auto table = std::dynamic_pointer_cast<const T>(
      find_lookup_table(ctx.node.attrs.get<std::int64_t>("table"), op, ctx.node.name));
  if (!table) throw ValueError(std::string(op) + " '" + ctx.node.name + "': the table has another kind");
  return table;
}

std::int64_t key_at(const Tensor& t, std::int64_t i) {
  return t.dtype() == DType::int32 ? t.data<std::int32_t>()[i] : t.data<std::int64_t>()[i];
}

// The OOV index of a key not in the vocabulary (num_oov > 1): Keras hashes it into the
// OOV range (floormod for IntegerLookup's default oov_method, else TF's string hashes
// of the key, integers as decimal strings).
std::int64_t oov_index(const IndexLookupTable& t, std::string_view text, std::int64_t int_key, bool is_int) {
  const auto n = static_cast<std::uint64_t>(t.num_oov);
  if (is_int && t.floormod_oov) {
    std::int64_t m = int_key % t.num_oov;
    if (m < 0) m += t.num_oov;
    return t.oov_start + m;
  }
  char digits[24];
  if (is_int) {  // integers hash as their decimal text (tf.strings.as_string)
    auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), int_key);
    text = std::string_view(digits, static_cast<std::size_t>(end - digits));
  }
  const std::uint64_t h = t.salt ? siphash24(t.salt->first, t.salt->second, text) : fingerprint64(text);
  return t.oov_start + static_cast<std::int64_t>(h % n);
}

void lookup_kernel(KernelContext& ctx) {
  const auto table = table_of<IndexLookupTable>(ctx, "index_lookup");
  const IndexLookupTable& t = *table;
  const std::string& node = ctx.node.name;
  const Tensor& keys = ctx.input(0);
  std::int64_t* out = ctx.output(0).data<std::int64_t>();
  const std::int64_t n = keys.size();
  auto missing = [&](const std::string& value) {
    throw ValueError("index_lookup '" + node + "': when num_oov_indices = 0 all inputs must be in the vocabulary, found '" +
                     value + "'; consider num_oov_indices = 1");
  };
  if (keys.dtype() == DType::string) {
    if (!t.string_keys) throw ValueError("index_lookup '" + node + "': string inputs to an integer vocabulary");
    const StringValue* k = keys.data<StringValue>();
    for (std::int64_t i = 0; i < n; ++i) {
      if (t.has_mask && k[i] == t.string_mask) {
        out[i] = t.mask_output;
        continue;
      }
      auto it = t.string_index.find(k[i].data);
      if (it != t.string_index.end()) {
        out[i] = it->second;
      } else if (t.num_oov == 1) {
        out[i] = t.oov_start;
      } else if (t.num_oov == 0) {
        missing(k[i].str());
      } else {
        out[i] = oov_index(t, k[i].view(), 0, false);
      }
    }
    return;
  }
  if (t.string_keys) throw ValueError("index_lookup '" + node + "': integer inputs to a string vocabulary");
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = key_at(keys, i);
    if (t.has_mask && k == t.int_mask) {
      out[i] = t.mask_output;
      continue;
    }
    auto it = t.int_index.find(k);
    if (it != t.int_index.end()) {
      out[i] = it->second;
    } else if (t.num_oov == 1) {
      out[i] = t.oov_start;
    } else if (t.num_oov == 0) {
      missing(std::to_string(k));
    } else {
      out[i] = oov_index(t, {}, k, true);
    }
  }
}

void invert_kernel(KernelContext& ctx) {
  const auto table = table_of<IndexLookupTable>(ctx, "index_lookup_invert");
  const IndexLookupTable& t = *table;
  const Tensor& idx = ctx.input(0);
  const std::int64_t n = idx.size();
  const std::int64_t vocab = t.size();
  if (t.string_keys) {
    StringValue* out = ctx.output(0).data<StringValue>();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t k = key_at(idx, i);
      if (t.has_mask && k == 0) {
        out[i] = t.string_mask;
      } else if (k >= t.token_start && k < vocab) {
        out[i] = t.string_tokens[static_cast<std::size_t>(k - t.token_start)];
      } else {
        out[i] = t.string_oov_token;
      }
    }
    return;
  }
  std::int64_t* out = ctx.output(0).data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = key_at(idx, i);
    if (t.has_mask && k == 0) {
      out[i] = t.int_mask;
    } else if (k >= t.token_start && k < vocab) {
      out[i] = t.int_tokens[static_cast<std::size_t>(k - t.token_start)];
    } else {
      out[i] = t.int_oov_token;
    }
  }
}

void bucketize_kernel(KernelContext& ctx) {
  const auto table = table_of<BoundariesTable>(ctx, "bucketize");
  const BoundariesTable& t = *table;
  const Tensor& x = ctx.input(0);
  std::int32_t* out = ctx.output(0).data<std::int32_t>();
  const auto& b = t.boundaries;
  auto bucket = [&](float v) {
    return static_cast<std::int32_t>(std::upper_bound(b.begin(), b.end(), v) - b.begin());
  };
  const std::int64_t n = x.size();
  switch (x.dtype()) {
    case DType::float32: for (std::int64_t i = 0; i < n; ++i) out[i] = bucket(x.data<float>()[i]); break;
    case DType::int32: for (std::int64_t i = 0; i < n; ++i) out[i] = bucket(static_cast<float>(x.data<std::int32_t>()[i])); break;
    case DType::int64: for (std::int64_t i = 0; i < n; ++i) out[i] = bucket(static_cast<float>(x.data<std::int64_t>()[i])); break;
    case DType::string: throw ValueError("bucketize: string inputs");
  }
}

DType attr_dtype(const InferContext& ctx) { return parse_dtype(ctx.attrs.get<std::string>("dtype")); }

void expect_integer_or(const InferContext& ctx, DType also, const char* what) {
  const DType d = ctx.inputs[0].dtype;
  if (d != DType::int32 && d != DType::int64 && d != also) {
    throw ValueError(ctx.op + ": expects " + what + " inputs, got " + to_string(d));
  }
}

}  // namespace

void register_lookup_ops(OpRegistry& r) {
  r.add({.name = "index_lookup",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const DType vocab = attr_dtype(ctx);
           if (vocab == DType::string && ctx.inputs[0].dtype != DType::string) {
             throw ValueError("index_lookup: a string vocabulary takes string inputs, got " +
                              to_string(ctx.inputs[0].dtype));
           }
           if (vocab != DType::string) expect_integer_or(ctx, DType::int64, "integer");
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::int64}};
         },
         .cpu_kernel = lookup_kernel,
         .differentiable = false,
         .takes_strings = true});
  r.add({.name = "index_lookup_invert",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_integer_or(ctx, DType::int64, "integer index");
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, attr_dtype(ctx)}};
         },
         .cpu_kernel = invert_kernel,
         .differentiable = false});
  r.add({.name = "bucketize",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_integer_or(ctx, DType::float32, "numeric");
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::int32}};
         },
         .cpu_kernel = bucketize_kernel,
         .differentiable = false});
}

Output index_lookup(Output keys, const TableHandle& table, DType vocabulary_dtype) {
  return keys.graph->add("index_lookup", {keys},
                         Attrs{{"table", table.id()}, {"dtype", to_string(vocabulary_dtype)}});
}

Output index_lookup_invert(Output indices, const TableHandle& table, DType vocabulary_dtype) {
  return indices.graph->add("index_lookup_invert", {indices},
                            Attrs{{"table", table.id()}, {"dtype", to_string(vocabulary_dtype)}});
}

Output bucketize(Output values, const TableHandle& table) {
  return values.graph->add("bucketize", {values}, Attrs{{"table", table.id()}});
}

}  // namespace ops
}  // namespace strata
