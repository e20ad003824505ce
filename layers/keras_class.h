// A layer class's Keras config, declared once beside the layer: which constructor
// arguments and which options fields are which Keras config keys. The options struct's
// member initializers are the only place a default is written; io turns a description
// into Keras JSON both ways (io/keras_class_config.cc), so a new layer is its header,
// its source and its test. Nothing here knows JSON.
//
// This is the one registry of layer classes: every class a config may name is here. The
// few whose JSON io writes by hand (users' own layers, io::register_layer; Keras's
// generic RNN and tf.keras 2's CuDNN aliases, io/layer_configs/) are registered here too,
// holding io's code as an opaque HandWrittenConfig.
//
//   struct DenseOptions {
//     std::string activation; ...
//     static constexpr auto keras_fields() {
//       return std::tuple{keras_field("activation", &DenseOptions::activation, Spelling::activation),
//                         keras_field("use_bias", &DenseOptions::use_bias), ...};
//     }
//   };
//   // dense.cc
//   const bool registered = register_keras_class(
//       describe_layer<Dense>("Dense", &DenseImpl::options, keras_field("units", &DenseImpl::units))
//           .unmodeled({"synchronized", ...}));
#pragma once

#include <cstdint>
#include <limits>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "core/error.h"
#include "layers/axes.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/per_channel.h"
#include "layers/layer.h"

namespace strata::layers {

// How a value is spelled in Keras's JSON beyond what its C++ type says.
enum class Spelling {
  plain,
  activation,   // "" is written "linear"; Keras 2 files' hard_sigmoid is Keras 2's
  data_format,  // "" is written "channels_last"; null reads as ""
  padding,      // a padding mode, lower-cased when read
  window1,      // a 1-D window (strides, dilation_rate): written [n], read from n or [n]
  bare_single,  // a list of one value is written as that value (Keras's int-or-tuple axis,
                // EinsumDense's int-or-shape output_shape)
  unwrap1,      // an integer written n, also read from [n] (tf.keras's BatchNormalization axis)
  compact,      // an int tuple written as one int when its elements are equal (Dot's axes);
                // an int list written as an int when it holds one (LayerNormalization's axis)
  pairs,        // Padding2D: written [[top, bottom], [left, right]]; read from n, [rows, cols]
                // or the nested form
  dims,         // a Shape written as plain integers, -1 included (Reshape's target_shape)
  seed,         // a seed: one drawn here (above 2^31 - 1) is written null, Keras draws anew
  up_to,        // an int list read from n as 1..n and written n when it is 1..n
                // (TextVectorization's ngrams: an integer n means the widths 1 to n)
};

// How Keras spells the window arguments (kernel_size, strides, ...) of a layer over
// `spatial_rank` axes: 1-D windows as one-element lists, the others as plain tuples.
constexpr Spelling window_spelling(int spatial_rank) {
  return spatial_rank == 1 ? Spelling::window1 : Spelling::plain;
}

// What a config key is to the layer.
enum class FieldRole {
  value,      // a member of the layer or its options
  unmodeled,  // not kept: written as `fixed`, any value accepted (but io refuses a set
              // *_regularizer or *_constraint a class does not hold as a value)
  refused,    // not supported: written as `fixed`; a value other than null or `fixed` refused
};

// What a decoded config value is. Integer tuples (IntPair), lists and shapes are int
// vectors (a shape's None is kUnknownDim).
enum class ValueKind {
  boolean, integer, number, string, int_tuple, int_list, number_list, shape, initializer,
  layer,  // a nested layer, written as its registry entry (TimeDistributed's "layer")
  string_list,  // a list of strings (StringLookup's vocabulary)
  token,        // an integer or a string (Hashing's mask_value)
  regularizer,  // a keras.regularizers object (or Keras's name for one); null: none
  constraint,   // a keras.constraints object (or Keras's name for one); null: none
  number_map    // a JSON object of numbers by key (BatchNormalization's renorm_clipping)
};

// A config value that Keras lets be an integer or a string (Hashing's mask_value).
using Token = std::variant<std::int64_t, std::string>;

// A config value that Keras writes as a dict of numbers ({"rmax": 3.0, "dmax": 5.0}).
using NumberMap = std::map<std::string, double>;

using ConfigValue = std::variant<std::monostate, bool, std::int64_t, double, std::string,
                                 std::vector<std::int64_t>, Initializer, std::vector<double>, Layer,
                                 std::vector<std::string>, Regularizer, Constraint, NumberMap>;

struct FieldSpec {
  std::string key;
  ValueKind kind = ValueKind::integer;
  int arity = 0;          // int_tuple: its length (a single int means all equal)
  bool nullable = false;  // std::optional: null means "not set"
  Spelling spelling = Spelling::plain;
  std::string keras2_key;  // the key's older name in Keras 2 files ("alpha"), read if present
  // Integers (and each element of an integer tuple or list): the smallest value accepted.
  std::int64_t at_least = std::numeric_limits<std::int64_t>::min();
  FieldRole role = FieldRole::value;
  std::string fixed = "null";  // role != value: the JSON literal written (and accepted)
  bool written = true;         // role != value: false for keys only older files hold
  std::string note;            // refused: what the refusal says besides the key and value
};

// A value field's spec: its key and kind, the rest defaulted.
inline FieldSpec spec_of(std::string key, ValueKind kind) {
  FieldSpec s;
  s.key = std::move(key);
  s.kind = kind;
  return s;
}

// --- C++ type <-> ConfigValue ------------------------------------------------------------

template <typename T>
struct ConfigTraits;  // a field of an unsupported type fails to compile here

template <>
struct ConfigTraits<bool> {
  static constexpr ValueKind kind = ValueKind::boolean;
  static ConfigValue to(bool v) { return v; }
  static bool from(const ConfigValue& v) { return std::get<bool>(v); }
};
template <typename Int>
  requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>)
