"""Pieces of remat `.mlir` text every frontend writes the same way."""

import math


def quoted(text):
    """An MLIR string literal: backslash and quote escaped, control
    characters as two hex digits (`\\0A`; a raw newline ended the literal
    before 2026-12-07, and the text no longer parsed)."""
    out = []
    for char in str(text):
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\{ord(char):02X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def f64_attr(value):
    """An f64 attribute that round-trips `value` exactly (MLIR float
    literals need a '.', so 1e-05 is written 1.0e-05)."""
    if not math.isfinite(float(value)):
        raise ValueError(f"non-finite attribute value {value!r}")
    mantissa, _, exponent = repr(float(value)).partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "") + " : f64"


def tensor_type(shape, element_type):
    """`tensor<2x3xf32>` from a shape and an element type such as `f32`."""
    dims = "x".join(str(int(d)) for d in shape)
    return f"tensor<{dims + 'x' if dims else ''}{element_type}>"
