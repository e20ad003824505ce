// io/hdf5_link_check.h: a group whose local heap (where its link names live) has a
// damaged free list is refused with an IOError before libhdf5 looks a name up in it. A
// free list that returns to a block made libhdf5 1.10 allocate 32 bytes a turn until
// memory ran out (fuzz_keras_h5 in CI). Each read runs in a forked child whose memory is
// limited (outside sanitizers), so a regression shows as a wrong answer, not as a suite
// that takes the machine's memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "child_process.h"
#include "core/error.h"
#include "io/hdf5.h"
#include "io/saving.h"
#include "test_util.h"

namespace strata::hdf5_link_check_test {
namespace {

using testing::get_le;
using testing::put_le;

// Groups as libhdf5 writes them by default (symbol tables, each with a local heap), in
// the order written: '/', '/model_weights', '/model_weights/dense'.
const std::vector<std::string> kGroups = {"/", "/model_weights", "/model_weights/dense"};

std::string write_file(const std::string& path) {
  io::h5::File f(path, io::h5::File::Mode::create);
  f.create_group("model_weights/dense");
  f.open_group("model_weights/dense").create_dataset("kernel", Tensor::from_vector(Shape{2}, std::vector<float>{1.0f, 2.0f}));
  f.close();
  return testing::read_bytes(path);
}

// A local heap: where its prefix is, and where its first free block's fields are.
struct LocalHeap {
  std::size_t prefix = 0;
  std::uint64_t size = 0;
  std::size_t free_block = 0;  // absolute offset of the first free block
  std::uint64_t free_offset = 0;
};

// The file's local heaps in file order ("HEAP", version 0, sizes of 8 bytes).
std::vector<LocalHeap> local_heaps(const std::string& bytes) {
  std::vector<LocalHeap> heaps;
  for (std::size_t at = bytes.find("HEAP"); at != std::string::npos; at = bytes.find("HEAP", at + 1)) {
    LocalHeap h{.prefix = at, .size = get_le(bytes, at + 8), .free_offset = get_le(bytes, at + 16)};
    h.free_block = static_cast<std::size_t>(get_le(bytes, at + 24) + h.free_offset);
    heaps.push_back(h);
  }
  return heaps;
}

// Looks the dataset up through every group and lists the innermost one, in a child with
// at most 1 GB more memory than this process: "ok", the IOError's message, or how it died.
std::string look_up_in_child(const std::string& path) {
  return testing::io_error_in_child(
      [&] {
        io::h5::File f(path, io::h5::File::Mode::read);
        if (!f.has_dataset("model_weights/dense/kernel")) return std::string("no kernel");
        const auto children = f.open_group("model_weights/dense").children();
        return std::string(children == std::vector<std::string>{"kernel"} ? "ok" : "wrong children");
      },
      {.seconds = 20, .memory_mb = 1024});
}

class LinkCheck : public ::testing::Test {
 protected:
  std::string look_up_damaged(const std::string& bytes) {
    testing::write_bytes(dir.file("damaged.h5"), bytes);
    return look_up_in_child(dir.file("damaged.h5"));
  }
  testing::ScratchDir dir;
};

TEST_F(LinkCheck, AnUndamagedFileIsLookedUpAndListed) {
  const std::string bytes = write_file(dir.file("good.h5"));
  const std::vector<LocalHeap> heaps = local_heaps(bytes);
  ASSERT_EQ(heaps.size(), kGroups.size());
  for (const LocalHeap& h : heaps) ASSERT_NE(h.free_offset, 1u) << "each heap has a free block to damage";
  EXPECT_EQ(look_up_in_child(dir.file("good.h5")), "ok");
}

TEST_F(LinkCheck, AFreeListThatReturnsToABlockIsRefusedInEveryGroup) {
  const std::string bytes = write_file(dir.file("a.h5"));
  const std::vector<LocalHeap> heaps = local_heaps(bytes);
  ASSERT_EQ(heaps.size(), kGroups.size());
  for (std::size_t g = 0; g < heaps.size(); ++g) {
    std::string damaged = bytes;
    put_le(damaged, heaps[g].free_block, heaps[g].free_offset);  // the block names itself next
    const std::string got = look_up_damaged(damaged);
    EXPECT_NE(got.find("damaged HDF5 file: '" + dir.file("damaged.h5") + "' at '" + kGroups[g] + "'"),
              std::string::npos)
        << got;
    EXPECT_NE(got.find("has a free list that returns to offset " + std::to_string(heaps[g].free_offset) +
                       " (a cycle)"),
              std::string::npos)
        << got;
  }
}

TEST_F(LinkCheck, AFreeBlockOutsideItsHeapIsRefused) {
  const std::string bytes = write_file(dir.file("a.h5"));
  const LocalHeap h = local_heaps(bytes)[1];
  std::string damaged = bytes;
  put_le(damaged, h.prefix + 16, h.size - 8);  // too near the end for its two fields
  std::string got = look_up_damaged(damaged);
  EXPECT_NE(got.find("at '/model_weights'"), std::string::npos) << got;
  EXPECT_NE(got.find("lies outside its " + std::to_string(h.size) + "-byte data segment"), std::string::npos)
      << got;
  damaged = bytes;
  put_le(damaged, h.free_block + 8, h.size);  // a block longer than the heap
  got = look_up_damaged(damaged);
  EXPECT_NE(got.find("declares " + std::to_string(h.size) + " bytes, past its"), std::string::npos) << got;
}

TEST_F(LinkCheck, ModelLoadingReportsTheCycleAsAnIOError) {
  // The file CI's fuzzer damaged this way was a Keras model: load_model's own message.
  const std::string path = std::string(STRATA_TEST_DATA) + "/fuzz_regressions/fuzz_keras_h5/local-heap-free-list-cycle.h5";
  const std::string got = testing::io_error_in_child(
      [&] {
        models::load_model(path);
        return std::string("loaded");
      },
      {.seconds = 20, .memory_mb = 1024});
  EXPECT_NE(got.find("local-heap-free-list-cycle.h5' at '/model_weights'"), std::string::npos) << got;
  EXPECT_NE(got.find("(a cycle)"), std::string::npos) << got;
}

}  // namespace
}  // namespace strata::hdf5_link_check_test
