// Thousands of mutated request bodies at the handler: bit flips, byte changes,
// truncations, splices, repeated pieces and random JSON, from a fixed seed. Every answer
// must be a status the API uses with a JSON body, and valid requests in between must
// still be answered right.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

#include "serving/rest_handler.h"
#include "serving_test_util.h"

namespace strata::serving::fuzz_test {
namespace {

using namespace testing;

class Mutator {
 public:
  explicit Mutator(std::uint32_t seed) : rng_(seed) {}

  std::string mutate(const std::vector<std::string>& seeds) {
    std::string s = seeds[pick(seeds.size())];
    const int rounds = 1 + static_cast<int>(pick(3));
    for (int r = 0; r < rounds; ++r) {
      switch (pick(8)) {
        case 0:  // flip a bit
          if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 << pick(8));
          break;
        case 1: {  // a byte becomes a JSON-significant one
          static const std::string kChars = "[]{},:\"-.eE0123456789 \\tnf\x00\xff";
          if (!s.empty()) s[pick(s.size())] = kChars[pick(kChars.size())];
          break;
        }
        case 2:  // truncate
          s.resize(pick(s.size() + 1));
          break;
        case 3: {  // splice: a prefix of this one, a suffix of another
          const std::string& other = seeds[pick(seeds.size())];
          s = s.substr(0, pick(s.size() + 1)) + other.substr(pick(other.size() + 1));
          break;
        }
        case 4: {  // repeat a piece
          if (s.empty()) break;
          std::size_t a = pick(s.size()), n = 1 + pick(std::min<std::size_t>(40, s.size() - a));
          s.insert(a, s.substr(a, n));
          break;
        }
        case 5: {  // delete a piece
          if (s.empty()) break;
          std::size_t a = pick(s.size());
          s.erase(a, 1 + pick(20));
          break;
        }
        case 6:  // replace a number with an odd one
          s = replace_number(s);
          break;
        default:  // random JSON
          s = random_json(0).dump();
          break;
      }
    }
    return s;
  }

  json random_json(int depth) {
    switch (depth > 4 ? pick(5) : pick(8)) {
      case 0: return static_cast<std::int64_t>(rng_()) - (1ll << 31);
      case 1: return std::uniform_real_distribution<double>(-1e30, 1e30)(rng_);
      case 2: return pick(2) == 0;
      case 3: return nullptr;
      case 4: return std::string(pick(5), 'x');
      case 5:
      case 6: {
        json a = json::array();
        const std::size_t n = pick(6);
        for (std::size_t i = 0; i < n; ++i) a.push_back(random_json(depth + 1));
        return a;
      }
      default: {
        static const char* kKeys[] = {"instances", "inputs", "a", "b", "x", "signature_name", "other"};
        json o = json::object();
        const std::size_t n = pick(4);
        for (std::size_t i = 0; i < n; ++i) o[kKeys[pick(7)]] = random_json(depth + 1);
        return o;
      }
    }
  }

  std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

 private:
  std::string replace_number(const std::string& s) {
    static const char* kOdd[] = {"1e309", "-1e400", "1e-50", "99999999999999999999999", "-0", "0.5", "NaN", "[]", "{}", "\"1\""};
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if ((s[i] >= '0' && s[i] <= '9') && (i == 0 || !(s[i - 1] >= '0' && s[i - 1] <= '9') && s[i - 1] != '.')) starts.push_back(i);
    }
    if (starts.empty()) return s;
    std::size_t a = starts[pick(starts.size())], b = a;
    while (b < s.size() && (std::isdigit(static_cast<unsigned char>(s[b])) || s[b] == '.' || s[b] == 'e' || s[b] == '-')) ++b;
    return s.substr(0, a) + kOdd[pick(10)] + s.substr(b);
  }

  std::mt19937 rng_;
};

// Parses a response body; TensorFlow Serving's NaN and Infinity are read as numbers.
bool is_json(std::string body) {
  for (const char* token : {"-Infinity", "Infinity", "NaN"}) {
    for (auto p = body.find(token); p != std::string::npos; p = body.find(token)) body.replace(p, std::strlen(token), "0");
  }
  return json::accept(body);
}