struct ConfigTraits<Int> {
  static constexpr ValueKind kind = ValueKind::integer;
  static ConfigValue to(Int v) { return static_cast<std::int64_t>(v); }
  static Int from(const ConfigValue& v) { return static_cast<Int>(std::get<std::int64_t>(v)); }
};
template <>
struct ConfigTraits<double> {
  static constexpr ValueKind kind = ValueKind::number;
  static ConfigValue to(double v) { return v; }
  static double from(const ConfigValue& v) { return std::get<double>(v); }
};
template <>
struct ConfigTraits<std::string> {
  static constexpr ValueKind kind = ValueKind::string;
  static ConfigValue to(const std::string& v) { return v; }
  static std::string from(const ConfigValue& v) { return std::get<std::string>(v); }
};
template <>
struct ConfigTraits<Initializer> {
  static constexpr ValueKind kind = ValueKind::initializer;
  static ConfigValue to(const Initializer& v) { return v; }
  static Initializer from(const ConfigValue& v) { return std::get<Initializer>(v); }
};
// Null in a config is no regularizer or constraint: the fields are not nullable, and an
// undefined value is written null.
template <>
struct ConfigTraits<Regularizer> {
  static constexpr ValueKind kind = ValueKind::regularizer;
  static ConfigValue to(const Regularizer& v) { return v.defined() ? ConfigValue(v) : ConfigValue{}; }
  static Regularizer from(const ConfigValue& v) {
    const auto* r = std::get_if<Regularizer>(&v);
    return r ? *r : Regularizer();
  }
};
template <>
struct ConfigTraits<Constraint> {
  static constexpr ValueKind kind = ValueKind::constraint;
  static ConfigValue to(const Constraint& v) { return v.defined() ? ConfigValue(v) : ConfigValue{}; }
  static Constraint from(const ConfigValue& v) {
    const auto* c = std::get_if<Constraint>(&v);
    return c ? *c : Constraint();
  }
};
template <>
struct ConfigTraits<IntPair> {
  static constexpr ValueKind kind = ValueKind::int_tuple;
  static constexpr int arity = 2;
  static ConfigValue to(const IntPair& v) { return v.vec(); }
  static IntPair from(const ConfigValue& v) {
    const auto& x = std::get<std::vector<std::int64_t>>(v);
    return {x.at(0), x.at(1)};
  }
};
template <>
struct ConfigTraits<IntTriple> {
  static constexpr ValueKind kind = ValueKind::int_tuple;
  static constexpr int arity = 3;
  static ConfigValue to(const IntTriple& v) { return v.vec(); }
  static IntTriple from(const ConfigValue& v) {
    const auto& x = std::get<std::vector<std::int64_t>>(v);
    return {x.at(0), x.at(1), x.at(2)};
  }
};
template <>
struct ConfigTraits<Padding3D> {
  static constexpr ValueKind kind = ValueKind::int_tuple;
  static constexpr int arity = 6;  // front, back, top, bottom, left, right
  static ConfigValue to(const Padding3D& v) { return v.vec(); }
  static Padding3D from(const ConfigValue& v) {
    const auto& x = std::get<std::vector<std::int64_t>>(v);
    return {IntPair(x.at(0), x.at(1)), IntPair(x.at(2), x.at(3)), IntPair(x.at(4), x.at(5))};
  }
};
template <>
struct ConfigTraits<Padding2D> {
  static constexpr ValueKind kind = ValueKind::int_tuple;
  static constexpr int arity = 4;  // top, bottom, left, right
  static ConfigValue to(const Padding2D& v) {
    return std::vector<std::int64_t>{v.rows.first, v.rows.second, v.cols.first, v.cols.second};
  }
  static Padding2D from(const ConfigValue& v) {
    const auto& x = std::get<std::vector<std::int64_t>>(v);
    return {IntPair(x.at(0), x.at(1)), IntPair(x.at(2), x.at(3))};
  }
};
template <>
struct ConfigTraits<std::vector<std::int64_t>> {
  static constexpr ValueKind kind = ValueKind::int_list;
  static ConfigValue to(const std::vector<std::int64_t>& v) { return v; }
  static std::vector<std::int64_t> from(const ConfigValue& v) {
    return std::get<std::vector<std::int64_t>>(v);
  }
};
template <>
struct ConfigTraits<std::vector<double>> {
  static constexpr ValueKind kind = ValueKind::number_list;
  static ConfigValue to(const std::vector<double>& v) { return v; }
  static std::vector<double> from(const ConfigValue& v) { return std::get<std::vector<double>>(v); }
};
template <>
struct ConfigTraits<std::vector<std::string>> {
  static constexpr ValueKind kind = ValueKind::string_list;
  static ConfigValue to(const std::vector<std::string>& v) { return v; }
  static std::vector<std::string> from(const ConfigValue& v) { return std::get<std::vector<std::string>>(v); }
};
template <>
struct ConfigTraits<NumberMap> {
  static constexpr ValueKind kind = ValueKind::number_map;
  static ConfigValue to(const NumberMap& v) { return v; }
  static NumberMap from(const ConfigValue& v) { return std::get<NumberMap>(v); }
};
template <>
struct ConfigTraits<Token> {
  static constexpr ValueKind kind = ValueKind::token;
  static ConfigValue to(const Token& v) {
    return std::visit([](const auto& x) { return ConfigValue(x); }, v);
  }
  static Token from(const ConfigValue& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    return std::get<std::string>(v);
  }
};
template <>
struct ConfigTraits<Axes> {
  static constexpr ValueKind kind = ValueKind::int_list;
  static ConfigValue to(const Axes& v) { return v.values; }
  static Axes from(const ConfigValue& v) { return Axes(std::get<std::vector<std::int64_t>>(v)); }
};
template <>
struct ConfigTraits<PerChannel> {
  static constexpr ValueKind kind = ValueKind::number_list;
  static ConfigValue to(const PerChannel& v) { return v.values; }
  static PerChannel from(const ConfigValue& v) { return PerChannel(std::get<std::vector<double>>(v)); }
};
template <>
struct ConfigTraits<Shape> {
  static constexpr ValueKind kind = ValueKind::shape;
  static ConfigValue to(const Shape& v) { return v.dims(); }
  static Shape from(const ConfigValue& v) { return Shape(std::get<std::vector<std::int64_t>>(v)); }
};
template <>
struct ConfigTraits<Layer> {
  static constexpr ValueKind kind = ValueKind::layer;
  static ConfigValue to(const Layer& v) { return v; }
  static Layer from(const ConfigValue& v) { return std::get<Layer>(v); }
};
template <typename T>
struct ConfigTraits<std::optional<T>> {
  static constexpr ValueKind kind = ConfigTraits<T>::kind;
  static ConfigValue to(const std::optional<T>& v) {
    return v ? ConfigTraits<T>::to(*v) : ConfigValue{};
  }
  static std::optional<T> from(const ConfigValue& v) {
    if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
    return ConfigTraits<T>::from(v);
  }
};

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

