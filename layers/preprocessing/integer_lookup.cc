#include "layers/preprocessing/integer_lookup.h"

namespace strata::layers {

namespace {

IndexLookupConfig integer_lookup_config(const IntegerLookupOptions& o) {
  if (o.vocabulary_dtype != "int64") {
    throw ValueError("IntegerLookup '" + o.name + "': only vocabulary_dtype 'int64' is supported, got '" +
                     o.vocabulary_dtype + "'");
  }
  if (o.oov_method != "floormod" && o.oov_method != "farmhash") {
    throw ValueError("IntegerLookup '" + o.name + "': oov_method must be 'floormod' or 'farmhash', got '" +
                     o.oov_method + "'");
  }
  IndexLookupConfig c = shared_lookup_config(o, false);
  c.floormod_oov = o.oov_method == "floormod";
  return c;
}

}  // namespace

IntegerLookupImpl::IntegerLookupImpl(IntegerLookupOptions options_)
    : IndexLookupImpl("IntegerLookup", options_.name, integer_lookup_config(options_)), options(std::move(options_)) {
  if (options.vocabulary) {
    set_int_vocabulary(*options.vocabulary);
    adapted_ = false;  // saved in the config
  }
}

IntegerLookup::IntegerLookup(IntegerLookupOptions options)
    : Layer(std::make_shared<IntegerLookupImpl>(std::move(options))) {}

IntegerLookup IntegerLookup::from(const Layer& layer) {
  if (!dynamic_cast<IntegerLookupImpl*>(&layer.impl())) {
    throw ValueError("layer '" + layer.name() + "' is a " + layer.class_name() + ", not an IntegerLookup");
  }
  return IntegerLookup(layer.shared_impl());
}

IndexLookupImpl& IntegerLookup::lookup() const { return static_cast<IndexLookupImpl&>(impl()); }
void IntegerLookup::adapt(const Tensor& data) const { lookup().adapt(data); }
std::vector<std::int64_t> IntegerLookup::get_vocabulary(bool include_special_tokens) const {
  return lookup().int_vocabulary(include_special_tokens);
}
void IntegerLookup::set_vocabulary(const std::vector<std::int64_t>& vocabulary) const {
  lookup().set_int_vocabulary(vocabulary);
}
std::int64_t IntegerLookup::vocabulary_size() const { return lookup().vocabulary_size(); }

namespace {
const bool integer_lookup_registered = [] {
  KerasClass k = describe_layer<IntegerLookup>("IntegerLookup", +[](const IntegerLookupImpl& l) {
    IntegerLookupOptions o = l.options;
    o.vocabulary_size = l.vocabulary_size();
    return o;
  });
  describe_lookup_assets(k);
  return register_keras_class(std::move(k));
}();
}  // namespace

}  // namespace strata::layers
