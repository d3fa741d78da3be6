#!/usr/bin/python3
"""Writes the tiny .npy fixtures read by tests/unit/ral/TensorIOTest.cpp (NpyTest.ReadsNumpyMadeFixtures).

The files are committed; rerun with `/usr/bin/python3 tests/unit/ral/data/make_npy_fixtures.py`
only if the set changes. They are made by numpy itself so that the C++ reader is checked
against the real writer (header layout, padding, dtype spellings).
"""
import os

import numpy as np
from numpy.lib import format as npf

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, arr):
    np.save(os.path.join(HERE, name), arr, allow_pickle=False)


def save_version(name, arr, version):
    with open(os.path.join(HERE, name), "wb") as f:
        npf.write_array(f, arr, version=version, allow_pickle=False)


save("f32_2x3.npy", np.array([[0, 1.5, -2], [3.25, 4, -5]], np.float32))
save("f64_scalar.npy", np.array(np.pi, np.float64))
save("f16_4.npy", np.array([1, -0.5, 65504, 2.0**-13], np.float16))
save("bool_2x2.npy", np.array([[True, False], [False, True]]))
save("i8_3.npy", np.array([-128, 0, 127], np.int8))
save("i16_2.npy", np.array([-32768, 32767], np.int16))
save("i32_2x1.npy", np.array([[-7], [2147483647]], np.int32))
save("i64_3.npy", np.array([-1, 0, 2**40], np.int64))
save("u8_4.npy", np.array([0, 1, 128, 255], np.uint8))
save("u16_2.npy", np.array([0, 65535], np.uint16))
save("u32_2.npy", np.array([0, 2**32 - 1], np.uint32))
save("u64_2.npy", np.array([0, 2**64 - 1], np.uint64))
save("f32_empty_0x3.npy", np.zeros((0, 3), np.float32))
save_version("f32_v2_2.npy", np.array([1, 2], np.float32), (2, 0))
save_version("f32_v3_2.npy", np.array([3, 4], np.float32), (3, 0))
