// Checks a dataset's object header before libhdf5 opens the dataset: every message
// H5Dopen decodes, against its own bytes.
//
// libhdf5 1.10 decodes these messages trusting the lengths inside them: a fill value is
// copied by the size the message declares, a compact layout's data by its size, a
// chunked layout's dimensions read by their count, a filter's name by strlen() and its
// client data by its count; datatypes and dataspaces as io/hdf5_encoding_check.h says.
// A damaged length sends libhdf5 reading past the object header's buffer. So every part
// each message declares must lie inside the message.
//
// Two kinds of storage are refused outright: external files (an external file list
// message names other files to read the data from) and virtual datasets (a layout that
// maps other files' datasets). Keras never writes either, and a model file must not make
// Strata open files the user did not name.
//
// Format: HDF5 File Format Specification version 3.0, section IV.A.2: the dataspace
// (b), datatype (d), fill value (e, f), external file list (h), layout (i) and filter
// pipeline (l) messages, in the versions libhdf5 1.10 reads.
#pragma once

#include <cstdint>
#include <string>

#include "io/hdf5_object_header.h"

namespace strata::io::h5 {

// Checks the messages of the dataset whose object header is at `object_header`; `where`
// names it in errors ("'model.h5' at '/dense/kernel:0'"). Shared messages refer to a
// message kept elsewhere, which libhdf5 checks itself. Throws IOError.
void check_dataset_messages(const CheckedFile& file, std::uint64_t object_header, const std::string& where);

}  // namespace strata::io::h5
