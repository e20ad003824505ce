// io/hdf5_dataset_check.h: a dataset whose header messages declare more bytes than they
// hold (a fill value, compact data, chunk dimensions, a filter's name or client data) is
// refused with an IOError before libhdf5 opens it, and one kept in external files or
// mapped from other files (a virtual dataset) is refused outright. Each damaged file
// is read in a forked child, so that a regression shows as the child's crash (under
// AddressSanitizer, libhdf5 reading past the header's buffer), not the suite's.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "child_process.h"
#include "core/error.h"
#include "io/hdf5.h"
#include "io/hdf5_object_header.h"
#include "test_util.h"

namespace strata::hdf5_dataset_check_test {
namespace {

const std::vector<float> kValues = {11.25f, 22.5f, 33.75f};
constexpr float kFill = -77.25f;

using io::h5::kFillValueMessage;
using io::h5::kFilterPipelineMessage;
using io::h5::kLayoutMessage;
using io::h5::kOldFillValueMessage;

std::string bytes_of(const void* p, std::size_t n) { return std::string(static_cast<const char*>(p), n); }

using testing::get_le;
using testing::put_le;

}  // namespace
}  // namespace strata::hdf5_dataset_check_test

// libhdf5's checksum of metadata (Jenkins' lookup3), exported by the library though not
// declared in its public headers.
extern "C" std::uint32_t H5_checksum_metadata(const void* data, std::size_t length, std::uint32_t initial);

