// io/hdf5_attribute_check.h: variable-length strings whose global heap is damaged are refused
// with an IOError before libhdf5 reads them. Each case damages one field of a file h5py
// would write (a scalar variable-length string attribute) in the way that made libhdf5
// 1.10 read out of bounds, loop forever or overflow its buffer; each read runs in a
// forked child so that a regression shows as a crash or hang of the child, not of the
// suite.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstring>

#include "child_process.h"
#include "core/error.h"
#include "io/hdf5.h"
#include "io/saving.h"
#include "test_util.h"

namespace strata::hdf5_attribute_check_test {
namespace {

const std::string kText = "{\"class_name\": \"Sequential\"}";

// A file with one variable-length string attribute on its root group.
std::string write_file(const std::string& path) {
  io::h5::File f(path, io::h5::File::Mode::create);
  f.write_string_attribute("model_config", kText);
  f.close();
  return testing::read_bytes(path);
}

using testing::get_le;
using testing::put_le;

// Where the pieces are: the collection ("GCOL"), its first object, and the attribute's
// reference to it (length, collection address, index).
struct Layout {
  std::size_t collection = 0;
  std::size_t object = 0;
  std::size_t reference = 0;
};

Layout find_layout(const std::string& bytes, std::size_t length = kText.size()) {
  Layout l;
  l.collection = bytes.find("GCOL");
  EXPECT_NE(l.collection, std::string::npos);
  l.object = l.collection + 16;
  std::string reference(16, '\0');
  put_le(reference, 0, length, 4);
  put_le(reference, 4, l.collection, 8);
  put_le(reference, 12, get_le(bytes, l.object, 2), 4);
  l.reference = bytes.find(reference);
  EXPECT_NE(l.reference, std::string::npos);
  return l;
}

// Reads the attribute in a child: "ok", the error's message, or how the child died.
std::string read_in_child(const std::string& path) {
  return testing::io_error_in_child([&] {
    io::h5::File f(path, io::h5::File::Mode::read);
    return std::string(f.read_string_attribute("model_config") == kText ? "ok" : "wrong text");
  });
}

class AttributeCheck : public ::testing::Test {
 protected:
  // Writes the damaged bytes and returns what reading them gave.
  std::string read_damaged(const std::string& bytes) {
    testing::write_bytes(dir.file("damaged.h5"), bytes);
    return read_in_child(dir.file("damaged.h5"));
  }
  testing::ScratchDir dir;
};

TEST_F(AttributeCheck, AnUndamagedFileReads) {
  write_file(dir.file("good.h5"));
  EXPECT_EQ(read_in_child(dir.file("good.h5")), "ok");
}

TEST_F(AttributeCheck, AReferenceToAnObjectTheHeapDoesNotHoldIsRefused) {
  std::string bytes = write_file(dir.file("a.h5"));
  const Layout l = find_layout(bytes);
  for (std::uint64_t index : {2u, 0u, 0x00abcdefu}) {
    std::string damaged = bytes;
    put_le(damaged, l.reference + 12, index, 4);
    const std::string got = read_damaged(damaged);
    EXPECT_NE(got.find("damaged.h5"), std::string::npos) << got;
    EXPECT_NE(got.find("model_config"), std::string::npos) << got;
    EXPECT_NE(got.find("refers to object " + std::to_string(index)), std::string::npos) << got;
  }
}

TEST_F(AttributeCheck, AStringLongerOrShorterThanItsHeapObjectIsRefused) {
  std::string bytes = write_file(dir.file("a.h5"));
  const Layout l = find_layout(bytes);
  for (std::uint64_t length : {kText.size() + 4000, kText.size() - 1}) {
    std::string damaged = bytes;
    put_le(damaged, l.reference, length, 4);
    const std::string got = read_damaged(damaged);
    EXPECT_NE(got.find("has " + std::to_string(length) + " bytes but its global heap object has " +
                       std::to_string(kText.size())),
              std::string::npos)
        << got;
  }
}

TEST_F(AttributeCheck, AHeapObjectRunningPastItsCollectionIsRefused) {
  std::string bytes = write_file(dir.file("a.h5"));
  const Layout l = find_layout(bytes);
  // The object's size (after index, reference count and reserved bytes), then the free
  // space's size: too big, wrapping around, and zero (libhdf5's walk would never end).
  for (std::uint64_t size : {std::uint64_t{1} << 20, ~std::uint64_t{0} - 7}) {
    std::string damaged = bytes;
    put_le(damaged, l.object + 8, size, 8);
    const std::string got = read_damaged(damaged);
    EXPECT_NE(got.find("runs past the collection's end"), std::string::npos) << got;
  }
  const std::size_t free_space = l.object + 16 + ((kText.size() + 7) & ~std::size_t{7});
  ASSERT_EQ(get_le(bytes, free_space, 2), 0u) << "expected the free space after the object";
  std::string damaged = bytes;
  put_le(damaged, free_space + 8, 0, 8);
  const std::string got = read_damaged(damaged);
  EXPECT_NE(got.find("object 0 of the global heap collection"), std::string::npos) << got;
}

TEST_F(AttributeCheck, AReferenceToSomethingElseOrBeyondTheFileIsRefused) {
  std::string bytes = write_file(dir.file("a.h5"));
  const Layout l = find_layout(bytes);
  std::string damaged = bytes;
  put_le(damaged, l.reference + 4, 48, 8);  // inside the superblock
  EXPECT_NE(read_damaged(damaged).find("no global heap collection"), std::string::npos);
  damaged = bytes;
  put_le(damaged, l.reference + 4, std::uint64_t{1} << 40, 8);
  EXPECT_NE(read_damaged(damaged).find("beyond the end of the file"), std::string::npos);
  damaged = bytes;
  put_le(damaged, l.collection + 8, std::uint64_t{1} << 40, 8);  // the collection's size
  EXPECT_NE(read_damaged(damaged).find("beyond the end of the file"), std::string::npos);
}

// libhdf5 strdup()s every attribute name when any attribute is looked up: a name whose
// NUL was damaged away is refused first (fuzz_keras_h5 found libhdf5 reading past the
// message; see tests/data/fuzz_regressions/fuzz_keras_h5/attribute-name-not-terminated.h5).
TEST_F(AttributeCheck, AnAttributeNameWithoutItsEndIsRefusedBeforeAnyLookup) {
  std::string bytes = write_file(dir.file("a.h5"));
  const std::size_t name = bytes.find(std::string("model_config\0", 13));
  ASSERT_NE(name, std::string::npos);
  for (std::size_t i = name + 12; i < name + 16; ++i) bytes[i] = 'x';  // the NUL and the padding
  testing::write_bytes(dir.file("damaged.h5"), bytes);
  io::h5::File f(dir.file("damaged.h5"), io::h5::File::Mode::read);
  EXPECT_THROW_WITH(f.has_attribute("keras_version"), IOError, "damaged.h5",
                    "its name does not end inside its 13-byte field");
}

// libhdf5 copies (elements x element size) bytes out of an attribute message and sizes
// its conversion buffers from the string's base type: both are checked against the file.
TEST_F(AttributeCheck, DatatypeSizesTheMessageCannotHoldAreRefused) {
  std::string bytes = write_file(dir.file("a.h5"));
  // The vlen string datatype (class 9, version 1) follows the name: its size, then the
  // base type's (a one-byte character).
  const std::size_t name = bytes.find(std::string("model_config\0", 13));
  ASSERT_NE(name, std::string::npos);
  const std::size_t type = name + 16;
  ASSERT_EQ(static_cast<unsigned char>(bytes[type]), 0x19u) << "expected a version-1 vlen datatype";
  ASSERT_EQ(get_le(bytes, type + 4, 4), 16u);
  ASSERT_EQ(get_le(bytes, type + 12, 4), 1u);
  std::string damaged = bytes;
  put_le(damaged, type + 4, 1000, 4);
  std::string got = read_damaged(damaged);
  EXPECT_NE(got.find("declare 1 elements of 1000 bytes, more than the message's 16 bytes"), std::string::npos) << got;
  damaged = bytes;
  put_le(damaged, type + 12, 788529153, 4);
  got = read_damaged(damaged);
  EXPECT_NE(got.find("declares 788529153-byte characters"), std::string::npos) << got;
}

// libhdf5 decodes an attribute's datatype without bounds, strdup()ing enumeration and
// compound member names: a vlen string whose class byte was damaged into an enumeration
// of one value has a name that runs past the datatype (fuzz_keras_h5 found libhdf5
// reading past its object header; tests/data/fuzz_regressions/fuzz_keras_h5/
// enum-name-past-datatype.h5). Refused before any lookup, and a dataspace whose
// dimensions do not fit its field likewise.
TEST_F(AttributeCheck, ADatatypeOrDataspaceRunningPastItsFieldIsRefusedBeforeAnyLookup) {
  const std::string bytes = write_file(dir.file("a.h5"));
  const std::size_t name = bytes.find(std::string("model_config\0", 13));
  ASSERT_NE(name, std::string::npos);
  const std::size_t type = name + 16;  // version 1 pads the 13-byte name to 16
  ASSERT_EQ(static_cast<unsigned char>(bytes[type]), 0x19u) << "expected a version-1 vlen datatype";
  ASSERT_EQ(get_le(bytes, type + 1, 1), 1u) << "expected a vlen string (its first bits 01)";
  std::string damaged = bytes;
  damaged[type] = 0x28;  // a version-2 enumeration: its bits now count its values, at least one
  testing::write_bytes(dir.file("damaged.h5"), damaged);
  {
    io::h5::File f(dir.file("damaged.h5"), io::h5::File::Mode::read);
    EXPECT_THROW_WITH(f.has_attribute("keras_version"), IOError, "damaged.h5", "attribute message 0's datatype",
                      "an enumeration's name at byte 20 does not end inside the 20-byte datatype");
  }
  // The dataspace (version 1, 8 bytes: a scalar) follows the 20-byte datatype, padded to
  // 24: give it a rank of 3.
  const std::size_t space = type + 24;
  ASSERT_EQ(static_cast<unsigned char>(bytes[space]), 1u) << "expected a version-1 dataspace";
  damaged = bytes;
  damaged[space + 1] = 3;
  testing::write_bytes(dir.file("damaged.h5"), damaged);
  io::h5::File f(dir.file("damaged.h5"), io::h5::File::Mode::read);
  EXPECT_THROW_WITH(f.attribute_names(), IOError, "damaged.h5",
                    "attribute message 0's dataspace: its 3 dimensions do not fit in its 8 bytes");
}

// libhdf5 decodes a dataset's datatype when it opens the dataset: the same check runs
// first. The float32 datatype of a dataset is damaged into an enumeration of one int8
// value whose name fills the rest of the message without its NUL.
TEST_F(AttributeCheck, ADatasetsDatatypeRunningPastItsMessageIsRefusedBeforeOpening) {
  {
    io::h5::File f(dir.file("d.h5"), io::h5::File::Mode::create);
    f.create_dataset("weights", Tensor::from_vector<float>(Shape{3}, {1.f, 2.f, 3.f}));
  }
  std::string bytes = testing::read_bytes(dir.file("d.h5"));
  // Little-endian IEEE float32 (class 1, version 1): size 4, then its 12-byte layout.
  const std::string float32("\x11\x20\x1f\x00\x04\x00\x00\x00\x00\x00\x20\x00\x17\x08\x00\x17\x7f\x00\x00\x00", 20);
  const std::size_t type = bytes.find(float32);
  ASSERT_NE(type, std::string::npos);
  ASSERT_EQ(get_le(bytes, type - 8, 2), 3u) << "expected a datatype message in a version-1 header";
  const std::uint64_t message_size = get_le(bytes, type - 6, 2);
  ASSERT_GE(message_size, 21u);
  // Enumeration (class 8, version 1) of 1 value, 1 byte; base: fixed-point, 1 byte, 8 bits.
  const std::string enumeration("\x18\x01\x00\x00\x01\x00\x00\x00\x10\x00\x00\x00\x01\x00\x00\x00\x00\x00\x08\x00", 20);
  bytes.replace(type, 20, enumeration);
  for (std::size_t i = type + 20; i < type + message_size; ++i) bytes[i] = 'x';
  testing::write_bytes(dir.file("damaged.h5"), bytes);
  io::h5::File f(dir.file("damaged.h5"), io::h5::File::Mode::read);
  EXPECT_THROW_WITH(f.open_dataset("weights"), IOError, "damaged.h5", "'/weights'", "its datatype message",
                    "an enumeration's name at byte 20 does not end inside the " + std::to_string(message_size) +
                        "-byte datatype");
}

// The datatype check walks every encoding libhdf5 writes, in its oldest and newest
// formats: enumerations (h5py's booleans), compounds, arrays, opaque tags, nested.
TEST_F(AttributeCheck, EveryKindOfDatatypeLibhdf5WritesPassesTheCheck) {
  for (const bool latest : {false, true}) {
    SCOPED_TRACE(latest ? "libver latest" : "libver earliest");
    const std::string path = dir.file(latest ? "latest.h5" : "earliest.h5");
    {
      const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
      if (latest) H5Pset_libver_bounds(access, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
      const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
      ASSERT_GE(file, 0);
      const hid_t scalar = H5Screate(H5S_SCALAR);
      auto attribute = [&](const char* name, hid_t type, const void* value) {
        const hid_t a = H5Acreate2(file, name, type, scalar, H5P_DEFAULT, H5P_DEFAULT);
        ASSERT_GE(a, 0) << name;
        EXPECT_GE(H5Awrite(a, type, value), 0) << name;
        H5Aclose(a);
      };
      const hid_t boolean = H5Tenum_create(H5T_NATIVE_INT8);  // as h5py stores numpy's bool
      const std::int8_t no = 0, yes = 1;
      H5Tenum_insert(boolean, "FALSE", &no);
      H5Tenum_insert(boolean, "TRUE", &yes);
      attribute("flag", boolean, &yes);
      struct Pair {
        std::int32_t a;
        double b;
      } pair{1, 2.0};
      const hid_t compound = H5Tcreate(H5T_COMPOUND, sizeof(Pair));
      H5Tinsert(compound, "a_rather_long_member_name", HOFFSET(Pair, a), H5T_NATIVE_INT32);
      H5Tinsert(compound, "b", HOFFSET(Pair, b), H5T_NATIVE_DOUBLE);
      attribute("pair", compound, &pair);
      const hsize_t dims[2] = {2, 3};
      const hid_t grid = H5Tarray_create2(H5T_NATIVE_FLOAT, 2, dims);
      const float cells[6] = {1, 2, 3, 4, 5, 6};
      attribute("grid", grid, cells);
      const hid_t opaque = H5Tcreate(H5T_OPAQUE, 4);
      H5Tset_tag(opaque, "four bytes");
      attribute("blob", opaque, "abcd");
      const hid_t vlen_of_pairs = H5Tvlen_create(compound);  // nested: a vlen of a compound
      hvl_t none{0, nullptr};
      attribute("pairs", vlen_of_pairs, &none);
      for (hid_t t : {boolean, compound, grid, opaque, vlen_of_pairs}) H5Tclose(t);
      H5Sclose(scalar);
      H5Fclose(file);
      H5Pclose(access);
    }
    io::h5::File f(path, io::h5::File::Mode::read);
    std::vector<std::string> names = f.attribute_names();
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"blob", "flag", "grid", "pair", "pairs"}));
    EXPECT_TRUE(f.has_attribute("flag"));
  }
}

TEST_F(AttributeCheck, ModelLoadingReportsTheDamagedHeapAsAnIOError) {
  // The loader's own message, through load_model: the file and what is wrong.
  io::h5::File f(dir.file("model.h5"), io::h5::File::Mode::create);
  f.write_string_attribute("keras_version", "2.4.0");  // the collection's first object
  f.write_string_attribute("model_config", kText);
  f.close();
  std::string bytes = testing::read_bytes(dir.file("model.h5"));
  const Layout l = find_layout(bytes, 5);
  put_le(bytes, l.reference + 12, 9, 4);
  testing::write_bytes(dir.file("model.h5"), bytes);
  EXPECT_THROW_WITH(models::load_model(dir.file("model.h5")), IOError, "model.h5",
                    "damaged HDF5 file", "refers to object 9");
}

}  // namespace
}  // namespace strata::hdf5_attribute_check_test
