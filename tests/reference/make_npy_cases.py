"""NumPy fixtures for tests/io/npy_test.cc: what np.save / np.savez / np.savez_compressed write.

  /tmp/venv_files/bin/python tests/reference/make_npy_cases.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "npy")
os.makedirs(OUT, exist_ok=True)
a = np.arange(24, dtype="float32").reshape(2, 3, 4) / 8
np.save(os.path.join(OUT, "f32_2x3x4.npy"), a)
np.save(os.path.join(OUT, "f64_5.npy"), np.linspace(-1, 1, 5))
np.save(os.path.join(OUT, "i64_3.npy"), np.array([1, -2, 3], dtype="int64"))
np.save(os.path.join(OUT, "u8_2x2.npy"), np.array([[0, 255], [7, 8]], dtype="uint8"))
np.save(os.path.join(OUT, "bool_3.npy"), np.array([True, False, True]))
np.save(os.path.join(OUT, "scalar.npy"), np.float32(2.5))
np.save(os.path.join(OUT, "fortran.npy"), np.asfortranarray(a[0]))
np.save(os.path.join(OUT, "big_endian.npy"), np.array([1.0, 2.0], dtype=">f4"))
np.savez(os.path.join(OUT, "stored.npz"), x=a, y=np.array([1, 2, 3], dtype="int32"))
np.savez_compressed(os.path.join(OUT, "compressed.npz"), first=a, second=np.ones((100, 10), dtype="float32"))
print("wrote", sorted(os.listdir(OUT)))