// The length of a tuple type (IntPair: 2); 0 for everything else.
template <typename T>
constexpr int arity_of() {
  if constexpr (is_optional<T>::value) {
    return arity_of<typename T::value_type>();
  } else if constexpr (requires { ConfigTraits<T>::arity; }) {
    return ConfigTraits<T>::arity;
  } else {
    return 0;
  }
}

// One config key and the member that holds it (or, for a constructor argument the layer
// keeps in another form, the function that gives it back: `+[](const MyImpl& l) {
// return l.window.front(); }`).
template <typename Owner, typename T>
struct KerasField {
  using value_type = T;
  const char* key;
  T Owner::*member = nullptr;
  Spelling spelling = Spelling::plain;
  const char* keras2_key = "";
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  T (*getter)(const Owner&) = nullptr;

  T get(const Owner& owner) const { return getter ? getter(owner) : owner.*member; }
  FieldSpec spec() const {
    FieldSpec s = spec_of(key, ConfigTraits<T>::kind);
    s.arity = arity_of<T>();
    s.nullable = is_optional<T>::value;
    s.spelling = spelling;
    s.keras2_key = keras2_key;
    s.at_least = min;
    return s;
  }
  // The same field, also read from its Keras 2 name.
  constexpr KerasField also_read_as(const char* old_key) const {
    KerasField f = *this;
    f.keras2_key = old_key;
    return f;
  }
  // Integers below `lowest` (or tuples holding one) are refused when read.
  constexpr KerasField at_least(std::int64_t lowest) const {
    KerasField f = *this;
    f.min = lowest;
    return f;
  }
};

