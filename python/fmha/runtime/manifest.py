"""Kernel manifests (docs/Manifest.md): loading, validation, size symbols and
the integer expressions of grids and scalar parameters.

:func:`load_manifest` reads and validates a manifest into a :class:`Manifest`;
every violation raises :class:`ManifestError` naming the file and the field
(``params[2].box``). :func:`bind_symbols` binds the size symbols from actual
tensor shapes, :func:`evaluate` and :func:`launch_grid` evaluate expressions.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from .dtypes import SCALAR_DTYPES, TENSOR_DTYPES, TensorDType
from .errors import ManifestError, TensorMapError
from .tensormap import check_box

FORMAT = "fmha-manifest/1"
NUM_SMS = "num_sms"
ROLES = ("input", "output", "scratch", "zeroed")
# Tensors the kernel needs beside the caller's data, sized by expressions
# of the other tensors' sizes: a workspace ("scratch": its contents do not
# matter across launches) or one that must be zero before the first launch
# and that every launch leaves zero ("zeroed": split-K's tile counters).
SCRATCH_ROLES = ("scratch", "zeroed")
MAX_THREADS_PER_BLOCK = 1024
# Grid limits of the driver: x < 2^31, y and z < 2^16.
MAX_GRID = (2**31 - 1, 65535, 65535)
_INT_RANGES = {"i32": (-2**31, 2**31 - 1), "i64": (-2**63, 2**63 - 1)}
_TARGET = re.compile(r"^sm_(\d+)(\d)([af]?)$")


# ---------------------------------------------------------------------------
# Expressions


@dataclass(frozen=True)
class Const:
    """An integer literal."""

    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Symbol:
    """A size symbol, bound from the tensors' shapes."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class NumSms:
    """The device's multiprocessor count (``"num_sms"``)."""

    def __str__(self) -> str:
        return NUM_SMS


@dataclass(frozen=True)
class CeilDiv:
    """``ceil(lhs / rhs)``."""

    lhs: "Expr"
    rhs: "Expr"

    def __str__(self) -> str:
        return f"ceildiv({self.lhs}, {self.rhs})"


@dataclass(frozen=True)
class Mul:
    """``lhs * rhs``."""

    lhs: "Expr"
    rhs: "Expr"

    def __str__(self) -> str:
        return f"mul({self.lhs}, {self.rhs})"


@dataclass(frozen=True)
class Min:
    """``min(lhs, rhs)``: a persistent grid of at most one CTA per work
    item."""

    lhs: "Expr"
    rhs: "Expr"

    def __str__(self) -> str:
        return f"min({self.lhs}, {self.rhs})"


Expr = Union[Const, Symbol, NumSms, CeilDiv, Mul, Min]
NumSmsSource = Union[int, Callable[[], int], None]


def parse_expr(value: Any, field: str) -> Expr:
    """Parses the JSON form of an integer expression: an integer, a size
    symbol, ``"num_sms"``, ``{"ceildiv": [x, n]}``, ``{"mul": [x, y]}`` or
    ``{"min": [x, y]}``, nested. Raises ManifestError naming ``field``."""
    if isinstance(value, bool):
        raise ManifestError(f"{field}: expected an integer expression, got "
                            f"{json.dumps(value)}")
    if isinstance(value, int):
        return Const(value)
    if isinstance(value, str):
        if value == NUM_SMS:
            return NumSms()
        if not value.isidentifier():
            raise ManifestError(f"{field}: '{value}' is not a valid symbol "
                                "name")
        return Symbol(value)
    if isinstance(value, dict):
        if len(value) != 1:
            raise ManifestError(
                f"{field}: an expression object has exactly one key "
                f"(ceildiv, mul or min), got {sorted(value)}")
        (op, operands), = value.items()
        if op not in ("ceildiv", "mul", "min"):
            raise ManifestError(f"{field}: unknown operator '{op}' "
                                "(known: ceildiv, mul, min)")
        if not isinstance(operands, list) or len(operands) != 2:
            raise ManifestError(f"{field}.{op}: expected a list of two "
                                f"operands, got {json.dumps(operands)}")
        lhs = parse_expr(operands[0], f"{field}.{op}[0]")
        rhs = parse_expr(operands[1], f"{field}.{op}[1]")
        if op == "mul":
            return Mul(lhs, rhs)
        if op == "min":
            return Min(lhs, rhs)
        if isinstance(rhs, Const) and rhs.value <= 0:
            raise ManifestError(f"{field}.ceildiv[1]: the divisor must be "
                                f"positive, got {rhs.value}")
        return CeilDiv(lhs, rhs)
    raise ManifestError(f"{field}: expected an integer expression, got "
                        f"{json.dumps(value)}")