void fuzz(const std::string& name, int iterations, std::uint32_t seed) {
  ModelDir dir;
  dir.add_version(1, name, ".keras");
  ModelRegistry models({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  RestHandler handler(models, {.max_body_bytes = 1 << 16});
  auto xs = load_numbered(golden(name), "input");
  auto ys = load_numbered(golden(name), "output");
  const auto& sig = models.find("m")->latest()->signature();

  // Valid bodies: rows and columns, named and (for one input) plain.
  json rows = json::array(), columns = json::object();
  for (std::int64_t i = 0; i < xs[0].shape()[0]; ++i) {
    json inst = json::object();
    for (std::size_t k = 0; k < xs.size(); ++k) inst[sig.inputs[k].name] = row_json(xs[k], i);
    rows.push_back(inst);
  }
  for (std::size_t k = 0; k < xs.size(); ++k) columns[sig.inputs[k].name] = values_json(xs[k]);
  std::vector<std::string> seeds = {json{{"instances", rows}}.dump(), json{{"inputs", columns}}.dump()};
  if (xs.size() == 1) {
    json plain = json::array();
    for (std::int64_t i = 0; i < xs[0].shape()[0]; ++i) plain.push_back(row_json(xs[0], i));
    seeds.push_back(json{{"instances", plain}, {"signature_name", "serving_default"}}.dump());
    seeds.push_back(json{{"inputs", values_json(xs[0])}}.dump());
  }
  const std::string valid = seeds[1];

  Mutator mutator(seed);
  std::map<int, int> counts;
  for (int it = 0; it < iterations; ++it) {
    const std::string body = mutator.mutate(seeds);
    std::string path = "/v1/models/m:predict";
    if (mutator.pick(50) == 0) path = mutator.pick(2) ? "/v1/models/m/versions/" + std::to_string(mutator.pick(3)) + ":predict"
                                                      : "/v1/models/" + body.substr(0, mutator.pick(8)) + ":predict";
    RestResponse r = handler.handle("POST", path, body);
    ++counts[r.status];
    ASSERT_TRUE(r.status == 200 || r.status == 400 || r.status == 404 || r.status == 413)
        << "status " << r.status << " for body " << body.substr(0, 300) << "\n" << r.body;
    ASSERT_TRUE(is_json(r.body)) << "not JSON: " << r.body.substr(0, 300);
    if (r.status != 200) ASSERT_TRUE(json::parse(r.body).contains("error")) << r.body;
    if (it % 250 == 0) {  // still answering right
      RestResponse ok = handler.handle("POST", "/v1/models/m:predict", valid);
      ASSERT_EQ(ok.status, 200) << ok.body;
      json outs = json::parse(ok.body)["outputs"];
      for (std::size_t k = 0; k < ys.size(); ++k) {
        expect_close(tensor_from_json(ys.size() == 1 ? outs : outs[sig.outputs[k].name], ys[k].shape()), ys[k],
                     name + " after " + std::to_string(it) + " mutations");
      }
    }
  }
  std::cout << name << ": " << iterations << " mutated bodies, answers by status:";
  for (const auto& [status, n] : counts) std::cout << " " << status << "=" << n;
  std::cout << std::endl;
  // The mutations reached both sides: some requests still valid, most refused.
  EXPECT_GT(counts[200], iterations / 100) << name;
  EXPECT_GT(counts[400], iterations / 2) << name;
}

TEST(Fuzz, MutatedBodiesNeverCrashTheHandler) { fuzz("functional_mlp", 4000, 1); }
TEST(Fuzz, MutatedBodiesForAMultiInputModel) { fuzz("multi_io_shared", 4000, 2); }

TEST(Fuzz, DeeplyNestedAndHugeValuesAreRefused) {
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  ModelRegistry models({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  RestHandler handler(models);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(handler.handle("POST", "/v1/models/m:predict", "{\"instances\": " + deep + "}").status, 400);
  EXPECT_EQ(handler.handle("POST", "/v1/models/m:predict", "{\"other\": " + deep + "}").status, 400);
  EXPECT_EQ(handler.handle("POST", "/v1/models/m:predict", R"({"instances": [[1e400, 0, 0, 0]]})").status, 400);
  RestResponse big = handler.handle("POST", "/v1/models/m:predict", R"({"instances": [[1e38, -1e38, 3e38, 0]]})");
  EXPECT_EQ(big.status, 200) << big.body;
  EXPECT_TRUE(is_json(big.body)) << big.body;
}

}  // namespace
}  // namespace strata::serving::fuzz_test
