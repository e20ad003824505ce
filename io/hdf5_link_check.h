// Checks the link storage of an HDF5 group against the file's own bytes before libhdf5
// looks a name up in it or lists it.
//
// A group written with libhdf5's default (earliest) format, as h5py and Keras write every
// group, keeps its links in a symbol table: a B-tree of entries whose names live in a
// "local heap". When libhdf5 1.10 first loads a local heap it builds the heap's free
// list node by node (H5HL__fl_deserialize), following each free block's "next" offset
// until the end marker, with nothing to stop a list that returns to a block it has
// already visited: a damaged offset pointing back (one fuzzed Keras file pointed a
// block at itself) makes it allocate 32 bytes a turn until memory runs out (CI's
// fuzz_keras_h5: 1.7 GB in 53 million blocks; outside a sanitizer, every byte the machine
// has). It also reads each node's two fields without checking they lie inside the heap.
// So before any lookup in a group, Strata finds the group's symbol table message, reads
// its local heap and walks the free list as libhdf5 will; anything inconsistent is an
// IOError naming the file, the group and what is wrong. Only checks; libhdf5 still reads.
//
// Format: HDF5 File Format Specification version 3.0, sections III.D (local heap) and
// IV.A.2.r (symbol table message).
#pragma once

#include <cstdint>
#include <string>

#include "io/hdf5_object_header.h"

namespace strata::io::h5 {

// Checks the local heap of the group whose header is at (relative) address
// `object_header`, when the group keeps its links in a symbol table (groups in the newer
// format, and datasets, have none: nothing to check). `where` names the group
// ("'model.h5' at '/model_weights'"). Throws IOError naming the file, the group and what
// is wrong.
void check_link_storage(const CheckedFile& file, std::uint64_t object_header, const std::string& where);

}  // namespace strata::io::h5