template <typename Owner, typename T>
constexpr KerasField<Owner, T> keras_field(const char* key, T Owner::*member,
                                           Spelling spelling = Spelling::plain) {
  KerasField<Owner, T> f;
  f.key = key;
  f.member = member;
  f.spelling = spelling;
  return f;
}
template <typename Owner, typename T>
constexpr KerasField<Owner, T> keras_field(const char* key, T (*getter)(const Owner&),
                                           Spelling spelling = Spelling::plain) {
  KerasField<Owner, T> f{key, nullptr, spelling};
  f.getter = getter;
  return f;
}

// A key Keras writes that no member holds, at its place among the fields:
// keras_unmodeled("synchronized", "false") is written false and accepted with any value
// (a *_regularizer or *_constraint key so marked is written null and refused when set:
// io/layer_config.cc);
// keras_refused("output_padding") is written null and refused unless null;
// keras_refused("rms_scaling", "false") is written false and refused unless null or false.
// `fixed` is a JSON literal. .unwritten(): only read (keys of older files).
struct KerasFixed {
  const char* key;
  FieldRole role;
  const char* fixed = "null";
  bool written = true;
  const char* note = "";

  constexpr KerasFixed unwritten() const {
    KerasFixed f = *this;
    f.written = false;
    return f;
  }
  // A refusal's explanation: "'sparse' = true is not supported (sparse inputs)".
  constexpr KerasFixed because(const char* why) const {
    KerasFixed f = *this;
    f.note = why;
    return f;
  }
  FieldSpec spec() const {
    FieldSpec s;
    s.key = key;
    s.role = role;
    s.fixed = fixed;
    s.written = written;
    s.note = note;
    return s;
  }
};
constexpr KerasFixed keras_unmodeled(const char* key, const char* written_as = "null") {
  KerasFixed f{key, FieldRole::unmodeled};
  f.fixed = written_as;
  return f;
}
constexpr KerasFixed keras_refused(const char* key, const char* allowed = "null") {
  KerasFixed f{key, FieldRole::refused};
  f.fixed = allowed;
  return f;
}

// `fields` when On, else none: for a family whose classes write different subsets of keys.
template <bool On, typename... Fields>
constexpr auto keras_fields_if(Fields... fields) {
  if constexpr (On) {
    return std::tuple{fields...};
  } else {
    return std::tuple<>{};
  }
}

// What io hands a description when reading: the config's values, decoded per FieldSpec.
class ConfigSource {
 public:
  virtual ~ConfigSource() = default;
  // The value of `field`; nullopt when the config lacks the key (or, for a field that is
  // not nullable, holds null). Throws ValueError naming the layer and key on a bad value.
  virtual std::optional<ConfigValue> get(const FieldSpec& field) const = 0;
  virtual std::string name() const = 0;
  // "Dense 'dense_1'" (and the file), for messages.
  virtual std::string where() const = 0;
  // Which Keras wrote the config: 2 for Keras 2 / tf.keras files.
  virtual int keras_major() const { return 3; }
};

// The config code of a class whose JSON is written by hand above layers/ (io/layer_config.cc
// wraps its LayerConfigEntry in one): layers/ only holds it.
struct HandWrittenConfig {
  virtual ~HandWrittenConfig() = default;
};

