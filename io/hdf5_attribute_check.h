// Checks the attribute storage of an HDF5 object against the file's own bytes before
// libhdf5 decodes it: the attribute messages themselves, and the variable-length strings
// an attribute refers to.
//
// libhdf5 1.10 decodes every attribute message of an object when one attribute is looked
// up (H5Aexists, H5Aopen, H5Aiterate), and copies each name with strdup: a name whose
// terminating NUL was damaged away is read past the end of its message (found by
// tests/fuzz/fuzz_keras_h5). check_attribute_messages checks every message's fields lie
// inside it and every name ends inside its field.
//
// A variable-length string is stored as a reference into a "global heap collection"
// elsewhere in the file: (length, collection address, object index). libhdf5 1.10 trusts
// those references and the collection's object table: an index beyond the table, a free
// slot, an object longer than its string, or an object size that runs past the
// collection make H5Aread read or write out of bounds (seen as SIGSEGV in H5HG_read on
// damaged Keras files). So before any H5Aread of such an attribute, Strata finds the
// attribute's message in its object header, walks every collection it refers to exactly
// as libhdf5 will, and checks each reference; anything inconsistent is an IOError naming
// the file, the attribute and what is wrong. Only checks; libhdf5 still does the reading.
//
// Format: HDF5 File Format Specification version 3.0, sections III.A (superblock
// addresses), III.E (global heap), IV.A (object headers v1 and v2) and IV.A.2.m
// (attribute message).
#pragma once

#include <cstdint>
#include <string>

#include "io/hdf5_object_header.h"

namespace strata::io::h5 {

// Checks every attribute message in the header of the object at `object_header`, as
// libhdf5 will decode it; `where` names the object ("'model.h5' at '/model_weights'").
// Throws IOError naming the file, the object and what is wrong.
void check_attribute_messages(const CheckedFile& file, std::uint64_t object_header,
                              const std::string& where);

// Checks the `elements` variable-length strings of attribute `attribute` of the object
// whose header is at (relative) address `object_header`. `where` describes the attribute
// in messages ("'model_config' of 'model.h5' at '/'"). Throws IOError when the header,
// the attribute message or a referenced heap object is damaged, and when the attribute
// cannot be found in the header (attributes in dense storage, which Keras files never
// use, are refused rather than read unchecked).
void check_vlen_string_attribute(const CheckedFile& file, std::uint64_t object_header,
                                 const std::string& attribute, std::uint64_t elements,
                                 const std::string& where);

}  // namespace strata::io::h5
