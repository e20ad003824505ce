// A tiny command-line flags parser for Strata's programs: the examples, the tools, the
// benchmarks and the tests' jobs (header-only; CMake target strata_flags).
//
//   int epochs = 10;  int batch_size = 32;  double learning_rate = 1e-3;
//   std::string data_dir;  bool verbose = true;
//   strata::cli::Flags flags("Trains an MLP on Fashion-MNIST.");
//   flags.add("epochs", &epochs, "passes over the training data")
//        .add("batch_size", &batch_size, "samples per step")
//        .add("learning_rate", &learning_rate, "Adam's step size")
//        .add("data_dir", &data_dir, "where the dataset lives")
//        .add("verbose", &verbose, "print progress");
//   flags.parse_or_exit(argc, argv);   // prints "flags: epochs=3 batch_size=32 ..."
//
// Accepted: `--epochs=10`, `--epochs 10`, `--batch-size 64` (dashes and underscores are
// the same), bools as `--verbose`, `--noverbose`, `--no-verbose`, `--verbose=false`
// (1/0, true/false, yes/no); `--` ends the flags; other arguments are positional.
// `--help` / `-h` prints the usage. The summary line is made from the variables
// themselves after parsing, so it shows the values the program actually runs with.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "core/error.h"

namespace strata::cli {

class Flags {
 public:
  explicit Flags(std::string description = "") : description_(std::move(description)) {}

  // Registers a flag bound to `value`; its current value is the default.
  template <typename T>
  Flags& add(const std::string& name, T* value, const std::string& help = "") {
    static_assert(std::is_same_v<T, int> || std::is_same_v<T, std::int64_t> ||
                      std::is_same_v<T, float> || std::is_same_v<T, double> ||
                      std::is_same_v<T, std::string> || std::is_same_v<T, bool>,
                  "Flags::add supports int, int64_t, float, double, std::string and bool");
    const std::string key = normalize(name);
    if (key.empty() || find(key) != nullptr) {
      throw ValueError("Flags::add: flag name '" + name + "' is empty or already registered");
    }
    flags_.push_back({key, help, Target(value), format(Target(value)), false});
    return *this;
  }

  // Parses argv. Returns false when --help was given (usage written to `out`); throws
  // ValueError for unknown flags, missing or malformed values.
  bool parse(int argc, const char* const* argv, std::ostream& out = std::cout) {
    if (argc > 0 && argv[0]) program_ = argv[0];
    bool flags_done = false;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (flags_done || arg.size() < 2 || arg[0] != '-' || arg == "-") {
        positional_.push_back(arg);
        continue;
      }
      if (arg == "--") {
        flags_done = true;
        continue;
      }
      if (arg == "-h" || arg == "--help" || arg == "-help") {
        out << usage();
        return false;
      }
      std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
      std::string value;
      bool has_value = false;
      if (auto eq = body.find('='); eq != std::string::npos) {
        value = body.substr(eq + 1);
        body = body.substr(0, eq);
        has_value = true;
      }
      std::string key = normalize(body);
      Flag* flag = find(key);
      if (!flag && !has_value) {  // --noverbose / --no-verbose
        for (const std::string prefix : {"no_", "no"}) {
          if (key.starts_with(prefix)) {
            Flag* negated = find(key.substr(prefix.size()));
            if (negated && std::holds_alternative<bool*>(negated->target)) {
              *std::get<bool*>(negated->target) = false;
              negated->set = true;
              flag = negated;
              break;
            }
          }
        }
        if (flag) continue;
      }
      if (!flag) throw ValueError("unknown flag '" + arg + "'" + suggestion(key) + "; see --help");
      if (std::holds_alternative<bool*>(flag->target)) {
        set_bool(*flag, has_value ? value : "true", arg);
      } else {
        if (!has_value) {
          if (i + 1 >= argc) throw ValueError("flag --" + flag->name + " needs a value");
          value = argv[++i];
        }
        set_value(*flag, value, arg);
      }
      flag->set = true;
    }
    return true;
  }

