"""``tf.distribute.cluster_resolver``: the cluster a program runs in, from ``TF_CONFIG`` or
given directly."""

import json as _json

from tideflow import env as _env


class ClusterResolver:
    """The base class: ``cluster_spec()``, ``master()``, the task and the devices."""

    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    def cluster_spec(self):
        raise NotImplementedError()

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        raise NotImplementedError()

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {}


def _format_master(address, rpc_layer):
    return f"{rpc_layer}://{address}" if rpc_layer else address


class _TaskMaster:
    """``master()`` as the discovering resolvers (Slurm, Kubernetes, GCE) answer it: the
    address of the given task, else of this resolver's own task, else ""."""

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is not None and task_id is not None:
            return _format_master(self.cluster_spec().task_address(task_type, task_id),
                                  rpc_layer or self.rpc_layer)
        return ""


class SimpleClusterResolver(ClusterResolver):
    """A cluster given as a ``ClusterSpec`` (and the task, master and RPC layer)."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="",
                 num_accelerators=None, rpc_layer=None):
        from tideflow.distributed.cluster import ClusterSpec

        self._cluster_spec = ClusterSpec(cluster_spec) if not isinstance(
            cluster_spec, ClusterSpec) else cluster_spec
        self._master = master
        self.task_type, self.task_id = task_type, task_id
        self.environment = environment
        self._num_accelerators = num_accelerators or {}
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The given master, or the address of ``task_type``/``task_id`` (ValueError for a
        task the cluster lacks), with ``rpc_layer://`` when there is an RPC layer."""
        if task_type is not None and task_id is not None:
            address = self._cluster_spec.task_address(task_type, task_id)
        else:
            address = self._master
        return _format_master(address, rpc_layer or self.rpc_layer)

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return dict(self._num_accelerators)


class TFConfigClusterResolver(ClusterResolver):
    """The cluster, task and RPC layer of the ``TF_CONFIG`` environment variable (JSON); an
    empty cluster when it is unset."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        config = self._config()
        task = config.get("task", {})
        self.task_type = task_type if task_type is not None else task.get("type")
        self.task_id = task_id if task_id is not None else task.get("index")
        self.rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self.environment = environment if environment is not None else config.get(
            "environment", "")

    @staticmethod
    def _config():
        raw = _env.tf_config()
        if not raw:
            return {}
        return _json.loads(raw)  # as TF: bad JSON is json's own error (a ValueError)

    def cluster_spec(self):
        from tideflow.distributed.cluster import ClusterSpec

        return ClusterSpec(self._config().get("cluster", {}))

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """As TF 1.15's: ``session_master`` of ``TF_CONFIG`` when set; "" for a cluster of at
        most one task; else the task's address (ValueError for a task the cluster lacks) with
        this resolver's RPC layer (the ``rpc_layer`` argument is not used, as there)."""
        config = self._config()
        if config.get("session_master") is not None:
            return config["session_master"]
        spec = self.cluster_spec()
        if not spec.jobs or (len(spec.jobs) == 1 and len(spec.job_tasks(spec.jobs[0])) == 1):
            return ""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        return _format_master(spec.task_address(task_type, task_id), self.rpc_layer)


class UnionClusterResolver(ClusterResolver):
    """The union of several resolvers' clusters (``UnionResolver(r1, r2, ...)``); the task,
    RPC layer, environment and master are the first resolver's unless given here."""

    def __init__(self, *args, **kwargs):
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        for r in args:
            if not isinstance(r, ClusterResolver):
                raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._cluster_resolvers = args

    def cluster_spec(self):
        """The jobs of every resolver: a job's task lists are concatenated in order, unless
        one of them is sparse (a dict), when the tasks are merged by index (KeyError for an
        index given twice)."""
        from tideflow.distributed.cluster import ClusterSpec

        dicts = [r.cluster_spec().as_dict() for r in self._cluster_resolvers]
        sparse = {job for d in dicts for job, tasks in d.items() if isinstance(tasks, dict)}
        merged = {}
        for d in dicts:
            for job, tasks in d.items():
                if job not in sparse:
                    merged.setdefault(job, []).extend(tasks)
                    continue
                tasks = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                have = merged.setdefault(job, {})
                both = set(tasks) & set(have)
                if both:
                    raise KeyError(
                        f"Duplicate keys detected when merging two ClusterSpecs: {both!r}")
                have.update(tasks)
        return ClusterSpec(merged)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            return _format_master(self.cluster_spec().task_address(task_type, task_id),
                                  rpc_layer or self._rpc_layer)
        return self._cluster_resolvers[0].master(rpc_layer=rpc_layer)

    @property
    def task_type(self):
        return self._task_type or self._cluster_resolvers[0].task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return self._task_id or self._cluster_resolvers[0].task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        return self._rpc_layer or self._cluster_resolvers[0].rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    @property
    def environment(self):
        return self._cluster_resolvers[0].environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return self._cluster_resolvers[0].num_accelerators(task_type, task_id, config_proto)


