"""``tf.sysconfig``: build information. tideflow is pure Python with no C++ library, so the
include and library directories are the package's own and there is nothing to link against."""

import os as _os

CXX11_ABI_FLAG = 1
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0

_PKG = _os.path.dirname(_os.path.abspath(__file__))


def get_include():
    """The directory holding tideflow's (header-less) package files."""
    return _os.path.join(_PKG, "include")


def get_lib():
    """The directory of the tideflow package."""
    return _PKG


def get_compile_flags():
    return [f"-I{get_include()}", f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}",
            "-DEIGEN_MAX_ALIGN_BYTES=64"]


def get_link_flags():
    return [f"-L{get_lib()}"]


def get_build_info():
    """As TF: whether this build supports CUDA/ROCm/TensorRT (tideflow's GPU path is CuPy)."""
    return {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False}
