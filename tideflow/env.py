"""The one place tideflow reads environment variables; everything else asks this module."""

import os


def malloc_tuning():
    """TIDEFLOW_MALLOC_TUNING=0 leaves the C allocator's settings alone (default: tune them)."""
    return os.environ.get("TIDEFLOW_MALLOC_TUNING", "1") not in ("0", "false", "no")


def numpy_printing():
    """TIDEFLOW_NUMPY_PRINTING=numpy keeps NumPy 2's scalar reprs (default "tf1": scalars print
    as TF 1.x programs show them, see tideflow/legacy_names.py)."""
    return os.environ.get("TIDEFLOW_NUMPY_PRINTING", "tf1").strip().lower()


def legacy_names():
    """TIDEFLOW_LEGACY_NAMES=0 leaves out the NumPy 1.x and Python 3.7 names later versions
    removed (``np.float``, ``time.clock``, ...; default: defined, see tideflow/legacy_names.py)."""
    return os.environ.get("TIDEFLOW_LEGACY_NAMES", "1").strip().lower() not in ("0", "false", "no")


def tf_config():
    """The raw ``TF_CONFIG`` value (a JSON cluster/task description), or None when unset."""
    value = os.environ.get("TF_CONFIG")
    return value if value and value.strip() else None


def cluster_task():
    """``(TIDEFLOW_JOB, TIDEFLOW_TASK)`` as set by ``tideflow launch`` (None for any unset)."""
    job = os.environ.get("TIDEFLOW_JOB") or None
    task = os.environ.get("TIDEFLOW_TASK")
    return job, (int(task) if task not in (None, "") else None)


def placer():
    """TIDEFLOW_PLACER=cost places ops with the cost-model placer (paper §3.2.1); the default
    ("default") follows TF's placement rules."""
    return os.environ.get("TIDEFLOW_PLACER", "default").strip().lower()


def uninitialized_variable_reporting_device():
    """TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING: the device of
    report_uninitialized_variables' ops (default "/cpu:0", as TF)."""
    return os.environ.get("TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING", "/cpu:0")


def grpc_security():
    """The distributed runtime's security settings: TIDEFLOW_GRPC_TOKEN (a shared secret every
    call must carry), TIDEFLOW_GRPC_CERT / TIDEFLOW_GRPC_KEY (the server's TLS certificate and
    key, PEM files) and TIDEFLOW_GRPC_CA (the CA certificate clients trust); unset ones are
    None."""
    names = {"token": "TIDEFLOW_GRPC_TOKEN", "cert_file": "TIDEFLOW_GRPC_CERT",
             "key_file": "TIDEFLOW_GRPC_KEY", "ca_file": "TIDEFLOW_GRPC_CA"}
    return {k: (os.environ.get(v) or None) for k, v in names.items()}


def slurm():
    """The Slurm (or Open MPI) task variables SlurmClusterResolver reads: ``rank``,
    ``num_tasks`` (None when unset), ``tasks_per_node`` (SLURM_NTASKS_PER_NODE or None) and
    ``nodelist`` (SLURM_JOB_NODELIST, else SLURM_NODELIST, or None)."""
    e = os.environ
    if "OMPI_COMM_WORLD_RANK" in e:
        rank, num_tasks = e["OMPI_COMM_WORLD_RANK"], e.get("OMPI_COMM_WORLD_SIZE")
    else:
        rank, num_tasks = e.get("SLURM_PROCID"), e.get("SLURM_NTASKS")
    per_node = e.get("SLURM_NTASKS_PER_NODE")
    return {"rank": rank, "num_tasks": num_tasks, "tasks_per_node": per_node,
            "nodelist": e.get("SLURM_JOB_NODELIST") or e.get("SLURM_NODELIST")}


def set_cuda_visible_devices(value):
    """Sets CUDA_VISIBLE_DEVICES for this process (SlurmClusterResolver's GPU allotment)."""
    os.environ["CUDA_VISIBLE_DEVICES"] = value
