"""TF 1.15's CPU kernels by dtype (its XLA_CPU device's among them), for the ops whose op def
admits dtypes that no kernel takes: such an op fails when a step that runs it is set up, with
TF's "No OpKernel was registered" error, where NumPy would quietly compute it."""

from tideflow.framework import dtypes, errors

# The 16 dtypes a program feeds and fetches; a set of them reads as its names, or as "all but"
# the names left out.
_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
           "bfloat16", "float32", "float64", "complex64", "complex128", "bool", "string")

# op type -> its kernels: (device type, {type attr: the dtypes it takes}); an attr a kernel
# leaves out it takes in every dtype the op def allows. Measured from TF 1.15's kernel
# registry (CPU and XLA_CPU devices, after a session had started); a kernel a TF graph would
# place on the XLA_CPU device may still fail as XLA compiles it (Acos of an int32), which this
# table does not say.
_KERNELS = {
    "AddManySparseToTensorsMap": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "ApplyAdaMax": (
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "ApplyAdadelta": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyAdagrad": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyAdagradDA": (
        ("CPU", {"T": "float32 float64"}),
    ),
    "ApplyAdagradV2": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyAdam": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyAddSign": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyCenteredRMSProp": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyFtrl": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyFtrlV2": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyGradientDescent": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyMomentum": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyPowerSign": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApplyProximalAdagrad": (
        ("CPU", {"T": "float32 float64"}),
    ),
    "ApplyProximalGradientDescent": (
        ("CPU", {"T": "float32 float64"}),
    ),
    "ApplyRMSProp": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "ApproximateEqual": (
        ("XLA_CPU", {"T": "all but int16 uint16 bool string"}),
        ("CPU", {"T": "float32 float64"}),
    ),
    "Assign": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "AssignAdd": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "AssignSub": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "BarrierInsertMany": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "BatchNormWithGlobalNormalization": (
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "BatchNormWithGlobalNormalizationGrad": (
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "BatchToSpace": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "BatchToSpaceND": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "BesselI0e": (
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "BesselI1e": (
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "ConditionalAccumulator": (
        ("CPU", {"dtype": "float16 float32 float64"}),
    ),
    "Cumprod": (
        ("XLA_CPU", {"T": "int32 float16 bfloat16 float32"}),
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "Cumsum": (
        ("XLA_CPU", {"T": "int32 float16 bfloat16 float32"}),
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "DecodePaddedRaw": (
        ("CPU", {"out_type": "int8 int16 int32 int64 uint8 uint16 float32 float64"}),
    ),
    "Dilation2D": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "Dilation2DBackpropFilter": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "Dilation2DBackpropInput": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "DynamicPartition": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "EditDistance": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "Einsum": (
        ("CPU", {"T": "float32 float64 complex64 complex128"}),
    ),
    "Empty": (
        ("XLA_CPU", {"dtype": "all but int16 uint16 string"}),
        ("CPU", {"dtype": "int32 int64 uint8 float16 float32 float64 bool string"}),
    ),
    "EuclideanNorm": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "ExtractVolumePatches": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "Greater": (
        ("XLA_CPU", {"T": "all but int16 uint16 complex64 complex128 bool string"}),
        ("CPU", {"T": "all but uint16 uint32 uint64 complex64 complex128 bool string"}),
    ),
    "GreaterEqual": (
        ("XLA_CPU", {"T": "all but int16 uint16 complex64 complex128 bool string"}),
        ("CPU", {"T": "all but uint16 uint32 uint64 complex64 complex128 bool string"}),
    ),
    "HistogramSummary": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "InvGrad": (
        ("CPU", {"T": "float16 float32 float64 complex64 complex128"}),
    ),
    "Less": (
        ("XLA_CPU", {"T": "all but int16 uint16 complex64 complex128 bool string"}),
        ("CPU", {"T": "all but uint16 uint32 uint64 complex64 complex128 bool string"}),
    ),
    "LessEqual": (
        ("XLA_CPU", {"T": "all but int16 uint16 complex64 complex128 bool string"}),
        ("CPU", {"T": "all but uint16 uint32 uint64 complex64 complex128 bool string"}),
    ),
    "ListDiff": (
        ("XLA_CPU", {"T": "int32 int64"}),
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool"}),
    ),
    "LogMatrixDeterminant": (
        ("CPU", {"T": "float32 float64 complex64 complex128"}),
    ),
    "LowerBound": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "Lu": (
        ("CPU", {"T": "float32 float64 complex64 complex128"}),
    ),
    "MatrixBandPart": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "MatrixDeterminant": (
        ("CPU", {"T": "float32 float64 complex64 complex128"}),
    ),
    "MatrixDiag": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "MatrixDiagPart": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "MatrixDiagPartV2": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "MatrixDiagV2": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "MatrixExponential": (
        ("CPU", {"T": "float32 float64 complex64 complex128"}),
    ),
    "MatrixSetDiag": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "MatrixSetDiagV2": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "MatrixSolve": (
        ("CPU", {"T": "float32 float64 complex64 complex128"}),
    ),
    "MatrixSquareRoot": (
        ("CPU", {"T": "float32 float64 complex64 complex128"}),
    ),
    "MaxPool3DGradGrad": (
        ("XLA_CPU", {"T": "float32"}),
        ("CPU", {"T": "float32"}),
    ),
    "MaxPoolGradGrad": (
        ("XLA_CPU", {"T": "float32"}),
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "MaxPoolGradGradV2": (
        ("XLA_CPU", {"T": "float32"}),
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "MaxPoolGradWithArgmax": (
        ("CPU", {
            "T": "all but uint32 uint64 complex64 complex128 bool string",
            "Targmax": "int64",
        }),
    ),
    "MaxPoolWithArgmax": (
        ("CPU", {
            "T": "all but uint32 uint64 complex64 complex128 bool string",
            "Targmax": "int64",
        }),
    ),
    "MirrorPadGrad": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "Multinomial": (
        ("XLA_CPU", {"T": "all but int16 uint16 complex64 complex128 bool string"}),
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "ParallelConcat": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "PopulationCount": (
        ("CPU", {"T": "int8 int16 int32 int64 uint8 uint16"}),
    ),
    "RealDiv": (
        ("XLA_CPU", {"T": "all but int16 uint16 uint32 uint64 bool string"}),
        ("CPU", {"T": "float16 bfloat16 float32 float64 complex64 complex128"}),
    ),
    "ResourceConditionalAccumulator": (
        ("CPU", {"dtype": "float16 float32 float64"}),
    ),
    "ReverseSequence": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "ScalarSummary": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "ScatterAdd": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "ScatterDiv": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "ScatterMul": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "ScatterNdAdd": (
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "ScatterNdNonAliasingAdd": (
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "ScatterNdSub": (
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "ScatterNdUpdate": (
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "ScatterSub": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "ScatterUpdate": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "SegmentMax": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SegmentMean": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "SegmentMin": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SegmentProd": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "SegmentSum": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "SerializeManySparse": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "SerializeTensor": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "Snapshot": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
    "SpaceToBatch": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SpaceToBatchND": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SparseAdd": (
        ("CPU", {"T": "int8 int16 int32 int64 float32 float64 complex64 complex128"}),
    ),
    "SparseAddGrad": (
        ("CPU", {"T": "int8 int16 int32 int64 float32 float64 complex64 complex128"}),
    ),
    "SparseApplyAdadelta": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "SparseApplyAdagrad": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "SparseApplyAdagradDA": (
        ("CPU", {"T": "float32 float64"}),
    ),
    "SparseApplyAdagradV2": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "SparseApplyCenteredRMSProp": (
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "SparseApplyFtrl": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "SparseApplyFtrlV2": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "SparseApplyMomentum": (
        ("CPU", {"T": "float16 bfloat16 float32 float64"}),
    ),
    "SparseApplyProximalAdagrad": (
        ("CPU", {"T": "float32 float64"}),
    ),
    "SparseApplyProximalGradientDescent": (
        ("CPU", {"T": "float32 float64"}),
    ),
    "SparseApplyRMSProp": (
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "SparseConcat": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "SparseConditionalAccumulator": (
        ("CPU", {"dtype": "float16 float32 float64"}),
    ),
    "SparseCross": (
        ("CPU", {"internal_type": "int64 string", "out_type": "int64 string"}),
    ),
    "SparseDenseCwiseAdd": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SparseDenseCwiseDiv": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SparseDenseCwiseMul": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SparseFillEmptyRows": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "SparseReduceMax": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SparseReduceMaxSparse": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SparseReduceSum": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "SparseReduceSumSparse": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "SparseReorder": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "SparseSegmentMean": (
        ("CPU", {"Tidx": "int32"}),
    ),
    "SparseSegmentMeanGrad": (
        ("CPU", {"Tidx": "int32"}),
    ),
    "SparseSegmentMeanWithNumSegments": (
        ("CPU", {"Tidx": "int32"}),
    ),
    "SparseSegmentSqrtN": (
        ("CPU", {"Tidx": "int32"}),
    ),
    "SparseSegmentSqrtNGrad": (
        ("CPU", {"Tidx": "int32"}),
    ),
    "SparseSegmentSqrtNWithNumSegments": (
        ("CPU", {"Tidx": "int32"}),
    ),
    "SparseSegmentSum": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string", "Tidx": "int32"}),
    ),
    "SparseSegmentSumWithNumSegments": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string", "Tidx": "int32"}),
    ),
    "SparseSlice": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "SparseSliceGrad": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "SparseSparseMaximum": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SparseSparseMinimum": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "SparseSplit": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "SparseTensorDenseAdd": (
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "SparseTensorDenseMatMul": (
        ("CPU", {"T": "int32 bfloat16 float32 float64 complex64 complex128"}),
    ),
    "SparseTensorSliceDataset": (
        ("CPU", {"Tvalues": "all but uint32 uint64"}),
    ),
    "StatelessMultinomial": (
        ("XLA_CPU", {"T": "bfloat16 float32", "Tseed": "int32"}),
        ("CPU", {"T": "float16 float32 float64"}),
    ),
    "TakeManySparseFromTensorsMap": (
        ("CPU", {"dtype": "all but uint32 uint64"}),
    ),
    "TensorListConcatV2": (
        ("CPU", {"element_dtype": "all but uint32 uint64"}),
    ),
    "TensorListScatterIntoExistingList": (
        ("CPU", {"element_dtype": "all but uint32 uint64"}),
    ),
    "TensorListSplit": (
        ("CPU", {"element_dtype": "all but uint32 uint64"}),
    ),
    "TensorScatterAdd": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "TensorScatterSub": (
        ("XLA_CPU", {"T": "all but int16 uint16 string"}),
        ("CPU", {"T": "all but uint32 uint64 bool string"}),
    ),
    "TensorSummary": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "TensorSummaryV2": (
        ("CPU", {"T": "all but uint32 uint64"}),
    ),
    "TopK": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "TopKV2": (
        ("XLA_CPU", {"T": "int32 uint32 bfloat16 float32"}),
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "Unique": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128"}),
    ),
    "UniqueV2": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128"}),
    ),
    "UniqueWithCounts": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128"}),
    ),
    "UniqueWithCountsV2": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128"}),
    ),
    "UpperBound": (
        ("CPU", {"T": "all but uint32 uint64 complex64 complex128 bool string"}),
    ),
    "Where": (
        ("CPU", {"T": "all but uint32 uint64 string"}),
    ),
}


def _dtype_set(spec):
    if spec.startswith("all but "):
        return frozenset(_DTYPES) - frozenset(spec[8:].split())
    return frozenset(spec.split())


_DTYPE_SET = frozenset(_DTYPES)
_PARSED = {}


def _kernels(op_type):
    parsed = _PARSED.get(op_type)
    if parsed is None:
        parsed = _PARSED[op_type] = tuple(
            (device, {a: _dtype_set(s) for a, s in cons.items()})
            for device, cons in _KERNELS[op_type])
    return parsed


def _enum_name(dtype):
    """TF's DataType name: DT_FLOAT for float32, DT_HALF for float16."""
    enum = dtypes.as_dtype(dtype).as_datatype_enum
    return next(n for n in dir(dtypes) if n.startswith("DT_") and getattr(dtypes, n) == enum)


def _attr_text(value):
    if isinstance(value, dtypes.DType):
        return _enum_name(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (bytes, str)):
        return '"' + (value.decode("utf-8", "replace") if isinstance(value, bytes) else value) \
            + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"
    return str(value)


# op type -> {dtype: (error, message)} for the kernels TF 1.15 has only on its XLA_CPU device
# whose compilation fails for that dtype (measured): the step fails with the compiler's words
_XLA_INT = "Invalid cast from floating point type to {} in ConstantR0WithType."
_XLA_COS = "Expected element type in shape to be floating or complex for cosine operation; got {}."
_XLA_ROUND = "Operands to RoundToEven must be real-valued floating-point, but got {}"
_XLA_ATAN2 = ("Unimplemented", "binary complex op 'atan2'")
_XLA_FAILS = {
    "Tan": {"int32": ("Invalid argument", _XLA_COS.format("S32")),
            "int64": ("Invalid argument", _XLA_COS.format("S64"))},
    "Round": {"complex64": ("Invalid argument", _XLA_ROUND.format("C64")),
              "complex128": ("Invalid argument", _XLA_ROUND.format("C128"))},
}
for _op in ("Asin", "Acos", "Atan", "Reciprocal"):
    _XLA_FAILS.setdefault(_op, {}).update(
        {"int32": ("Invalid argument", _XLA_INT.format("S32")),
         "int64": ("Invalid argument", _XLA_INT.format("S64"))})
for _op in ("Asin", "Acos", "Atan"):
    _XLA_FAILS[_op].update({"complex64": _XLA_ATAN2, "complex128": _XLA_ATAN2})
_XLA_ERRORS = {"Invalid argument": errors.InvalidArgumentError,
               "Unimplemented": errors.UnimplementedError}


def _xla_compile_failure(op, fails):
    t = getattr(op._attrs.get("T"), "name", None)
    if t not in fails:
        return
    code, msg = fails[t]
    # TF's words: the compile error in the XLA partition and the Recv that waited on it
    node = f"\t [[node {op.name} (defined at {op._user_location}) ]]\n\t [[{op.name}]]"
    raise _XLA_ERRORS[code](
        None, op, f"2 root error(s) found.\n  (0) {code}: {msg}\n{node}\n  (1) {code}: "
        f"{msg}\n{node}\n0 successful operations.\n0 derived errors ignored.")


def check_cpu_kernel(op):
    """Raises TF 1.15's InvalidArgumentError when no CPU (or XLA_CPU) kernel takes ``op``'s
    dtypes (or the XLA_CPU kernel that does fails to compile)."""
    fails = _XLA_FAILS.get(op._type)
    if fails is not None:
        _xla_compile_failure(op, fails)
    if op._type not in _KERNELS:
        return
    attrs = op._attrs
    kernels = _kernels(op._type)
    for _, cons in kernels:
        for a in cons:
            if getattr(attrs.get(a), "name", None) not in _DTYPE_SET:
                return  # (a quantized or other type: the table measured only these 16)
    for _, cons in kernels:
        if all(getattr(attrs.get(a), "name", None) in allowed for a, allowed in cons.items()):
            return
    shown = ", ".join(f"{k}={_attr_text(v)}" for k, v in attrs.items()
                      if not k.startswith("_"))
    lines = [(f"No OpKernel was registered to support Op '{op._type}' used by node {op.name} "
              f"(defined at {op._user_location}) with these attrs: [{shown}]"),
             "Registered devices: [CPU, XLA_CPU]", "Registered kernels:"]
    for device, cons in kernels:
        where = "; ".join(f"{a} in [" + ", ".join(
            _enum_name(n) for n in _DTYPES if n in allowed) + "]" for a, allowed in cons.items())
        lines.append(f"  device='{device}'" + (f"; {where}" if where else ""))
    raise errors.InvalidArgumentError(None, None, "\n".join(lines) + "\n")
