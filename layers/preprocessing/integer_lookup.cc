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
  options.output_mode = lookup_config().output_mode;  // "tf-idf" written as Keras writes it
  check_idf_weights_option("IntegerLookup '" + name + "'", lookup_config().output_mode, options.vocabulary.has_value(),
                           options.idf_weights.has_value());
  if (options.vocabulary) {
    if (options.idf_weights) {
      set_int_vocabulary(*options.vocabulary, *options.idf_weights);
    } else {
      set_int_vocabulary(*options.vocabulary);
    }
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
void IntegerLookup::set_vocabulary(const std::vector<std::int64_t>& vocabulary,
                                   const std::optional<std::vector<double>>& idf_weights) const {
  check_idf_weights_option("IntegerLookup '" + name() + "'", lookup().lookup_config().output_mode, true,
                           idf_weights.has_value());
  if (idf_weights) {
    lookup().set_int_vocabulary(vocabulary, *idf_weights);
  } else {
    lookup().set_int_vocabulary(vocabulary);
  }
}
std::vector<float> IntegerLookup::idf_weights() const { return lookup().idf_weights(); }
std::int64_t IntegerLookup::vocabulary_size() const { return lookup().vocabulary_size(); }

namespace {
const bool integer_lookup_registered = [] {
  KerasClass k = describe_layer<IntegerLookup>("IntegerLookup", +[](const IntegerLookupImpl& l) {
    IntegerLookupOptions o = l.options;
    o.vocabulary_size = l.vocabulary_size();
    return o;
  });
  describe_lookup_state(k);
  return register_keras_class(std::move(k));
}();
}  // namespace

}  // namespace strata::layers