// A layer class as Keras's config sees it (type-erased; made by describe_layer).
struct KerasClass {
  std::string class_name;
  std::string module = "keras.layers";
  // Set for a class whose JSON io writes and reads by hand (registered through
  // io::register_layer_config); its fields, values and make are then empty.
  std::shared_ptr<const HandWrittenConfig> hand_written;
  // Whether the config holds "trainable" (Keras's Discretization takes no such argument).
  bool trainable_key = true;
  // Constructor arguments, then options (and fixed keys), in Keras's order.
  std::vector<FieldSpec> fields;
  // The values of the fields whose role is `value`, in order.
  std::function<std::vector<ConfigValue>(const LayerImpl&)> values;
  std::function<Layer(const ConfigSource&)> make;
  // Optional: runs on a config before `make`, for what one field's decoding cannot say.
  std::function<void(const ConfigSource&)> check;
  // Where a Keras 3 file keeps the layer's variables, relative to layers/<key>; without
  // it, all of them in "vars". A group naming a `nested` layer stands for that layer's own
  // groups under `path` (TimeDistributed: {"layer/", {}, inner}).
  struct VarGroup {
    std::string path;
    std::vector<Variable> variables;
    Layer nested;
  };
  std::function<std::vector<VarGroup>(const LayerImpl&)> keras3_vars;
  // Files a Keras 3 .keras archive keeps for the layer under assets/<its layer path>/
  // (an adapted lookup layer's vocabulary.txt): name -> bytes. Without it, none.
  std::function<std::map<std::string, std::string>(const LayerImpl&)> save_assets;
  // Reads them back: `read(name)` gives a file's bytes, or nullopt when absent.
  std::function<void(LayerImpl&, const std::function<std::optional<std::string>(const std::string&)>& read)>
      load_assets;

  // Tensors a Keras 3 .keras file keeps by names of their own in model.weights.h5, beside
  // the variables (IndexLookup's tf_idf "idf_weights", layer state rather than a weight):
  // path below layers/<key> ("vars/idf_weights") -> value. Without it, none.
  std::function<std::map<std::string, Tensor>(const LayerImpl&)> save_own_tensors;
  // Reads them back: `read(path)` gives the file's tensor (float32), or nullopt when absent.
  std::function<void(LayerImpl&, const std::function<std::optional<Tensor>(const std::string&)>& read)>
      load_own_tensors;

  // Keys Keras writes that Strata does not keep: written null after the fields. A set
  // regularizer or constraint among them is refused by io (io/layer_config.cc); any other
  // value is accepted.
  KerasClass& unmodeled(const std::vector<std::string>& keys) {
    for (const auto& k : keys) {
      fields.push_back(keras_unmodeled("").spec());
      fields.back().key = k;
    }
    return *this;
  }
  // Keys whose non-null values Strata cannot honour: written null, refused when set.
  KerasClass& refused(const std::vector<std::string>& keys) {
    for (const auto& k : keys) {
      fields.push_back(keras_refused("").spec());
      fields.back().key = k;
    }
    return *this;
  }
  // Keys no member holds (keras_unmodeled / keras_refused), after the fields.
  KerasClass& fixed(const std::vector<KerasFixed>& keys) {
    for (const auto& k : keys) fields.push_back(k.spec());
    return *this;
  }
  KerasClass& checked(std::function<void(const ConfigSource&)> fn) {
    check = std::move(fn);
    return *this;
  }
  KerasClass& vars(std::function<std::vector<VarGroup>(const LayerImpl&)> fn) {
    keras3_vars = std::move(fn);
    return *this;
  }
};

// Registers (or replaces) a class; returns true for use in a static initializer. A class
// with hand-written config code is never replaced by a described one, whichever
// registers first: a user's io::register_layer<MyDense>("Dense") overrides the built-in.
bool register_keras_class(KerasClass description);
// Null when no class of this name is registered. The entry stays valid while held, even
// if the class is registered again meanwhile.
std::shared_ptr<const KerasClass> find_keras_class(const std::string& class_name);
// Every registered class, sorted.
std::vector<std::string> keras_class_names();