def expr_symbols(expr: Expr) -> set[str]:
    """The size symbols ``expr`` uses."""
    if isinstance(expr, Symbol):
        return {expr.name}
    if isinstance(expr, (CeilDiv, Mul, Min)):
        return expr_symbols(expr.lhs) | expr_symbols(expr.rhs)
    return set()


def evaluate(expr: Expr, symbols: Mapping[str, int],
             num_sms: NumSmsSource = None) -> int:
    """Evaluates ``expr`` with the bound ``symbols``. ``num_sms`` is the
    multiprocessor count or a function returning it (called only when the
    expression uses ``num_sms``). Raises ValueError for an unbound symbol,
    a missing ``num_sms`` or a non-positive divisor."""
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Symbol):
        try:
            return symbols[expr.name]
        except KeyError:
            raise ValueError(f"size symbol '{expr.name}' is not bound "
                             f"(bound: {_names(symbols)})") from None
    if isinstance(expr, NumSms):
        value = num_sms() if callable(num_sms) else num_sms
        if value is None:
            raise ValueError("'num_sms' needs the device's multiprocessor "
                             "count, and none was given")
        return int(value)
    lhs = evaluate(expr.lhs, symbols, num_sms)
    rhs = evaluate(expr.rhs, symbols, num_sms)
    if isinstance(expr, Mul):
        return lhs * rhs
    if isinstance(expr, Min):
        return min(lhs, rhs)
    if rhs <= 0:
        raise ValueError(f"{expr}: the divisor evaluates to {rhs}")
    return -(-lhs // rhs)


def _names(items: Any) -> str:
    return ", ".join(items) if items else "none"


# ---------------------------------------------------------------------------
# The manifest


@dataclass(frozen=True)
class TensorSpec:
    """A tensor the caller passes: its shape (sizes outermost first, each an
    integer or a size symbol; for a scratch tensor, ``role`` in
    SCRATCH_ROLES, an expression of the other tensors' sizes), element
    type and role."""

    name: str
    shape: tuple[Any, ...]
    dtype: TensorDType
    role: str

    @property
    def scratch(self) -> bool:
        return self.role in SCRATCH_ROLES

    @property
    def rank(self) -> int:
        return len(self.shape)

    def shape_str(self) -> str:
        return "[" + ", ".join(str(s) for s in self.shape) + "]"


@dataclass(frozen=True)
class TensorMapParam:
    """A 128-byte CUtensorMap of ``tensor``, passed by value. ``box`` is
    outermost first; ``swizzle`` in bytes. ``dims``: the tensor's
    dimensions in the map's order, outermost first (None: the tensor's
    own order), e.g. ``(1, 0, 2)`` maps a packed ``[total, heads, d]``
    tensor as ``[heads, total, d]``."""

    tensor: str
    box: tuple[int, ...]
    swizzle: int
    dims: Optional[tuple[int, ...]] = None
    kind = "tensor_map"


@dataclass(frozen=True)
class ScalarParam:
    """A scalar of type ``dtype`` (i32, i64, f32); ``value`` is an integer
    expression or, for f32, a float."""

    dtype: str
    value: Union[Expr, float]
    kind = "scalar"


@dataclass(frozen=True)
class PointerParam:
    """The data pointer of ``tensor``."""

    tensor: str
    kind = "pointer"


@dataclass(frozen=True)
class MemrefParam:
    """``tensor`` as MLIR's expanded memref descriptor: allocated pointer,
    aligned pointer, i64 offset (0), i64 sizes, i64 strides (elements).
    ``strided``: the kernel reads the strides, so the tensor may have any
    layout (else it must be dense and row-major)."""

    tensor: str
    strided: bool = False
    kind = "memref"


Param = Union[TensorMapParam, ScalarParam, PointerParam, MemrefParam]


@dataclass(frozen=True)
class LaunchSpec:
    """One kernel launch of a manifest: the entry in the cubin, its launch
    configuration, parameters and grid (docs/Manifest.md, "Several
    launches")."""

    entry: str
    block: tuple[int, int, int]
    cluster: tuple[int, int, int]
    dynamic_smem: int
    params: tuple[Param, ...]
    grid: tuple[Expr, Expr, Expr]


@dataclass(frozen=True)
class Manifest:
    """A validated kernel manifest (docs/Manifest.md)."""

    name: str
    entry: str
    target: str
    capability: tuple[int, int]
    cubin: str
    block: tuple[int, int, int]
    cluster: tuple[int, int, int]
    dynamic_smem: int
    tensors: dict[str, TensorSpec]
    params: tuple[Param, ...]
    grid: tuple[Expr, Expr, Expr]
    source: str = "<manifest>"
    directory: str = "."
    # Size symbols the caller passes as integers, by name, beside the
    # tensors (``sizes`` in the manifest; none for most kernels).
    sizes: tuple[str, ...] = ()
    # The launches of a manifest with ``launches`` (docs/Manifest.md,
    # "Several launches"), in order; empty for a single-kernel manifest,
    # whose one launch is the top-level fields. With several, the
    # top-level ``entry``, ``block``, ``cluster``, ``dynamic_smem``,
    # ``params`` and ``grid`` are the first launch's.
    launches: tuple[LaunchSpec, ...] = ()

    @property
    def steps(self) -> tuple[LaunchSpec, ...]:
        """Every launch of a call, in order (one for a single-kernel
        manifest)."""
        if self.launches:
            return self.launches
        return (LaunchSpec(self.entry, self.block, self.cluster,
                           self.dynamic_smem, self.params, self.grid),)

    def all_params(self) -> list[Param]:
        """The parameters of every launch, in launch order."""
        return [p for step in self.steps for p in step.params]

    @property
    def cubin_path(self) -> Path:
        """The cubin's path: ``cubin`` relative to the manifest's folder."""
        return Path(self.directory) / self.cubin

    def symbols(self) -> list[str]:
        """The size symbols, in the order the tensors first use them."""
        seen: dict[str, None] = {}
        for spec in self.tensors.values():
            for size in spec.shape:
                if isinstance(size, str):
                    seen.setdefault(size)
        return list(seen)


def load_manifest(path: Union[str, os.PathLike]) -> Manifest:
    """Reads and validates the manifest at ``path``. Raises ManifestError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ManifestError(f"{path}: cannot read the manifest: "
                            f"{e.strerror or e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}: not valid JSON: {e.msg} at line "
                            f"{e.lineno} column {e.colno}") from None
    return parse_manifest(data, source=str(path),
                          directory=str(path.parent))


def parse_manifest(data: Any, source: str = "<manifest>",
                   directory: str = ".") -> Manifest:
    """Validates the decoded JSON of a manifest. ``source`` names it in
    errors; ``directory`` is where its ``cubin`` path starts. Keys the format
    does not define are ignored. Raises ManifestError."""
    try:
        return _parse(data, source, directory)
    except ManifestError as e:
        raise ManifestError(f"{source}: {e}") from None


def _get(obj: Mapping[str, Any], key: str, field: str) -> Any:
    if key not in obj:
        raise ManifestError(f"{field}: missing required key '{key}'")
    return obj[key]


def _object(value: Any, field: str) -> dict:
    if not isinstance(value, dict):
        raise ManifestError(f"{field}: expected an object, got "
                            f"{json.dumps(value)}")
    return value


def _string(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise ManifestError(f"{field}: expected a non-empty string, got "
                            f"{json.dumps(value)}")
    return value


def _int(value: Any, field: str, low: int | None = None,
         high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ManifestError(f"{field}: expected an integer, got "
                            f"{json.dumps(value)}")
    if (low is not None and value < low) or (high is not None
                                             and value > high):
        bounds = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ManifestError(f"{field}: {value} is not in {bounds}")
    return value


def _dim3(value: Any, field: str) -> tuple[int, int, int]:
    if not isinstance(value, list) or len(value) != 3:
        raise ManifestError(f"{field}: expected a list of 3 positive "
                            f"integers, got {json.dumps(value)}")
    x, y, z = (_int(v, f"{field}[{i}]", 1) for i, v in enumerate(value))
    return x, y, z


def parse_target(target: str, field: str = "target") -> tuple[int, int]:
    """The compute capability a target needs: ``sm_90a`` -> (9, 0),
    ``sm_100a`` -> (10, 0)."""
    m = _TARGET.match(target)
    if not m:
        raise ManifestError(f"{field}: '{target}' is not a GPU architecture "
                            "like sm_90a or sm_100a")
    return int(m.group(1)), int(m.group(2))


def _parse(data: Any, source: str, directory: str) -> Manifest:
    top = _object(data, "manifest")
    fmt = _get(top, "format", "manifest")
    if fmt != FORMAT:
        raise ManifestError(f"format: unknown format {json.dumps(fmt)} (this "
                            f"runtime reads {FORMAT!r})")
    several = "launches" in top
    if several:
        for key in _LAUNCH_KEYS:
            if key in top:
                raise ManifestError(
                    f"{key}: a manifest with launches has no top-level "
                    f"'{key}' (each launch has its own)")
    name = _string(_get(top, "name", "manifest"), "name")
    target = _string(_get(top, "target", "manifest"), "target")
    capability = parse_target(target)
    cubin = _string(_get(top, "cubin", "manifest"), "cubin")
    if os.path.isabs(cubin):
        raise ManifestError(f"cubin: '{cubin}' must be a path relative to "
                            "the manifest")
    tensors = _parse_tensors(_get(top, "tensors", "manifest"))
    symbols = {s for t in tensors.values() if not t.scratch for s in t.shape
               if isinstance(s, str)}
    sizes = _parse_sizes(top.get("sizes", []), tensors, symbols)
    symbols |= set(sizes)
    for t in tensors.values():
        if t.scratch:
            for i, e in enumerate(t.shape):
                unknown = expr_symbols(e) - symbols
                if unknown or isinstance(e, NumSms):
                    raise ManifestError(
                        f"tensors.{t.name}.shape[{i}]: a scratch tensor's "
                        f"size must be an expression of the other tensors' "
                        f"size symbols and the sizes, got {e}")
    if several:
        raw = top["launches"]
        if not isinstance(raw, list) or not raw:
            raise ManifestError(f"launches: expected a non-empty list of "
                                f"launches, got {json.dumps(raw)}")
        launches = tuple(
            _parse_launch(_object(item, f"launches[{i}]"), f"launches[{i}].",
                          tensors, symbols, sizes)
            for i, item in enumerate(raw))
    else:
        launches = (_parse_launch(top, "", tensors, symbols, sizes),)
    first = launches[0]
    return Manifest(name=name, entry=first.entry, target=target,
                    capability=capability, cubin=cubin, block=first.block,
                    cluster=first.cluster, dynamic_smem=first.dynamic_smem,
                    tensors=tensors, params=first.params, grid=first.grid,
                    source=source, directory=directory, sizes=sizes,
                    launches=launches if several else ())


# The keys of one launch: top-level in a single-kernel manifest, per
# launch in a manifest with ``launches``.
_LAUNCH_KEYS = ("entry", "block", "cluster", "dynamic_smem", "params",
                "grid")


def _parse_launch(obj: Mapping[str, Any], prefix: str,
                  tensors: Mapping[str, TensorSpec], symbols: set[str],
                  sizes: tuple) -> LaunchSpec:
    """One launch's keys of ``obj``; ``prefix`` (``launches[1].``) starts
    the fields named in errors."""
    where = prefix[:-1] if prefix else "manifest"
    entry = _string(_get(obj, "entry", where), f"{prefix}entry")
    block = _dim3(_get(obj, "block", where), f"{prefix}block")
    if math.prod(block) > MAX_THREADS_PER_BLOCK:
        raise ManifestError(f"{prefix}block: {list(block)} has "
                            f"{math.prod(block)} threads, more than "
                            f"{MAX_THREADS_PER_BLOCK}")
    cluster = _dim3(_get(obj, "cluster", where), f"{prefix}cluster")
    dynamic_smem = _int(_get(obj, "dynamic_smem", where),
                        f"{prefix}dynamic_smem", 0)
    raw_params = _get(obj, "params", where)
    if not isinstance(raw_params, list):
        raise ManifestError(f"{prefix}params: expected a list, got "
                            f"{json.dumps(raw_params)}")
    params = tuple(_parse_param(p, f"{prefix}params[{i}]", tensors, symbols,
                                sizes)
                   for i, p in enumerate(raw_params))
    raw_grid = _get(obj, "grid", where)
    if not isinstance(raw_grid, list) or len(raw_grid) != 3:
        raise ManifestError(f"{prefix}grid: expected a list of 3 "
                            f"expressions, got {json.dumps(raw_grid)}")
    grid = tuple(_parse_size_expr(g, f"{prefix}grid[{i}]", symbols, sizes)
                 for i, g in enumerate(raw_grid))
    return LaunchSpec(entry, block, cluster, dynamic_smem, params,
                      grid)  # type: ignore[arg-type]


def _parse_sizes(value: Any, tensors: Mapping[str, TensorSpec],
                 symbols: set[str]) -> tuple[str, ...]:
    """The ``sizes`` list: new size symbols (identifiers, not a tensor's
    name or shape symbol, not ``num_sms``), each once."""
    if not isinstance(value, list):
        raise ManifestError(f"sizes: expected a list of size symbols, got "
                            f"{json.dumps(value)}")
    sizes: list[str] = []
    for i, s in enumerate(value):
        f = f"sizes[{i}]"
        if not isinstance(s, str) or not s.isidentifier() or s == NUM_SMS:
            raise ManifestError(f"{f}: {json.dumps(s)} cannot be a size "
                                f"symbol (a symbol is an identifier other "
                                f"than '{NUM_SMS}')")
        if s in symbols or s in tensors or s in sizes:
            raise ManifestError(f"{f}: '{s}' is already a tensor's name or "
                                "size symbol")
        sizes.append(s)
    return tuple(sizes)


def _parse_tensors(value: Any) -> dict[str, TensorSpec]:
    raw = _object(value, "tensors")
    if not raw:
        raise ManifestError("tensors: a kernel takes at least one tensor")
    tensors: dict[str, TensorSpec] = {}
    for name, t in raw.items():
        field = f"tensors.{name}"
        if not name.isidentifier():
            raise ManifestError(f"{field}: a tensor name must be a Python "
                                "identifier (it is a keyword argument)")
        t = _object(t, field)
        shape = _get(t, "shape", field)
        if not isinstance(shape, list) or not shape:
            raise ManifestError(f"{field}.shape: expected a non-empty list "
                                f"of sizes, got {json.dumps(shape)}")
        sizes: list[Union[int, str]] = []
        scratch = isinstance(t.get("role"), str) and t["role"] in SCRATCH_ROLES
        for i, s in enumerate([] if scratch else shape):
            f = f"{field}.shape[{i}]"
            if isinstance(s, str):
                if s == NUM_SMS or not s.isidentifier():
                    raise ManifestError(
                        f"{f}: '{s}' cannot be a size symbol (a symbol is "
                        f"an identifier other than '{NUM_SMS}')")
                sizes.append(s)
            else:
                sizes.append(_int(s, f, 1))
        dtype = _get(t, "dtype", field)
        if dtype not in TENSOR_DTYPES:
            raise ManifestError(f"{field}.dtype: unknown dtype "
                                f"{json.dumps(dtype)} (known: "
                                f"{', '.join(TENSOR_DTYPES)})")
        role = _get(t, "role", field)
        if role not in ROLES:
            raise ManifestError(f"{field}.role: expected one of "
                                f"{', '.join(ROLES)}, got {json.dumps(role)}")
        if role in SCRATCH_ROLES:
            tensors[name] = TensorSpec(
                name, tuple(parse_expr(s, f"{field}.shape[{i}]")
                            for i, s in enumerate(shape)),
                TENSOR_DTYPES[dtype], role)
            continue
        tensors[name] = TensorSpec(name, tuple(sizes), TENSOR_DTYPES[dtype],
                                   role)
    return tensors


def _parse_size_expr(value: Any, field: str, symbols: set[str],
                     sizes: tuple = ()) -> Expr:
    expr = parse_expr(value, field)
    unknown = expr_symbols(expr) - symbols
    if unknown:
        raise ManifestError(
            f"{field}: unknown size symbol '{sorted(unknown)[0]}' (the "
            f"tensors' shapes{' and the sizes' if sizes else ''} define: "
            f"{_names(sorted(symbols))})")
    return expr


def _tensor_ref(p: Mapping[str, Any], field: str,
                tensors: Mapping[str, TensorSpec]) -> str:
    name = _get(p, "tensor", field)
    if name not in tensors:
        raise ManifestError(f"{field}.tensor: unknown tensor "
                            f"{json.dumps(name)} (tensors: "
                            f"{_names(list(tensors))})")
    return name


def _parse_param(value: Any, field: str, tensors: Mapping[str, TensorSpec],
                 symbols: set[str], sizes: tuple = ()) -> Param:
    p = _object(value, field)
    kind = _get(p, "kind", field)
    if kind == "tensor_map":
        tensor = _tensor_ref(p, field, tensors)
        box = _get(p, "box", field)
        if not isinstance(box, list) or not box:
            raise ManifestError(f"{field}.box: expected a non-empty list of "
                                f"sizes, got {json.dumps(box)}")
        sizes = tuple(_int(b, f"{field}.box[{i}]") for i, b in enumerate(box))
        swizzle = _int(_get(p, "swizzle", field), f"{field}.swizzle")
        spec = tensors[tensor]
        try:
            check_box(tensor, spec.dtype, spec.rank, sizes, swizzle)
        except TensorMapError as e:
            raise ManifestError(f"{field}: {e}") from None
        dims = None
        if "dims" in p:
            raw_dims = p["dims"]
            if (not isinstance(raw_dims, list)
                    or any(isinstance(d, bool) or not isinstance(d, int)
                           for d in raw_dims)
                    or sorted(raw_dims) != list(range(spec.rank))):
                raise ManifestError(
                    f"{field}.dims: expected a permutation of the "
                    f"dimensions of '{tensor}' (0 to {spec.rank - 1}), got "
                    f"{json.dumps(raw_dims)}")
            dims = tuple(raw_dims)
        return TensorMapParam(tensor, sizes, swizzle, dims)
    if kind == "scalar":
        dtype = _get(p, "dtype", field)
        if dtype not in SCALAR_DTYPES:
            raise ManifestError(f"{field}.dtype: unknown scalar dtype "
                                f"{json.dumps(dtype)} (known: "
                                f"{', '.join(SCALAR_DTYPES)})")
        raw = _get(p, "value", field)
        if isinstance(raw, float):
            if dtype != "f32":
                raise ManifestError(f"{field}.value: {raw} is a float but "
                                    f"the scalar is {dtype}")
            return ScalarParam(dtype, raw)
        expr = _parse_size_expr(raw, f"{field}.value", symbols, sizes)
        if isinstance(expr, Const) and dtype in _INT_RANGES:
            low, high = _INT_RANGES[dtype]
            if not low <= expr.value <= high:
                raise ManifestError(f"{field}.value: {expr.value} does not "
                                    f"fit in {dtype}")
        return ScalarParam(dtype, expr)
    if kind == "pointer":
        return PointerParam(_tensor_ref(p, field, tensors))
    if kind == "memref":
        strided = p.get("strided", False)
        if not isinstance(strided, bool):
            raise ManifestError(f"{field}.strided: expected a boolean, got "
                                f"{json.dumps(strided)}")
        return MemrefParam(_tensor_ref(p, field, tensors), strided)
    raise ManifestError(f"{field}.kind: unknown parameter kind "
                        f"{json.dumps(kind)} (known: tensor_map, scalar, "
                        "pointer, memref)")


# ---------------------------------------------------------------------------
# Binding and evaluation


def bind_symbols(manifest: Manifest,
                 shapes: Mapping[str, Sequence[int]],
                 sizes: Optional[Mapping[str, int]] = None) -> dict[str, int]:
    """Binds the size symbols from the tensors' actual ``shapes`` (by tensor
    name, outermost first) and the caller's ``sizes`` (the manifest's
    ``sizes``, by name: integers in [1, 2^31 - 1]). A symbol is bound by the
    first tensor, in the manifest's order, that has it and checked against
    the others; fixed sizes are checked too. Raises ValueError on a missing
    tensor or size, a rank mismatch or an inconsistent size."""
    bound: dict[str, int] = {}
    for name in manifest.sizes:
        value = (sizes or {}).get(name)
        if value is None:
            raise ValueError(f"size '{name}' is missing (the kernel takes "
                             f"the integer size(s) "
                             f"{', '.join(manifest.sizes)})")
        if isinstance(value, bool) or not isinstance(value, int) or \
                not 1 <= value <= _INT_RANGES["i32"][1]:
            raise ValueError(f"size '{name}' must be an int in [1, "
                             f"{_INT_RANGES['i32'][1]}], got {value!r}")
        bound[name] = value
    origin: dict[str, str] = {}
    scratch = [spec for spec in manifest.tensors.values() if spec.scratch]
    for name, spec in manifest.tensors.items():
        if spec.scratch:
            continue
        if name not in shapes:
            raise ValueError(f"tensor '{name}' is missing")
        shape = tuple(int(s) for s in shapes[name])
        if len(shape) != spec.rank:
            raise ValueError(
                f"tensor '{name}' has rank {len(shape)} (shape "
                f"{list(shape)}) but the kernel expects rank {spec.rank} "
                f"{spec.shape_str()}")
        for dim, (want, got) in enumerate(zip(spec.shape, shape)):
            if isinstance(want, int):
                if got != want:
                    raise ValueError(
                        f"tensor '{name}' has size {got} in dimension {dim} "
                        f"but the kernel expects {want} (shape "
                        f"{spec.shape_str()})")
            elif want not in bound:
                bound[want] = got
                origin[want] = name
            elif bound[want] != got:
                raise ValueError(
                    f"tensor '{name}' has {want} = {got} but "
                    f"'{origin[want]}' gave {want} = {bound[want]}")
    for spec in scratch:
        if spec.name not in shapes:
            raise ValueError(f"tensor '{spec.name}' is missing")
        want = scratch_shape(spec, bound)
        got = tuple(int(s) for s in shapes[spec.name])
        if got != want:
            raise ValueError(
                f"tensor '{spec.name}' (a {spec.role} tensor of the kernel) "
                f"has shape {list(got)} but the kernel expects {list(want)} "
                f"({spec.shape_str()} with {_bindings(bound)})")
    return bound


def scratch_shapes(manifest: Manifest,
                   shapes: Mapping[str, Sequence[int]],
                   sizes: Optional[Mapping[str, int]] = None) -> dict:
    """The scratch tensors of ``manifest`` (role in SCRATCH_ROLES) for the
    caller's tensors of ``shapes`` (and ``sizes``): ``{name: (shape, role,
    dtype name)}``, empty for a kernel without any."""
    scratch = [spec for spec in manifest.tensors.values() if spec.scratch]
    if not scratch:
        return {}
    caller = dataclasses.replace(manifest, tensors={
        n: t for n, t in manifest.tensors.items() if not t.scratch})
    symbols = bind_symbols(caller, shapes, sizes)
    return {spec.name: (scratch_shape(spec, symbols), spec.role,
                        spec.dtype.name) for spec in scratch}


def scratch_shape(spec: TensorSpec, symbols: Mapping[str, int]) -> tuple:
    """The shape of scratch tensor ``spec`` for the bound ``symbols``."""
    return tuple(evaluate(e, symbols) for e in spec.shape)


def launch_grid(manifest: Manifest, symbols: Mapping[str, int],
                num_sms: NumSmsSource = None,
                launch: Optional[LaunchSpec] = None) -> tuple[int, int, int]:
    """Evaluates the grid of ``launch`` (default: the manifest's first).
    Raises ValueError when a dimension is outside the driver's limits (at
    least 1; x below 2^31, y and z below 2^16) or is not a multiple of the
    cluster's."""
    step = manifest.steps[0] if launch is None else launch
    grid = tuple(evaluate(e, symbols, num_sms) for e in step.grid)
    what = manifest.name if not manifest.launches else \
        f"{manifest.name}' launch '{step.entry}"
    for axis, (expr, n, high, c) in enumerate(
            zip(step.grid, grid, MAX_GRID, step.cluster)):
        xyz = "xyz"[axis]
        if not 1 <= n <= high:
            raise ValueError(
                f"kernel '{what}': grid {xyz} = {expr} = {n} with "
                f"{_bindings(symbols)} is outside [1, {high}]")
        if n % c:
            raise ValueError(
                f"kernel '{what}': grid {xyz} = {expr} = {n} is not "
                f"a multiple of the cluster's {c}")
    return grid  # type: ignore[return-value]


def _bindings(symbols: Mapping[str, int]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in symbols.items()) or "no sizes"
