"""Writes h5py_cases.h5: the string and dtype cases a Keras file can hold, as h5py writes
them, for tests/io/hdf5_test.cc. Run with h5py >= 3 and numpy:
    python3 make_h5py_cases.py   (h5py 3.16.0, numpy 2.x made the checked-in file)
"""
import h5py
import numpy as np

with h5py.File("h5py_cases.h5", "w") as f:
    f.attrs["vlen_str"] = "tensorflow"                      # Python str: vlen UTF-8
    f.attrs["vlen_bytes"] = b"2.15.0"                       # Python bytes: vlen ASCII
    f.attrs["fixed_scalar"] = np.bytes_("2.2.4")            # numpy bytes_: fixed-length
    f.attrs["fixed_list"] = np.array([b"dense", b"dense_1"])  # 'S7' array (Keras layer_names)
    f.attrs["vlen_list"] = ["conv1d", "flatten", "dense"]   # list of str: vlen array
    f.attrs["empty_list"] = np.array([])                    # float64 (0,): no weights
    big = np.array([("layer_%05d" % i).encode() for i in range(200)])
    for i, chunk in enumerate(np.array_split(big, 2)):      # as Keras chunks > 64 KiB lists
        f.attrs["big%d" % i] = chunk
    f.attrs["number"] = 3.5
    f["f64"] = np.arange(6, dtype=np.float64).reshape(2, 3) / 4
    f["f16"] = np.array([0.5, -2.0, 1024.0], dtype=np.float16)
    f["i32"] = np.array([1, -2, 3], dtype=np.int32)
    f["u8"] = np.array([0, 255], dtype=np.uint8)
    f["scalar_i64"] = np.int64(7)
    f["bf16"] = np.array([1, 2], dtype=np.uint16)
    f["bf16"].attrs["dtype"] = "bfloat16"
    f["strings"] = np.array([b"a", b"b"])
