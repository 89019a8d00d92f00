"""``tf.train.ClusterSpec``: the jobs of a cluster and the address of each task, convertible to
and from the ``ClusterDef`` proto; ``ServerDef`` construction and ``TF_CONFIG`` parsing."""

import collections
import json

from tideflow.protos.cluster_pb2 import ClusterDef, JobDef
from tideflow.protos.tensorflow_server_pb2 import ServerDef

__all__ = [
    "ClusterDef", "ClusterSpec", "JobDef", "ServerDef", "TaskConfig", "make_server_def",
    "parse_tf_config", "tf_config_from_env",
]


def _as_text(value, what):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if not isinstance(value, str):
        raise TypeError(f"{what} {value!r} must be bytes or unicode")
    return value


def _task_index(index):
    # as the proto map's key check in TF 1.15 (bool counts as an int there)
    if not isinstance(index, int):
        raise TypeError(f"{index!r} has type {type(index).__name__}, but expected one of: int")
    return int(index)


class ClusterSpec:
    """A cluster as a set of jobs, each a set of tasks with a network address.

    ``cluster`` is a dict from job name to a list of ``"host:port"`` addresses (task ``i`` is
    the ``i``-th entry) or to a dict from task index to address (sparse jobs), a ``ClusterDef``
    proto, or another ``ClusterSpec``. As TF 1.15, a dict's job names, indices and addresses
    are kept as given (bytes stay bytes in ``jobs`` and ``as_dict()``); the proto has them as
    text.
    """

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    self._spec[job_name] = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    self._spec[job_name] = dict(tasks)
                else:
                    raise TypeError(
                        f"The tasks for job {job_name!r} must be a list or a dictionary from "
                        "integers to strings."
                    )
            self._cluster_def = self._make_cluster_def()
        elif isinstance(cluster, (ClusterDef, ClusterSpec)):
            if isinstance(cluster, ClusterDef):
                self._cluster_def = cluster  # as TF: the proto given, not a copy
            else:
                self._cluster_def = ClusterDef()
                self._cluster_def.MergeFrom(cluster.as_cluster_def())
            # a job named twice in the proto: the last one wins, as TF
            self._spec = {job_def.name: dict(job_def.tasks.items())
                          for job_def in self._cluster_def.job}
        else:
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more job names to lists of "
                "network addresses, or a `ClusterDef` protocol buffer"
            )

    def _make_cluster_def(self):
        cluster_def = ClusterDef()
        # sorted by job and by task, so equal clusters give byte-identical protos
        for job_name, tasks in sorted(self._spec.items()):
            job_def = cluster_def.job.add()
            job_def.name = _as_text(job_name, "Job name")
            for i, address in sorted(tasks.items()):
                job_def.tasks[_task_index(i)] = _as_text(address, "Task address")
        return cluster_def

    def __bool__(self):
        return bool(self._spec)

    # as TF 1.15: compared as its {job: {index: address}} dict, so a spec equals another spec
    # with the same tasks, or such a dict (not the list form ``ClusterSpec`` takes)
    def __eq__(self, other):
        return self._spec == other

    def __ne__(self, other):
        return self._spec != other

    __hash__ = None

    def __str__(self):
        d = self.as_dict()
        items = ", ".join(f"{k!r}: {d[k]!r}" for k in sorted(d))
        return "ClusterSpec({" + items + "})"

    def as_dict(self):
        """The cluster as a dict: a job with dense task indices maps to a list of addresses,
        a sparse one to a dict from task index to address."""
        out = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                out[job] = {}
            elif indices[-1] + 1 == len(indices):
                out[job] = self.job_tasks(job)
            else:
                out[job] = {i: self._spec[job][i] for i in indices}
        return out

    def as_cluster_def(self):
        """The ``ClusterDef`` proto of this cluster (jobs and tasks sorted)."""
        return self._cluster_def

    @property
    def jobs(self):
        """The job names, in the order they were given."""
        return list(self._spec)

    def _job(self, job_name):
        try:
            return self._spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name):
        """The number of tasks in job ``job_name``."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The sorted task indices of job ``job_name``."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """The address of task ``task_index`` of job ``job_name``."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except (KeyError, TypeError):
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name):
        """The addresses of job ``job_name`` as a list indexed by task (None where a sparse job
        has no task)."""
        job = self._job(job_name)
        if not job:
            return []
        out = [None] * (max(job) + 1)
        for i, address in job.items():
            out[i] = address
        return out


