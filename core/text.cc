#include "core/text.h"

#include "core/error.h"

namespace strata::text {

namespace {

bool is_punctuation(unsigned char c) {
  // Keras's class [!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\'], every ASCII punctuation mark
  // (",-\." is the range ',' to '.', which holds '-').
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// The length of the well-formed UTF-8 sequence at s[i], or 0 when it is malformed.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
    cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    cp = b & 0x0F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are malformed.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

Standardize parse_standardize(const std::string& name) {
  if (name.empty()) return Standardize::none;
  if (name == "lower") return Standardize::lower;
  if (name == "strip_punctuation") return Standardize::strip_punctuation;
  if (name == "lower_and_strip_punctuation") return Standardize::lower_and_strip_punctuation;
  throw ValueError("standardize must be None, 'lower_and_strip_punctuation', 'lower' or 'strip_punctuation', got '" +
                   name + "'");
}

Split parse_split(const std::string& name) {
  if (name.empty()) return Split::none;
  if (name == "whitespace") return Split::whitespace;
  if (name == "character") return Split::character;
  throw ValueError("split must be None, 'whitespace' or 'character', got '" + name + "'");
}

std::string standardize(std::string_view value, Standardize mode) {
  const bool lower = mode == Standardize::lower || mode == Standardize::lower_and_strip_punctuation;
  const bool strip = mode == Standardize::strip_punctuation || mode == Standardize::lower_and_strip_punctuation;
  std::string out;
  out.reserve(value.size());
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (strip && is_punctuation(c)) continue;  // ASCII bytes never occur inside a UTF-8 sequence
    out.push_back(lower && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : ch);
  }
  return out;
}

void split(const std::string& value, Split mode, std::vector<std::string>& out) {
  switch (mode) {
    case Split::none:
      out.push_back(value);
      return;
    case Split::whitespace: {
      std::size_t i = 0;
      while (i < value.size()) {
        while (i < value.size() && is_space(value[i])) ++i;
        std::size_t j = i;
        while (j < value.size() && !is_space(value[j])) ++j;
        if (j > i) out.push_back(value.substr(i, j - i));
        i = j;
      }
      return;
    }
    case Split::character:
      for (std::size_t i = 0; i < value.size();) {
        const std::size_t n = utf8_length(value, i);
        out.push_back(n ? value.substr(i, n) : std::string("\xEF\xBF\xBD"));
        i += n ? n : 1;
      }
      return;
  }
}

std::vector<std::string> ngrams(const std::vector<std::string>& tokens, const std::vector<std::int64_t>& widths) {
  if (widths.empty()) return tokens;
  std::vector<std::string> out;
  const auto n = static_cast<std::int64_t>(tokens.size());
  for (std::int64_t w : widths) {
    for (std::int64_t start = 0; start + w <= n; ++start) {
      std::string gram = tokens[static_cast<std::size_t>(start)];
      for (std::int64_t k = 1; k < w; ++k) gram += " " + tokens[static_cast<std::size_t>(start + k)];
      out.push_back(std::move(gram));
    }
  }
  return out;
}

std::vector<std::string> row_tokens(const std::vector<std::string_view>& elements, const TextOptions& options) {
  std::vector<std::string> tokens;
  for (std::string_view e : elements) split(standardize(e, options.standardize), options.split, tokens);
  return ngrams(tokens, options.ngrams);
}

}  // namespace strata::text
