// Damages real model files the way files are damaged in the wild and loads every copy in
// a forked child, counting how each load ended: loaded, a strata::Error, another
// exception, or killed by a signal (SIGALRM: a hang of over 30 s). The measurement behind
// docs/reliability.md; copies that crash or hang are kept in /tmp for a regression file.
//   build/tests/damage_campaign 250 model.h5 other.keras ...
// Each file gets N copies, a quarter of each kind: truncated at a random length, 1-4
// flipped bits, a zeroed 512-byte block, 8 random bytes in the first 64.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "core/error.h"
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

// How a load in a child ended.
std::string load_in_child(const std::string& path) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(30);
    int code = 0;
    try {
      strata::models::load_model(path);
    } catch (const strata::Error&) {
      code = 1;
    } catch (...) {
      code = 2;
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  switch (WEXITSTATUS(status)) {
    case 0: return "loaded";
    case 1: return "strata::Error";
    default: return "another exception";
  }
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
      const std::string outcome = load_in_child(path);
      ++outcomes[outcome];
      if (outcome.starts_with("killed") || outcome == "another exception") {
        const std::string kept = "/tmp/damaged_" + std::to_string(i) + "_" + std::to_string(a) + extension;
        write_file(kept, copy);
        std::cerr << source << " copy " << i << ": " << outcome << " (kept as " << kept << ")\n";
      }
      ::unlink(path.c_str());
    }
  }
  for (const auto& [outcome, count] : outcomes) std::cout << outcome << ": " << count << "\n";
  return outcomes.count("loaded") + outcomes.count("strata::Error") == outcomes.size() ? 0 : 1;
}
