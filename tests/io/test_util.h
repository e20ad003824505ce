// Helpers shared by the io tests: a scratch directory removed at the end of a test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

namespace strata::testing {

class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = "strata_io_";
    if (info) name += std::string(info->test_suite_name()) + "_" + info->name();
    name +=
        "_" + std::to_string(::getpid()) + "_" + std::to_string(std::random_device{}() % 100000);
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  // Names of the entries in the directory (hidden ones included).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A little-endian field of `width` bytes at `at` in a file's bytes: for tests that damage
// one field of a file a library wrote.
inline std::uint64_t get_le(const std::string& bytes, std::size_t at, int width = 8) {
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

inline void put_le(std::string& bytes, std::size_t at, std::uint64_t v, int width = 8) {
  for (int i = 0; i < width; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// Expects `statement` to throw `type` whose message contains every one of `parts`.
#define EXPECT_THROW_WITH(statement, type, ...)                               \
  do {                                                                        \
    try {                                                                     \
      statement;                                                              \
      ADD_FAILURE() << "expected " #type " from " #statement;                 \
    } catch (const type& e) {                                                 \
      for (const std::string& part : std::vector<std::string>{__VA_ARGS__}) { \
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos)        \
            << "message lacks '" << part << "': " << e.what();                \
      }                                                                       \
    }                                                                         \
  } while (0)

}  // namespace strata::testing
