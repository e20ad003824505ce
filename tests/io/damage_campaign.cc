// Damages real model files the way files are damaged in the wild and loads every copy in
// a forked child, counting how each load ended: finished (loaded), a strata::Error,
// another exception, or killed by a signal (SIGALRM: a hang of over 30 s). The measurement behind
// docs/reliability.md; copies that crash or hang are kept in /tmp for a regression file.
//   build/tests/damage_campaign 250 model.h5 other.keras ...
// Each file gets N copies, a quarter of each kind: truncated at a random length, 1-4
// flipped bits, a zeroed 512-byte block, 8 random bytes in the first 64.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "child_process.h"
#include "io/saving.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: damage_campaign COPIES_PER_FILE FILE...\n";
    return 2;
  }
  const int copies = std::stoi(argv[1]);
  std::uint64_t state = 2026;  // the same copies every run
  auto random = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 17;
  };
  std::map<std::string, int> outcomes;
  for (int a = 2; a < argc; ++a) {
    const std::string source = argv[a], bytes = read_file(source);
    if (bytes.empty()) continue;
    const std::string extension = source.substr(source.rfind('.'));
    for (int i = 0; i < copies; ++i) {
      std::string copy = bytes;
      switch (i % 4) {
        case 0:
          copy.resize(random() % copy.size());
          break;
        case 1:
          for (int k = 0, n = 1 + static_cast<int>(random() % 4); k < n; ++k)
            copy[random() % copy.size()] ^= static_cast<char>(1 << (random() % 8));
          break;
        case 2: {
          const std::size_t at = random() % copy.size();
          std::fill(copy.begin() + at, copy.begin() + std::min(copy.size(), at + 512), '\0');
          break;
        }
        default:
          for (int k = 0; k < 8; ++k) copy[random() % std::min<std::size_t>(64, copy.size())] = static_cast<char>(random());
      }
      const std::string path = "/tmp/damage_campaign_" + std::to_string(::getpid()) + extension;
      write_file(path, copy);
      const std::string outcome = strata::testing::run_in_child([&] { strata::models::load_model(path); }, 30);
      ++outcomes[outcome];
      if (outcome != strata::testing::kFinished && outcome != strata::testing::kStrataError) {
        const std::string kept = "/tmp/damaged_" + std::to_string(i) + "_" + std::to_string(a) + extension;
        write_file(kept, copy);
        std::cerr << source << " copy " << i << ": " << outcome << " (kept as " << kept << ")\n";
      }
      ::unlink(path.c_str());
    }
  }
  for (const auto& [outcome, count] : outcomes) std::cout << outcome << ": " << count << "\n";
  return outcomes.count(strata::testing::kFinished) + outcomes.count(strata::testing::kStrataError) ==
                 outcomes.size()
             ? 0
             : 1;
}
