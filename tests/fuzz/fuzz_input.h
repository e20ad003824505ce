// What every fuzz target shares: the input as a file (the readers take paths, as users
// call them), and the rule that a reader may fail only with a strata::Error.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "core/error.h"

namespace strata::fuzz {

// Readers warn on std::cerr about what they skip (an uncompiled model, a fresh
// optimizer); at thousands of inputs a second that would bury libFuzzer's own report,
// which it writes to file descriptor 2 directly and so still shows.
inline void quiet_warnings() {
  static const bool done = (std::cerr.rdbuf(nullptr), true);
  (void)done;
}

// Writes the input to one file per process (in memory where /dev/shm exists) and returns
// its path; `extension` matters to readers that go by it (".keras" vs ".h5").
inline std::string input_file(const std::uint8_t* data, std::size_t size, const char* extension) {
  static const std::string path = [&] {
    std::error_code ec;
    const std::filesystem::path dir =
        std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : std::filesystem::temp_directory_path();
    return (dir / ("strata_fuzz_" + std::to_string(::getpid()) + extension)).string();
  }();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::perror(("cannot write the fuzz input " + path).c_str());
    std::abort();
  }
  return path;
}

// Runs `read`: a strata::Error is an expected way to refuse damaged bytes; any other
// exception leaves LLVMFuzzerTestOneInput and ends the run as a finding.
template <class Read>
void expect_clean_failure(Read&& read) {
  try {
    read();
  } catch (const strata::Error&) {
  }
}

}  // namespace strata::fuzz
