"""Writes the golden .npy files with NumPy, the format's reference implementation.

Run in this folder: python3 make_golden.py. selftest/npyInterop.test.ts reads every file
(on any machine, NumPy or not) and, where NumPy exists, runs this again and requires the same bytes.
"""
import numpy as np
from numpy.lib import format as fmt

# [2, 3, 4] so that C and Fortran order lay the values out differently.
values = (np.arange(24, dtype=np.float64) * 0.1 - 1.2).reshape(2, 3, 4)
arrays = {
    "f4": values.astype(np.float32),
    "f8": values,
    "b1": (np.arange(24) % 3 == 0).reshape(2, 3, 4),
}
for name, array in arrays.items():
    for order, laid_out in (("C", np.ascontiguousarray(array)), ("F", np.asfortranarray(array))):
        for version in (1, 2, 3):
            with open(f"{name}_{order}_v{version}.npy", "wb") as f:
                fmt.write_array(f, laid_out, version=(version, 0))
np.save("f8_scalar.npy", np.float64(2.5))
np.save("f4_big_endian.npy", values.astype(">f4"))
np.save("i8.npy", np.arange(24, dtype=np.int64).reshape(2, 3, 4))
