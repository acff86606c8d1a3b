"""Result and accumulator types: the input framework's own rules, and the compiled entry to run.

Types are named as NumPy and PyTorch both spell them ("int8", "float16", "bfloat16").
A *family* is the set of rules: "torch" for PyTorch tensors, "numpy" for everything else
(CuPy, NumPy-like producers).
"""

from __future__ import annotations

SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
HALVES = ("float16", "bfloat16")
FLOATS = HALVES + ("float32", "float64")
SUPPORTED = ("bool",) + SIGNED + UNSIGNED + FLOATS
ITEMSIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4,
            "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8}

# The operators reduce() takes, with the names people also use for them.
OP_ALIASES = {
    "sum": "sum", "add": "sum", "plus": "sum",
    "prod": "prod", "product": "prod", "multiply": "prod", "multiplies": "prod",
    "min": "min", "minimum": "min",
    "max": "max", "maximum": "max",
    "and": "and", "bit_and": "and", "bitwise_and": "and",
    "or": "or", "bit_or": "or", "bitwise_or": "or",
    "xor": "xor", "bit_xor": "xor", "bitwise_xor": "xor",
}
ARITHMETIC = ("sum", "prod", "reproducible_sum")  # their result type follows the framework's sum, or dtype=
BITWISE = ("and", "or", "xor")
SEARCHES = ("argmin", "argmax")
NEEDS_ELEMENTS = ("min", "max", "argmin", "argmax")

# bool is stored as one byte holding 0 or 1: it reduces as uint8. Bitwise folds of signed types
# run on the unsigned type of the same width (the same bits).
_AS_UNSIGNED = dict(zip(SIGNED, UNSIGNED), bool="uint8")


def op_name(op) -> str:
    """The canonical name of an operator given to reduce()."""
    if not isinstance(op, str):
        raise TypeError(f"op must be a string such as 'sum' or 'max', not {type(op).__name__}")
    try:
        return OP_ALIASES[op.lower()]
    except KeyError:
        names = ", ".join(sorted(set(OP_ALIASES.values())))
        raise ValueError(f"unknown op {op!r}: warpfold reduces with {names}") from None


def default_result(op: str, dtype: str, family: str) -> str:
    """The dtype the caller's framework would return for `op` over `dtype`."""
    if op in SEARCHES:
        return "int64"
    if op not in ARITHMETIC or dtype in FLOATS:
        return dtype
    if family == "torch":  # torch.sum / torch.prod: bool and every integer type give int64
        return "int64"
    return "uint64" if dtype in UNSIGNED else "int64"  # NumPy: unsigned to uint64, the rest to int64


def accumulator(result: str) -> str:
    """The type a sum or product returning `result` accumulates in."""
    if result in HALVES:
        return "float32"
    if result in ("int64", "uint64"):
        return "uint64"  # wraps modulo 2**64: the bits of the int64 result too
    if result in ("int32", "uint32"):
        return "uint32"
    return result


def partial_type(op: str, dtype: str, result: str) -> str:
    """The type of the partial results a reduce in several passes keeps between them: the
    accumulator of a sum or product, the input's type for min and max. An intermediate of uint64
    is read by the next pass as int64 (the same bits, and int64 entries exist for every op)."""
    if op not in ARITHMETIC:
        return dtype
    acc = accumulator(result)
    return "int64" if acc == "uint64" else acc


def entry_key(op: str, dtype: str, result: str) -> str:
    """The compiled entry ("op/input/accumulator/output") for `op` over `dtype` giving `result`."""
    if op in ARITHMETIC:
        source = "uint8" if dtype == "bool" else dtype
        acc = accumulator(result)
        return f"{op}/{source}/{acc}/{result if result in HALVES else acc}"
    source = _AS_UNSIGNED.get(dtype, dtype) if op in BITWISE or dtype == "bool" else dtype
    return f"{op}/{source}/{source}/{'int64' if op in SEARCHES else source}"


def normalize(dtype) -> str:
    """A dtype given as dtype= (a torch or NumPy dtype, a NumPy scalar type, a name, int or float)."""
    if isinstance(dtype, str):
        name = dtype
    elif dtype is int:
        name = "int64"
    elif dtype is float:
        name = "float64"
    elif dtype is bool:
        name = "bool"
    else:
        text = str(dtype)
        if text.startswith("torch."):
            name = text[len("torch."):]
        else:
            name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or text
    name = {"half": "float16", "double": "float64"}.get(name, name)
    if name not in SUPPORTED:
        raise TypeError(f"unsupported dtype {dtype!r}: warpfold knows {', '.join(SUPPORTED)}")
    return name


def check_input(dtype: str, op: str) -> None:
    """Raises TypeError where `op` cannot take inputs of `dtype`."""
    if dtype not in SUPPORTED:
        raise TypeError(f"unsupported dtype {dtype}: warpfold reduces {', '.join(SUPPORTED)}")
    if op in BITWISE and dtype in FLOATS:
        raise TypeError(f"{op} needs integer or bool input, not {dtype}")