def make_server_def(server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                    config=None):
    """The ``ServerDef`` a ``tf.train.Server`` is built from: a copy of a given ServerDef with
    the given overrides, or one made from anything ``ClusterSpec`` takes (the job and task may be
    left out when the cluster leaves no choice)."""
    if isinstance(server_or_cluster_def, ServerDef):
        server_def = ServerDef()
        server_def.MergeFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
        if config is not None:
            server_def.default_session_config.MergeFrom(config)
        return server_def
    try:
        cluster = ClusterSpec(server_or_cluster_def)
    except TypeError:
        raise TypeError(
            "Could not convert `server_or_cluster_def` to a `tf.train.ServerDef` or "
            "`tf.train.ClusterSpec`."
        ) from None
    if job_name is None:
        if len(cluster.jobs) != 1:
            raise ValueError("Must specify an explicit `job_name`.")
        job_name = cluster.jobs[0]
    if task_index is None:
        indices = cluster.task_indices(job_name)
        if len(indices) != 1:
            raise ValueError("Must specify an explicit `task_index`.")
        task_index = indices[0]
    server_def = ServerDef(cluster=cluster.as_cluster_def(), job_name=job_name,
                           task_index=int(task_index), protocol=protocol or "grpc")
    if config is not None:
        server_def.default_session_config.MergeFrom(config)
    return server_def


class TaskConfig(collections.namedtuple("TaskConfig",
                                        ["cluster", "task_type", "task_index", "environment"])):
    """A parsed ``TF_CONFIG``: the ``ClusterSpec``, this process's job and task index (None
    when the value names no task) and the optional ``environment`` string."""

    __slots__ = ()

    @property
    def is_chief(self):
        """True for the chief: task 0 of job "chief", or worker 0 when there is no chief job
        (the "master" job of older programs counts as the chief job)."""
        if self.task_type is None:
            return True
        jobs = self.cluster.jobs if self.cluster else []
        for chief_job in ("chief", "master"):
            if chief_job in jobs:
                return self.task_type == chief_job and self.task_index == 0
        return self.task_type == "worker" and self.task_index == 0

    @property
    def master(self):
        """``grpc://<address>`` of this task, or "" when there is no cluster."""
        if not self.cluster or self.task_type is None:
            return ""
        return "grpc://" + self.cluster.task_address(self.task_type, self.task_index)


def parse_tf_config(value):
    """Parses a ``TF_CONFIG`` value (JSON text or an already decoded dict):
    ``{"cluster": {job: [addresses]}, "task": {"type": job, "index": i}}``."""
    if isinstance(value, (bytes, str)):
        value = json.loads(value)  # as TF: bad JSON is json's own error (a ValueError)
    if not isinstance(value, dict):
        raise ValueError(  # noqa: TRY004 - a bad setting, not a bad argument
            f"TF_CONFIG must be a JSON object, got {type(value).__name__}")
    cluster = ClusterSpec(value.get("cluster") or {})
    task = value.get("task") or {}
    if not isinstance(task, dict):
        raise ValueError(f"TF_CONFIG 'task' must be an object, got {task!r}")  # noqa: TRY004
    task_type = task.get("type")
    task_index = task.get("index")
    if task_type is not None:
        task_index = int(task_index or 0)
        if cluster:
            cluster.task_address(task_type, task_index)  # ValueError for an unknown task
    elif task_index is not None:
        raise ValueError("TF_CONFIG 'task' has an 'index' but no 'type'")
    return TaskConfig(cluster, task_type, task_index, value.get("environment"))


def tf_config_from_env():
    """The ``TaskConfig`` of the ``TF_CONFIG`` environment variable, or None when unset."""
    from tideflow import env

    value = env.tf_config()
    return None if value is None else parse_tf_config(value)