  // For main(): parse, print the summary line and return; --help exits 0, a bad command
  // line prints the error and the usage to stderr and exits 2.
  void parse_or_exit(int argc, const char* const* argv) {
    try {
      if (!parse(argc, argv)) std::exit(0);
    } catch (const ValueError& e) {
      std::cerr << "error: " << e.what() << "\n" << usage();
      std::exit(2);
    }
    std::cout << summary() << std::endl;
  }

  // "flags: epochs=10 batch_size=32 ...", from the bound variables' current values.
  std::string summary() const {
    std::string s = "flags:";
    for (const Flag& f : flags_) s += " " + f.name + "=" + format(f.target);
    return s;
  }

  std::string usage() const {
    std::string s = "usage: " + (program_.empty() ? std::string("program") : program_) +
                    " [--flag=value ...]\n";
    if (!description_.empty()) s += description_ + "\n";
    s += "flags:\n";
    for (const Flag& f : flags_) {
      s += "  --" + f.name + " (" + type_name(f.target) + ", default " + f.default_text + ")";
      if (!f.help.empty()) s += "  " + f.help;
      s += "\n";
    }
    return s;
  }

  bool was_set(const std::string& name) const {
    const Flag* f = const_cast<Flags*>(this)->find(normalize(name));
    return f && f->set;
  }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  using Target = std::variant<int*, std::int64_t*, float*, double*, std::string*, bool*>;
  struct Flag {
    std::string name;
    std::string help;
    Target target;
    std::string default_text;
    bool set = false;
  };

  static std::string normalize(std::string name) {
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
  }

  Flag* find(const std::string& key) {
    for (Flag& f : flags_) {
      if (f.name == key) return &f;
    }
    return nullptr;
  }

  std::string suggestion(const std::string& key) const {
    for (const Flag& f : flags_) {
      if (f.name.starts_with(key) || key.starts_with(f.name))
        return " (did you mean --" + f.name + "?)";
    }
    return "";
  }

  static std::string type_name(const Target& t) {
    switch (t.index()) {
      case 0:
      case 1:
        return "int";
      case 2:
      case 3:
        return "float";
      case 4:
        return "string";
      default:
        return "bool";
    }
  }

  static std::string format(const Target& t) {
    return std::visit(
        [](auto* p) -> std::string {
          using T = std::remove_pointer_t<decltype(p)>;
          if constexpr (std::is_same_v<T, bool>) {
            return *p ? "true" : "false";
          } else if constexpr (std::is_same_v<T, std::string>) {
            if (p->empty() || p->find(' ') != std::string::npos) return "\"" + *p + "\"";
            return *p;
          } else {
            char buf[64];
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, *p);  // shortest round trip
            return ec == std::errc() ? std::string(buf, end) : std::to_string(*p);
          }
        },
        t);
  }

  static void set_bool(Flag& f, std::string v, const std::string& arg) {
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    bool* p = std::get<bool*>(f.target);
    if (v == "true" || v == "1" || v == "yes") {
      *p = true;
    } else if (v == "false" || v == "0" || v == "no") {
      *p = false;
    } else {
      throw ValueError("flag --" + f.name + " is a bool: expected true/false/1/0/yes/no, got '" +
                       v + "' in '" + arg + "'");
    }
  }

  static void set_value(Flag& f, const std::string& v, const std::string& arg) {
    std::visit(
        [&](auto* p) {
          using T = std::remove_pointer_t<decltype(p)>;
          if constexpr (std::is_same_v<T, std::string>) {
            *p = v;
          } else if constexpr (!std::is_same_v<T, bool>) {
            T parsed{};
            const char* begin = v.data();
            const char* end = v.data() + v.size();
            if (!v.empty() && *begin == '+') ++begin;
            auto [ptr, ec] = std::from_chars(begin, end, parsed);
            if (v.empty() || ec != std::errc() || ptr != end) {
              throw ValueError("flag --" + f.name + " expects " + type_name(f.target) + ", got '" +
                               v + "' in '" + arg + "'" +
                               (ec == std::errc::result_out_of_range ? " (out of range)" : ""));
            }
            *p = parsed;
          }
        },
        f.target);
  }

  std::string description_;
  std::string program_;
  std::vector<Flag> flags_;
  std::vector<std::string> positional_;
};

}  // namespace strata::cli