class TPUClusterResolver(ClusterResolver):
    """A Cloud TPU's cluster. No TPU can be reached from tideflow (there is no TPU runtime, and
    TPUEstimator runs on the CPU), so making one raises ValueError naming the TPU; programs
    that build it only for ``--use_tpu --tpu_name=...`` (BERT) run with ``use_tpu=False``."""

    def __init__(self, tpu=None, zone=None, project=None, job_name="worker",
                 coordinator_name=None, coordinator_address=None, credentials="default",
                 service=None, discovery_url=None):
        if isinstance(tpu, (list, tuple)):
            tpu = ",".join(map(str, tpu))
        if not tpu:
            raise ValueError("Please provide a TPU Name to connect to.")
        raise ValueError(f"TPUClusterResolver: cannot connect to TPU {tpu!r} (zone={zone!r}, "
                         f"project={project!r}): tideflow has no TPU runtime; run without a "
                         "TPU (use_tpu=False), TPUEstimator then trains on the CPU")


def _expand_hostlist(nodelist):
    """Slurm's compressed host list (``node[01-03,7],gpu5``) as host names, in order."""
    hosts, part, depth = [], "", 0
    for ch in nodelist + ",":
        if ch == "," and depth == 0:
            if part:
                hosts.extend(_expand_host(part))
            part = ""
            continue
        depth += (ch == "[") - (ch == "]")
        part += ch
    return hosts


def _expand_host(pattern):
    if "[" not in pattern:
        return [pattern]
    head, _, rest = pattern.partition("[")
    ranges, _, tail = rest.partition("]")
    out = []
    for r in ranges.split(","):
        lo, _, hi = r.partition("-")
        numbers = [lo] if not hi else [str(i).zfill(len(lo)) for i in range(int(lo), int(hi) + 1)]
        out.extend(h + t for h in (head + n for n in numbers) for t in _expand_host(tail))
    return out


class SlurmClusterResolver(_TaskMaster, ClusterResolver):
    """The cluster of a Slurm job step (or an Open MPI run): task ``rank`` of the step's
    ``num_tasks`` (SLURM_PROCID/SLURM_NTASKS, or OMPI_COMM_WORLD_RANK/_SIZE) is given, in
    sorted job-name order, to the jobs of ``jobs`` ({job: number of tasks}); each node's
    tasks listen on ports from ``port_base`` and get ``gpus_per_task`` of its GPUs (set as
    CUDA_VISIBLE_DEVICES with ``auto_set_gpu``). The nodes come from ``scontrol show
    hostname`` where Slurm is installed, else from SLURM_JOB_NODELIST."""

    def __init__(self, jobs, port_base=8888, gpus_per_node=1, gpus_per_task=1,
                 tasks_per_node=None, auto_set_gpu=True, rpc_layer="grpc"):
        import collections

        slurm = _env.slurm()
        if slurm["rank"] is None or slurm["num_tasks"] is None:
            raise KeyError("SLURM_PROCID")  # as TF, which indexes os.environ
        self._rank, num_tasks = int(slurm["rank"]), int(slurm["num_tasks"])
        self._jobs = collections.OrderedDict(sorted(jobs.items()))
        self._port_base = port_base
        if tasks_per_node is not None:
            self._tasks_per_node = tasks_per_node
        elif slurm["tasks_per_node"] is not None:
            self._tasks_per_node = int(slurm["tasks_per_node"])
        else:
            raise RuntimeError("Neither `tasks_per_node` or SLURM_NTASKS_PER_NODE is set.")
        self._gpus_per_node = gpus_per_node
        self._gpus_per_task = gpus_per_task
        self._auto_set_gpu = auto_set_gpu
        self.task_type = None
        self.task_id = None
        self.rpc_layer = rpc_layer
        self._gpu_allocation = []
        self._cluster_allocation = {}
        if self._tasks_per_node * self._gpus_per_task > self._gpus_per_node:
            raise RuntimeError("Requested more GPUs per node then available.")
        if sum(self._jobs.values()) != num_tasks:
            raise RuntimeError("Requested more tasks then assigned tasks.")

    def _resolve_hostnames(self):
        import shutil
        import subprocess

        if shutil.which("scontrol"):
            out = subprocess.check_output(["scontrol", "show", "hostname"])
            return out.decode("utf-8").strip().split("\n")
        nodelist = _env.slurm()["nodelist"]
        if not nodelist:
            raise RuntimeError("SlurmClusterResolver: no `scontrol` and no "
                               "SLURM_JOB_NODELIST to list the job's nodes")
        return _expand_hostlist(nodelist)

    def cluster_spec(self):
        from tideflow.distributed.cluster import ClusterSpec

        tasks, self._gpu_allocation, self._cluster_allocation = [], [], {}
        for host in self._resolve_hostnames():
            for port_offset, gpu_offset in zip(range(self._tasks_per_node),
                                               range(0, self._gpus_per_node,
                                                     self._gpus_per_task)):
                tasks.append(f"{host}:{self._port_base + port_offset}")
                self._gpu_allocation.append(",".join(
                    str(g) for g in range(gpu_offset, gpu_offset + self._gpus_per_task)))
        start = 0
        for task_type, count in self._jobs.items():
            self._cluster_allocation[task_type] = tasks[start:start + count]
            if start <= self._rank < start + count:
                self.task_type, self.task_id = task_type, self._rank - start
            start += count
        if self._auto_set_gpu is True:
            _env.set_cuda_visible_devices(self._gpu_allocation[self._rank])
        return ClusterSpec(self._cluster_allocation)

    def get_task_info(self):
        return self.task_type, self.task_id

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {"GPU": self._gpus_per_node}


