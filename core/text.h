// Keras's TextVectorization text processing, as TensorFlow's string ops do it, for the
// layer's kernel (core/cpu/kernels/text.cc) and its adapt (one definition for both):
//
//   standardize  tf.strings.lower (ASCII letters only, as TensorFlow's default encoding
//                does), then tf.strings.regex_replace of Keras's punctuation class (the
//                32 ASCII punctuation characters, string.punctuation) by nothing;
//   split        tf.strings.split (runs of ASCII whitespace " \t\n\v\f\r", none kept at
//                either end) or tf.strings.unicode_split(..., "UTF-8") (one token per code
//                point; a malformed byte is U+FFFD, TensorFlow's errors="replace");
//   ngrams       tf.strings.ngrams(..., separator=" "): for each width in order, every
//                run of that many tokens joined by one space (none when the row is shorter).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::text {

enum class Standardize { none, lower, strip_punctuation, lower_and_strip_punctuation };
enum class Split { none, whitespace, character };

// Keras's spellings ("lower_and_strip_punctuation", "" for None); ValueError otherwise.
Standardize parse_standardize(const std::string& name);
Split parse_split(const std::string& name);

std::string standardize(std::string_view value, Standardize mode);

// Appends the tokens of `value` to `out` (split none: `value` itself).
void split(const std::string& value, Split mode, std::vector<std::string>& out);

// The ngrams of `tokens` for `widths` (empty: the tokens themselves).
std::vector<std::string> ngrams(const std::vector<std::string>& tokens, const std::vector<std::int64_t>& widths);

struct TextOptions {
  Standardize standardize = Standardize::lower_and_strip_punctuation;
  Split split = Split::whitespace;
  std::vector<std::int64_t> ngrams;  // widths; empty: no ngrams
};

// The tokens of one row: its elements standardized, each split (with split none, each
// element is one token), then the ngrams over the row's tokens.
std::vector<std::string> row_tokens(const std::vector<std::string_view>& elements, const TextOptions& options);

}  // namespace strata::text
