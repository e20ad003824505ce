// Checks the two encodings libhdf5 decodes wherever it meets them, datatypes and
// dataspaces, against their own bytes before libhdf5 decodes them: in attribute messages
// (io/hdf5_attribute_check.h) and in a dataset's object header, which libhdf5 decodes
// when the dataset is opened (io/hdf5_dataset_check.h).
//
// libhdf5 1.10 decodes a datatype without bounds: the names of a compound's members and
// of an enumeration's values are strdup()ed from the encoding, an enumeration's values
// copied by count x base size, an opaque tag copied by its declared length, and base and
// member types decoded recursively. A damaged class byte (a vlen string turned into an
// enumeration) sent libhdf5 reading past the object header's buffer (AddressSanitizer:
// heap-buffer-overflow in strdup under H5Aexists, found by tests/fuzz/fuzz_keras_h5). A
// dataspace's dimensions are read by its rank. So every part of each encoding, each
// name's NUL included, must lie inside its field or message.
//
// Format: HDF5 File Format Specification version 3.0, sections IV.A.2.b (dataspace
// message, versions 1 and 2) and IV.A.2.d (datatype message, versions 1 to 3): the
// versions libhdf5 1.10 reads.
#pragma once

#include <cstdint>
#include <string>

#include "io/hdf5_object_header.h"

namespace strata::io::h5 {

// Checks the datatype encoded in `field` (exactly its bytes) and returns the size it
// declares for an element; `which` names it in errors ("attribute message 2's
// datatype"). Throws IOError (through `file`).
std::uint64_t check_datatype(const std::string& field, FileBytes& file, const std::string& which);

// Checks the dataspace encoded in `field`: its version, its rank (at most 32), and that
// its dimensions (and maximum dimensions, when flagged) lie inside the field. Returns
// its element count (0 for a null dataspace); one that overflows is refused.
std::uint64_t check_dataspace(const std::string& field, FileBytes& file, const std::string& which);

}  // namespace strata::io::h5