class KubernetesClusterResolver(_TaskMaster, ClusterResolver):
    """The cluster of the running pods the label selectors of ``job_to_label_mapping``
    ({job: [selector, ...]}, default ``{'worker': ['job-name=tensorflow']}``) select, each
    ``host_ip:tf_server_port``, by pod name. The pods are listed by ``override_client`` (an
    object with ``list_pod_for_all_namespaces(label_selector=...)``, as the Kubernetes
    client's CoreV1Api), else by the ``kubernetes`` package where it is installed."""

    def __init__(self, job_to_label_mapping=None, tf_server_port=8470, rpc_layer="grpc",
                 override_client=None):
        if not job_to_label_mapping:
            job_to_label_mapping = {"worker": ["job-name=tensorflow"]}
        if not override_client:
            try:
                from kubernetes import config as k8sconfig
            except ImportError:
                raise ImportError(
                    "The Kubernetes Python client must be installed beforeusing the "
                    "Kubernetes Cluster Resolver. To install theKubernetes Python client, "
                    "run `pip install kubernetes` on your command line.") from None
            k8sconfig.load_kube_config()
        self._job_to_label_mapping = job_to_label_mapping
        self._tf_server_port = tf_server_port
        self._override_client = override_client
        self.task_type = None
        self.task_id = None
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        from tideflow.distributed.cluster import ClusterSpec

        client = self._override_client
        if not client:
            from kubernetes import client as k8sclient
            from kubernetes import config as k8sconfig

            k8sconfig.load_kube_config()
            client = k8sclient.CoreV1Api()
        cluster = {}
        for job, selectors in self._job_to_label_mapping.items():
            pods = []
            for selector in selectors:
                listed = client.list_pod_for_all_namespaces(label_selector=selector)
                for pod in sorted(listed.items, key=lambda p: p.metadata.name):
                    if pod.status.phase != "Running":
                        raise RuntimeError(f'Pod "{pod.metadata.name}" is not running; '
                                           f'phase: "{pod.status.phase}"')
                    pods.append(f"{pod.status.host_ip}:{self._tf_server_port}")
            cluster[job] = pods
        return ClusterSpec(cluster)


class GCEClusterResolver(_TaskMaster, ClusterResolver):
    """The cluster of a Compute Engine instance group's running instances (``networkIP:port``
    each, sorted), one job ``task_type``. The instances are listed by ``service`` (a Compute
    API client, as ``googleapiclient.discovery.build('compute', 'v1')`` returns), else by
    the ``googleapiclient`` package where it is installed."""

    def __init__(self, project, zone, instance_group, port, task_type="worker", task_id=0,
                 rpc_layer="grpc", credentials="default", service=None):
        self._project, self._zone = project, zone
        self._instance_group, self._port = instance_group, port
        self._task_type, self._task_id = task_type, task_id
        self._rpc_layer = rpc_layer
        self._credentials = credentials
        if service is None:
            try:
                from googleapiclient import discovery
                from oauth2client.client import GoogleCredentials
            except ImportError:
                raise ImportError("googleapiclient must be installed before using the GCE "
                                  "cluster resolver") from None
            if credentials == "default":
                self._credentials = GoogleCredentials.get_application_default()
            service = discovery.build("compute", "v1", credentials=self._credentials)
        self._service = service

    def cluster_spec(self):
        from tideflow.distributed.cluster import ClusterSpec

        request = self._service.instanceGroups().listInstances(
            project=self._project, zone=self._zone, instanceGroups=self._instance_group,
            body={"instanceState": "RUNNING"}, orderBy="name")
        workers = []
        while request is not None:
            response = request.execute()
            for instance in response["items"]:
                details = self._service.instances().get(
                    project=self._project, zone=self._zone,
                    instance=instance["instance"].split("/")[-1])
                if details is not None:
                    ip = details.execute()["networkInterfaces"][0]["networkIP"]
                    workers.append(f"{ip}:{self._port}")
            request = self._service.instanceGroups().listInstances_next(
                previous_request=request, previous_response=response)
        workers.sort()
        return ClusterSpec({self._task_type: workers})

    @property
    def task_type(self):
        return self._task_type

    @task_type.setter
    def task_type(self, task_type):
        raise RuntimeError("You cannot reset the task_type of the GCEClusterResolver after "
                           "it has been created.")

    @property
    def task_id(self):
        return self._task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer


UnionResolver = UnionClusterResolver  # tf.distribute.cluster_resolver's name for it

__all__ = ["ClusterResolver", "GCEClusterResolver", "KubernetesClusterResolver",
           "SimpleClusterResolver", "SlurmClusterResolver", "TFConfigClusterResolver",
           "TPUClusterResolver", "UnionClusterResolver", "UnionResolver"]
