"""Test data and NumPy references for the differential tests.

Floating-point sums are checked two ways, as the C++ tests do: on data whose every partial sum
is exact (quarters), where any fold order must give the exact total bit for bit, so a dropped,
doubled or out-of-range element shows; and on random data in [-1/2, 1] within the worst-case
error bound of warpfold's fold order.
"""

from __future__ import annotations

import math

import numpy as np

ROUNDOFF = {"float32": 2.0**-24, "float64": 2.0**-53}


def random_values(dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh random data of `dtype`'s range: integers over the whole type (sums wrap), floats in
    [-1/2, 1] (a nonzero mean, so the sum grows with n)."""
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(np.dtype(dtype))
        return rng.integers(int(info.min), int(info.max), n, dtype=np.dtype(dtype), endpoint=True)
    return rng.uniform(-0.5, 1.0, n)


def quarter_values(n: int, rng: np.random.Generator) -> np.ndarray:
    """1/4, 2/4 or 3/4: every partial sum of up to 2^22 of them is exact in float32 (and half)."""
    assert n <= 2**22
    return rng.integers(1, 4, n) / 4.0


def product_values(dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Factors whose product stays finite and nonzero: near 1 for floats; for integers mostly 1
    (or -1), with about 30 twos and 30 threes whatever n (so that 64-bit products wrap), and
    True with a rare False for bool."""
    if dtype == "bool":
        return rng.random(n) < 0.999
    if dtype.startswith(("int", "uint")):
        share = 30 / max(n, 1)
        draw = rng.random(n)
        factors = np.ones(n, dtype=np.int64)
        factors[draw < share] = 2
        factors[(draw >= share) & (draw < 2 * share)] = 3
        if dtype.startswith("int"):
            factors *= rng.choice(np.array([-1, 1]), n)
        return factors.astype(np.dtype(dtype))
    return rng.uniform(0.999, 1.001, n)


def wrapped(values: np.ndarray, result: str, op: str):
    """The exact integer sum or product of `values` modulo 2^bits of `result`, as NumPy computes it."""
    with np.errstate(over="ignore"):
        as_result = values.astype(np.dtype(result))
        return (np.sum if op == "sum" else np.prod)(as_result, dtype=np.dtype(result))


def rounded(value, dtype):
    """`value` rounded to `dtype` (to nearest, ties to even), as a Python float."""
    if dtype == "bfloat16":
        bits = np.array([value], dtype=np.float32).view(np.uint32)
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
        return float(bits.view(np.float32)[0])
    return float(np.dtype(dtype).type(value))


def sum_bound(n: int, roundoff: float, abs_sum: float) -> float:
    """Worst-case error of warpfold's fold order (tests/gpu/reduce_test_support.cuh: sum_bound):
    at most n/256 + 1 terms in sequence per thread, then 24 tree levels."""
    return (n // 256 + 1 + 24) * roundoff * abs_sum + 1e-300


def close_to(value: float, reference: float, bound: float) -> bool:
    if math.isnan(reference):
        return math.isnan(value)
    if math.isinf(reference):
        return value == reference
    return abs(value - reference) <= bound
