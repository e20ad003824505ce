#include "layers/preprocessing/string_lookup.h"

namespace strata::layers {

namespace {

IndexLookupConfig string_lookup_config(const StringLookupOptions& o) {
  if (o.encoding != "utf-8" && o.encoding != "UTF-8") {
    throw NotImplementedError("StringLookup '" + o.name + "': encoding '" + o.encoding +
                              "' is not supported (strings are UTF-8 bytes)");
  }
  return shared_lookup_config(o, true);
}

}  // namespace

StringLookupImpl::StringLookupImpl(StringLookupOptions options_)
    : IndexLookupImpl("StringLookup", options_.name, string_lookup_config(options_)), options(std::move(options_)) {
  options.output_mode = lookup_config().output_mode;  // "tf-idf" written as Keras writes it
  check_idf_weights_option("StringLookup '" + name + "'", lookup_config().output_mode, options.vocabulary.has_value(),
                           options.idf_weights.has_value());
  if (options.vocabulary) {
    if (options.idf_weights) {
      set_string_vocabulary(*options.vocabulary, *options.idf_weights);
    } else {
      set_string_vocabulary(*options.vocabulary);
    }
    adapted_ = false;  // saved in the config
  }
}

StringLookup::StringLookup(StringLookupOptions options)
    : Layer(std::make_shared<StringLookupImpl>(std::move(options))) {}

StringLookup StringLookup::from(const Layer& layer) {
  if (!dynamic_cast<StringLookupImpl*>(&layer.impl())) {
    throw ValueError("layer '" + layer.name() + "' is a " + layer.class_name() + ", not a StringLookup");
  }
  return StringLookup(layer.shared_impl());
}

IndexLookupImpl& StringLookup::lookup() const { return static_cast<IndexLookupImpl&>(impl()); }
void StringLookup::adapt(const Tensor& data) const { lookup().adapt(data); }
std::vector<std::string> StringLookup::get_vocabulary(bool include_special_tokens) const {
  return lookup().string_vocabulary(include_special_tokens);
}
void StringLookup::set_vocabulary(const std::vector<std::string>& vocabulary,
                                  const std::optional<std::vector<double>>& idf_weights) const {
  check_idf_weights_option("StringLookup '" + name() + "'", lookup().lookup_config().output_mode, true,
                           idf_weights.has_value());
  if (idf_weights) {
    lookup().set_string_vocabulary(vocabulary, *idf_weights);
  } else {
    lookup().set_string_vocabulary(vocabulary);
  }
}
std::vector<float> StringLookup::idf_weights() const { return lookup().idf_weights(); }
std::int64_t StringLookup::vocabulary_size() const { return lookup().vocabulary_size(); }

namespace {
const bool string_lookup_registered = [] {
  KerasClass k = describe_layer<StringLookup>("StringLookup", +[](const StringLookupImpl& l) {
    StringLookupOptions o = l.options;
    o.vocabulary_size = l.vocabulary_size();
    return o;
  });
  describe_lookup_state(k);
  return register_keras_class(std::move(k));
}();
}  // namespace

}  // namespace strata::layers