namespace detail {

template <typename T>
ConfigValue to_value(const T& v) {
  return ConfigTraits<T>::to(v);
}

// An argument: its key is required.
template <typename Field>
typename Field::value_type read_required(const ConfigSource& src, const Field& f) {
  std::optional<ConfigValue> v = src.get(f.spec());
  if (!v) throw ValueError(src.where() + ": config has no '" + f.key + "'");
  return ConfigTraits<typename Field::value_type>::from(*v);
}

// An option: absent keys keep the options struct's default.
template <typename Options, typename T>
void read_optional(const ConfigSource& src, const KerasField<Options, T>& f, Options& o) {
  if (std::optional<ConfigValue> v = src.get(f.spec())) o.*(f.member) = ConfigTraits<T>::from(*v);
}
template <typename Options>
void read_optional(const ConfigSource&, const KerasFixed&, Options&) {}

template <typename Options, typename T>
void push_value(std::vector<ConfigValue>& out, const Options& o, const KerasField<Options, T>& f) {
  out.push_back(to_value(o.*(f.member)));
}
template <typename Options>
void push_value(std::vector<ConfigValue>&, const Options&, const KerasFixed&) {}

}  // namespace detail

// Building blocks for a class described by hand (a layer made from two options structs,
// or with a make of its own): a tuple of fields' specs, values and reading.
template <typename Fields>
void append_keras_specs(KerasClass& k, const Fields& fields) {
  std::apply([&](const auto&... f) { (k.fields.push_back(f.spec()), ...); }, fields);
}
template <typename Options, typename Fields>
void append_keras_values(std::vector<ConfigValue>& out, const Options& o, const Fields& fields) {
  std::apply([&](const auto&... f) { (detail::push_value(out, o, f), ...); }, fields);
}
// Absent keys keep o's values.
template <typename Options, typename Fields>
void read_keras_fields(const ConfigSource& src, const Fields& fields, Options& o) {
  std::apply([&](const auto&... f) { (detail::read_optional(src, f, o), ...); }, fields);
}

namespace detail {

template <typename Options>
constexpr auto keras_fields_of() {
  if constexpr (requires { Options::keras_fields(); }) {
    return Options::keras_fields();
  } else {
    return std::tuple<>{};  // an options struct with only a name
  }
}

template <typename LayerT, typename ImplT, typename Options, typename OptionFields,
          typename... Args>
KerasClass describe(std::string class_name, std::function<Options(const ImplT&)> options,
                    OptionFields option_fields, KerasField<ImplT, Args>... args) {
  KerasClass k;
  k.class_name = std::move(class_name);
  (k.fields.push_back(args.spec()), ...);
  append_keras_specs(k, option_fields);

  k.values = [=](const LayerImpl& impl) {
    const auto& l = static_cast<const ImplT&>(impl);
    const Options o = options(l);
    std::vector<ConfigValue> out;
    (out.push_back(to_value(args.get(l))), ...);
    append_keras_values(out, o, option_fields);
    return out;
  };
  k.make = [=](const ConfigSource& src) -> Layer {
    Options o;
    if constexpr (requires { o.name; }) o.name = src.name();
    read_keras_fields(src, option_fields, o);
    // Braced: the arguments are read in declaration order.
    std::tuple<Args...> values{read_required(src, args)...};
    return std::apply([&](auto&... a) -> Layer { return LayerT(a..., o); }, values);
  };
  return k;
}

}  // namespace detail

// The description of LayerT (whose constructor takes the argument fields' values, then
// Options) from ImplT's members. Arguments are required keys; options keys are optional
// and default to the Options struct's initializers (Options::keras_fields(); an options
// struct without it has no keys but its name).
template <typename LayerT, typename ImplT, typename Options, typename... Args>
KerasClass describe_layer(std::string class_name, Options ImplT::*options,
                          KerasField<ImplT, Args>... args) {
  return detail::describe<LayerT, ImplT, Options>(
      std::move(class_name), [options](const ImplT& l) { return l.*options; },
      detail::keras_fields_of<Options>(), args...);
}

// The same where the layer keeps its options in another form (a family sharing one Impl):
// `options` rebuilds them from the Impl.
template <typename LayerT, typename ImplT, typename Options, typename... Args>
KerasClass describe_layer(std::string class_name, Options (*options)(const ImplT&),
                          KerasField<ImplT, Args>... args) {
  return detail::describe<LayerT, ImplT, Options>(std::move(class_name), options,
                                                  detail::keras_fields_of<Options>(), args...);
}

// The same with the options' fields given here (a class of a family that writes fewer of
// its shared options struct's keys, e.g. SpatialDropout1D has no data_format).
template <typename LayerT, typename ImplT, typename Options, typename... Fields,
          typename... Args>
KerasClass describe_layer(std::string class_name, Options (*options)(const ImplT&),
                          std::tuple<Fields...> option_fields, KerasField<ImplT, Args>... args) {
  return detail::describe<LayerT, ImplT, Options>(std::move(class_name), options, option_fields,
                                                  args...);
}

}  // namespace strata::layers
