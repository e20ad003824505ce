#include "core/ops/lookup_ops.h"

#include <mutex>

#include "core/error.h"
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
  text_index.clear();
  for (std::size_t i = 0; i < string_tokens.size(); ++i) {
    string_index.emplace(string_tokens[i].data, token_start + static_cast<std::int64_t>(i));
    text_index.emplace(string_tokens[i].view(), token_start + static_cast<std::int64_t>(i));
  }
  for (std::size_t i = 0; i < int_tokens.size(); ++i) {
    int_index.emplace(int_tokens[i], token_start + static_cast<std::int64_t>(i));
  }
}

namespace ops {
namespace {

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
         .differentiable = false,
         .takes_strings = true});
  r.add({.name = "index_lookup_invert",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_integer_or(ctx, DType::int64, "integer index");
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, attr_dtype(ctx)}};
         },
         .differentiable = false});
  r.add({.name = "tf_idf_weigh",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           if (ctx.inputs[0].dtype != DType::float32 || ctx.inputs[0].shape.rank() < 1) {
             throw ValueError("tf_idf_weigh: takes float32 counts (..., depth), got " + to_string(ctx.inputs[0].dtype) +
                              " of shape " + ctx.inputs[0].shape.to_string());
           }
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .differentiable = false});
  r.add({.name = "bucketize",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_integer_or(ctx, DType::float32, "numeric");
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::int32}};
         },
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

Output tf_idf_weigh(Output counts, const TableHandle& table) {
  return counts.graph->add("tf_idf_weigh", {counts}, Attrs{{"table", table.id()}});
}

Output bucketize(Output values, const TableHandle& table) {
  return values.graph->add("bucketize", {values}, Attrs{{"table", table.id()}});
}

}  // namespace ops
}  // namespace strata
