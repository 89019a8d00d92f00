"""Regenerates the committed ``*_pb2.py`` and ``*_pb2_grpc.py`` modules from the ``.proto`` files.

Run ``python -m tideflow.protos.generate`` after editing a ``.proto``; it needs the pinned generator,
grpcio-tools==1.85.1 (``pip install -e .[protos]``), and refuses any other version.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib import metadata
from pathlib import Path

PINNED_GRPCIO_TOOLS = "1.85.1"

PROTO_DIR = Path(__file__).resolve().parent
# Protos import each other as "tideflow/protos/x.proto" from the repository root, so protoc
# emits absolute imports ("from tideflow.protos import x_pb2") that work once installed.
SOURCE_ROOT = PROTO_DIR.parent.parent
PACKAGE_PATH = Path("tideflow", "protos")

# The only files that declare gRPC services; only they get a *_pb2_grpc.py module.
SERVICE_PROTOS = ("master_service.proto", "tideflow_transfer.proto", "worker_service.proto")


def proto_files() -> list[str]:
    """Names of every ``.proto`` file of the package, sorted."""
    return sorted(p.name for p in PROTO_DIR.glob("*.proto"))


def expected_outputs() -> list[str]:
    """Names of the modules ``generate`` writes, sorted."""
    names = [n[: -len(".proto")] + "_pb2.py" for n in proto_files()]
    names += [n[: -len(".proto")] + "_pb2_grpc.py" for n in SERVICE_PROTOS]
    return sorted(names)


def check_generator() -> None:
    """Raises RuntimeError unless the pinned grpcio-tools is installed."""
    try:
        installed = metadata.version("grpcio-tools")
    except metadata.PackageNotFoundError:
        raise RuntimeError(
            f"grpcio-tools is not installed; regenerating protos needs "
            f"grpcio-tools=={PINNED_GRPCIO_TOOLS} (pip install 'grpcio-tools=={PINNED_GRPCIO_TOOLS}')"
        ) from None
    if installed != PINNED_GRPCIO_TOOLS:
        raise RuntimeError(
            f"grpcio-tools {installed} is installed but the committed protos are generated with "
            f"grpcio-tools=={PINNED_GRPCIO_TOOLS}; install that exact version to regenerate"
        )


def _well_known_include() -> Path:
    import grpc_tools

    return Path(grpc_tools.__file__).resolve().parent / "_proto"


def _protoc(args: list[str]) -> None:
    cmd = [sys.executable, "-m", "grpc_tools.protoc", *args]
    result = subprocess.run(cmd, cwd=SOURCE_ROOT, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"protoc failed ({result.returncode}):\n{result.stderr}{result.stdout}")


def generate(out_root: Path) -> Path:
    """Writes the generated modules under ``out_root/tideflow/protos/``; returns that folder.

    Files in that folder named like generated modules but no longer produced are deleted.
    """
    check_generator()
    out_root = Path(out_root).resolve()
    out_dir = out_root / PACKAGE_PATH
    out_dir.mkdir(parents=True, exist_ok=True)
    includes = [f"-I{SOURCE_ROOT}", f"-I{_well_known_include()}"]
    sources = [str(PACKAGE_PATH / name) for name in proto_files()]
    _protoc([*includes, f"--python_out={out_root}", *sources])
    services = [str(PACKAGE_PATH / name) for name in SERVICE_PROTOS]
    _protoc([*includes, f"--grpc_python_out={out_root}", *services])
    keep = set(expected_outputs())
    for path in [*out_dir.glob("*_pb2.py"), *out_dir.glob("*_pb2_grpc.py")]:
        if path.name not in keep:
            path.unlink()
    return out_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=SOURCE_ROOT,
        help="root to write tideflow/protos/*_pb2*.py under (default: this source tree)",
    )
    args = parser.parse_args(argv)
    try:
        out_dir = generate(args.out)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {len(expected_outputs())} modules to {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