namespace strata::hdf5_dataset_check_test {
namespace {

// The latest format checksums each object header: a damaged message would be refused by
// libhdf5's checksum before it reached the check. Recomputes the checksum of every
// version 2 header's first chunk ("OHDR", version, flags, optional times and attribute
// phase change values, the chunk's size in 1 to 8 bytes, its messages, the checksum), as
// a file made to do harm would carry it.
void reseal_object_headers(std::string& bytes) {
  for (std::size_t at = bytes.find("OHDR"); at != std::string::npos; at = bytes.find("OHDR", at + 4)) {
    const unsigned flags = static_cast<unsigned char>(bytes[at + 5]);
    std::size_t p = at + 6;
    if (flags & 0x20u) p += 16;  // access, modification, change and birth times
    if (flags & 0x10u) p += 4;   // attribute phase change values
    const int width = 1 << (flags & 3u);
    const std::size_t end = p + width + static_cast<std::size_t>(get_le(bytes, p, width));
    ASSERT_LE(end + 4, bytes.size());
    put_le(bytes, end, H5_checksum_metadata(bytes.data() + at, end - at, 0), 4);
  }
}

// Writes kValues as float32 dataset "d" of a new file, the file's format the oldest
// libhdf5 writes or the latest, `configure` setting up its creation properties (a
// virtual dataset, `write` false, is only created: its values are its source's).
void write_dataset(const std::string& path, bool latest, const std::function<void(hid_t dcpl)>& configure,
                   bool write = true) {
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  if (latest) H5Pset_libver_bounds(access, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
  ASSERT_GE(file, 0) << path;
  const hsize_t dims[1] = {kValues.size()};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  configure(dcpl);
  const hid_t d = H5Dcreate2(file, "d", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ASSERT_GE(d, 0) << path;
  if (write) EXPECT_GE(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, kValues.data()), 0);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(file);
  H5Pclose(access);
}

void with_fill_value(hid_t dcpl) { H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &kFill); }
void compact(hid_t dcpl) { H5Pset_layout(dcpl, H5D_COMPACT); }
void chunked_deflate(hid_t dcpl) {
  const hsize_t chunk[1] = {2};
  H5Pset_chunk(dcpl, 1, chunk);
  H5Pset_deflate(dcpl, 6);
}

// Where in `bytes` (the file at `path`) dataset "d"'s first message of `type` begins: its
// bytes found through Strata's own header reader, then in the file.
std::size_t message_at(const std::string& path, const std::string& bytes, unsigned type) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(file, 0);
  haddr_t address = 0;
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  EXPECT_GE(H5Oget_info_by_name3(file, "d", &info, H5O_INFO_BASIC, H5P_DEFAULT), 0);
  H5VLnative_token_to_addr(file, info.token, &address);
#else
  H5O_info_t info;
  EXPECT_GE(H5Oget_info_by_name2(file, "d", &info, H5O_INFO_BASIC, H5P_DEFAULT), 0);
  address = info.addr;
#endif
  H5Fclose(file);
  const io::h5::CheckedFile checked({.file_name = path}, "the test's file");
  io::h5::FileBytes file_bytes(checked, "the test's file");
  const io::h5::ObjectHeader header(file_bytes, address);
  for (const io::h5::Message& m : header.messages()) {
    if (m.type != type) continue;
    // The message's bytes where a message header of its type and size precedes them: in
    // a version 1 object header type (2 bytes), size (2), flags, 3 reserved; in version
    // 2, type (1), size (2), flags.
    std::vector<std::size_t> found;
    for (std::size_t at = bytes.find(m.data); at != std::string::npos; at = bytes.find(m.data, at + 1)) {
      const bool v1 = at >= 8 && get_le(bytes, at - 8, 2) == type && get_le(bytes, at - 6, 2) == m.data.size();
      const bool v2 = at >= 4 && get_le(bytes, at - 4, 1) == type && get_le(bytes, at - 3, 2) == m.data.size();
      if (v1 || v2) found.push_back(at);
    }
    EXPECT_EQ(found.size(), 1u) << "message type " << type << " found " << found.size() << " times";
    return found.empty() ? 0 : found.front();
  }
  ADD_FAILURE() << "no message of type " << type << " in the dataset's header";
  return 0;
}

// Reads dataset "d" in a child: "ok" when it holds kValues, else the error's message or
// how the child ended.
std::string read_in_child(const std::string& path) {
  return testing::io_error_in_child([&] {
    io::h5::File f(path, io::h5::File::Mode::read);
    const Tensor t = f.open_dataset("d").read(DType::float32);
    return std::string(t.to_vector<float>() == kValues ? "ok" : "wrong values");
  });
}

class DatasetCheck : public ::testing::Test {
 protected:
  // The file written as `configure` says, its bytes as `damage` leaves them: what reading
  // dataset "d" gives.
  std::string read_damaged(bool latest, const std::function<void(hid_t)>& configure,
                           const std::function<void(const std::string& path, std::string& bytes)>& damage) {
    const std::string path = dir.file("d.h5");
    write_dataset(path, latest, configure);
    std::string bytes = testing::read_bytes(path);
    damage(path, bytes);
    if (latest) reseal_object_headers(bytes);
    testing::write_bytes(dir.file("damaged.h5"), bytes);
    return read_in_child(dir.file("damaged.h5"));
  }
  testing::ScratchDir dir;
};

// Every kind of storage libhdf5 writes, in its oldest and latest formats, passes the
// check and reads: contiguous with a fill value, compact, chunked and deflated.
TEST_F(DatasetCheck, EveryStorageLibhdf5WritesReads) {
  const std::vector<std::pair<const char*, std::function<void(hid_t)>>> kinds = {
      {"contiguous", [](hid_t) {}},
      {"fill value", with_fill_value},
      {"compact", compact},
      {"chunked, deflated", chunked_deflate}};
  for (const bool latest : {false, true}) {
    for (const auto& [name, configure] : kinds) {
      SCOPED_TRACE(::testing::Message() << name << (latest ? ", latest format" : ", oldest format"));
      write_dataset(dir.file("good.h5"), latest, configure);
      EXPECT_EQ(read_in_child(dir.file("good.h5")), "ok");
    }
  }
}

// libhdf5 copies a fill value by the size its message declares.
TEST_F(DatasetCheck, AFillValueLargerThanItsMessageIsRefused) {
  const std::string fill = bytes_of(&kFill, sizeof kFill);
  for (const bool latest : {false, true}) {  // fill value message version 2, and 3
    SCOPED_TRACE(latest ? "latest format" : "oldest format");
    const std::string got = read_damaged(latest, with_fill_value, [&](const std::string& path, std::string& bytes) {
      const std::size_t message = message_at(path, bytes, kFillValueMessage);
      const std::size_t value = bytes.find(fill, message);
      ASSERT_NE(value, std::string::npos);
      put_le(bytes, value - 4, 1 << 20, 4);  // the size before the value
    });
    EXPECT_NE(got.find("damaged HDF5 file"), std::string::npos) << got;
    EXPECT_NE(got.find("its fill value message declares a fill value of 1048576 bytes"), std::string::npos)
        << got;
  }
}

// The oldest format also keeps the old fill value message (a size and the value), which
// libhdf5 reads when the new one is missing.
TEST_F(DatasetCheck, AnOldFillValueLargerThanItsMessageIsRefused) {
  const std::string fill = bytes_of(&kFill, sizeof kFill);
  const std::string got = read_damaged(false, with_fill_value, [&](const std::string& path, std::string& bytes) {
    const std::size_t message = message_at(path, bytes, kOldFillValueMessage);
    ASSERT_EQ(bytes.substr(message + 4, 4), fill);
    put_le(bytes, message, 70000, 4);
  });
  EXPECT_NE(got.find("its old fill value message declares a fill value of 70000 bytes"), std::string::npos) << got;
}

// libhdf5 copies a compact dataset's data by the size its layout message declares.
TEST_F(DatasetCheck, CompactDataLargerThanItsMessageIsRefused) {
  for (const bool latest : {false, true}) {  // layout message version 3, and 4
    SCOPED_TRACE(latest ? "latest format" : "oldest format");
    const std::string got = read_damaged(latest, compact, [&](const std::string& path, std::string& bytes) {
      const std::size_t message = message_at(path, bytes, kLayoutMessage);
      ASSERT_EQ(bytes[message + 1], 0) << "a compact layout";
      ASSERT_EQ(bytes.substr(message + 4, 12), bytes_of(kValues.data(), 12));
      put_le(bytes, message + 2, 0xffff, 2);  // the data's size
    });
    EXPECT_NE(got.find("its layout message declares compact data of 65535 bytes at byte 4"), std::string::npos)
        << got;
  }
}

// A chunked layout's dimensions are read by their count (and, in version 4, their width).
TEST_F(DatasetCheck, ChunkDimensionsPastTheirMessageAreRefused) {
  for (const bool latest : {false, true}) {  // layout message version 3, and 4
    SCOPED_TRACE(latest ? "latest format" : "oldest format");
    const std::string got = read_damaged(latest, chunked_deflate, [&](const std::string& path, std::string& bytes) {
      const std::size_t message = message_at(path, bytes, kLayoutMessage);
      ASSERT_EQ(bytes[message + 1], 2) << "a chunked layout";
      if (latest) {
        bytes[message + 3] = 33;  // dimensions, each
        bytes[message + 4] = 8;   // 8 bytes wide
      } else {
        bytes[message + 2] = 33;  // dimensions, 4 bytes each
      }
    });
    const std::string declared = latest ? "264" : "132";
    EXPECT_NE(got.find("its layout message declares its chunk dimensions of " + declared + " bytes"),
              std::string::npos)
        << got;
  }
}

// A filter's name is measured with strlen() and its client data read by their count.
TEST_F(DatasetCheck, AFiltersNameOrClientDataPastItsFieldIsRefused) {
  // Version 1 (oldest format): id, name length, flags, count, then "deflate" padded to 8.
  std::string got = read_damaged(false, chunked_deflate, [&](const std::string& path, std::string& bytes) {
    const std::size_t message = message_at(path, bytes, kFilterPipelineMessage);
    ASSERT_EQ(bytes.substr(message + 16, 8), std::string("deflate\0", 8));
    bytes[message + 23] = 'x';  // no NUL left in the 8-byte name field
    bytes[message + 24] = 'x';  // nor right after it, in the client data
  });
  EXPECT_NE(got.find("its filter pipeline message has filter 0's name at byte 16 that does not end inside its "
                     "8-byte field"),
            std::string::npos)
      << got;
  for (const bool latest : {false, true}) {  // version 1, and 2 (no name for libhdf5's own filters)
    SCOPED_TRACE(latest ? "latest format" : "oldest format");
    got = read_damaged(latest, chunked_deflate, [&](const std::string& path, std::string& bytes) {
      const std::size_t message = message_at(path, bytes, kFilterPipelineMessage);
      const std::size_t count = message + (latest ? 6 : 14);
      ASSERT_EQ(bytes[count], 1) << "deflate's one client value, its level";
      put_le(bytes, count, 0x4000, 2);
    });
    EXPECT_NE(got.find("its filter pipeline message declares filter 0's client data of 65536 bytes"),
              std::string::npos)
        << got;
  }
}

// A dataset kept in external files would make Strata open files the model names.
TEST_F(DatasetCheck, ExternalStorageIsRefused) {
  const std::string path = dir.file("external.h5");
  const std::string data = dir.file("external.bin");
  write_dataset(path, false, [&](hid_t dcpl) { H5Pset_external(dcpl, data.c_str(), 0, 12); });
  const std::string got = read_in_child(path);
  EXPECT_NE(got.find("its data is kept in external files"), std::string::npos) << got;
}

// So would a virtual dataset, which maps other files' datasets.
TEST_F(DatasetCheck, AVirtualDatasetIsRefused) {
  const std::string source = dir.file("source.h5");
  write_dataset(source, true, [](hid_t) {});
  const std::string path = dir.file("virtual.h5");
  write_dataset(path, true, [&](hid_t dcpl) {
    const hsize_t dims[1] = {kValues.size()};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    H5Pset_virtual(dcpl, space, source.c_str(), "d", space);
    H5Sclose(space);
  }, /*write=*/false);
  const std::string got = read_in_child(path);
  EXPECT_NE(got.find("its layout message describes a virtual dataset"), std::string::npos) << got;
}

}  // namespace
}  // namespace strata::hdf5_dataset_check_test
