"""Kubernetes manifests for a tideflow cluster (``tideflow k8s``): per job a headless Service
and a StatefulSet, so task ``i`` of job ``J`` is pod ``NAME-J-i``, reachable at the stable
name ``NAME-J-i.NAME-J:PORT``; each pod derives its task index from its ordinal."""

import json
import re

__all__ = ["cluster_spec_dict", "manifests", "to_yaml"]

# the pod's ordinal is the suffix of its hostname (NAME-worker-3 -> 3); TF_CONFIG is then
# composed from the cluster JSON the manifest passes in TIDEFLOW_CLUSTER. (No "$(...)": the
# kubelet would read it as a reference to an environment variable.)
_ENTRYPOINT = (
    'h="${HOSTNAME:-`hostname`}"; export TIDEFLOW_TASK="${h##*-}"; '
    'export TF_CONFIG="{\\"cluster\\": ${TIDEFLOW_CLUSTER}, \\"task\\": '
    '{\\"type\\": \\"${TIDEFLOW_JOB}\\", \\"index\\": ${TIDEFLOW_TASK}}}"; '
    'exec "$@"'
)


def cluster_spec_dict(name, num_ps, num_workers, port=2222, namespace=None):
    """The cluster as stable DNS names: ``{"ps": ["NAME-ps-0.NAME-ps:2222", ...], ...}``."""
    suffix = f".{namespace}.svc" if namespace else ""
    out = {}
    for job, n in (("ps", num_ps), ("worker", num_workers)):
        if n:
            out[job] = [f"{name}-{job}-{i}.{name}-{job}{suffix}:{port}" for i in range(n)]
    return out


def _check_name(name):
    if not re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name) or len(name) > 40:
        raise ValueError(
            f"--name {name!r} must be a DNS label: lower-case letters, digits and '-', at most "
            "40 characters"
        )


def manifests(command, image, name="tideflow", num_ps=1, num_workers=2, port=2222,
              namespace=None, ps_command=None):
    """The manifests (a list of dicts): a headless Service and a StatefulSet per job.

    Workers run ``command``; ps tasks run ``ps_command`` (default ``tideflow server``).
    """
    _check_name(name)
    if num_workers < 1:
        raise ValueError("A cluster needs at least one worker")
    if not command:
        raise ValueError("No program to run: give it after '--'")
    cluster = json.dumps(cluster_spec_dict(name, num_ps, num_workers, port, namespace),
                         separators=(",", ":"))
    docs = []
    for job, n, argv in (("ps", num_ps, ps_command or ["tideflow", "server"]),
                         ("worker", num_workers, list(command))):
        if not n:
            continue
        full = f"{name}-{job}"
        labels = {"app": name, "tideflow-job": job}
        meta = {"name": full, "labels": labels}
        if namespace:
            meta["namespace"] = namespace
        docs.append({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": dict(meta),
            "spec": {
                "clusterIP": "None",  # headless: one DNS record per pod
                "selector": labels,
                "ports": [{"name": "grpc", "port": port, "targetPort": port}],
            },
        })
        container = {
            "name": job,
            "image": image,
            "command": ["/bin/sh", "-c", _ENTRYPOINT, "--", *argv],
            "env": [
                {"name": "TIDEFLOW_JOB", "value": job},
                {"name": "TIDEFLOW_CLUSTER", "value": cluster},
                {"name": "PYTHONUNBUFFERED", "value": "1"},
            ],
            "ports": [{"name": "grpc", "containerPort": port}],
        }
        docs.append({
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": dict(meta),
            "spec": {
                "serviceName": full,
                "replicas": n,
                # tasks find each other by name; none waits for another to be ready
                "podManagementPolicy": "Parallel",
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "containers": [container],
                        # the only policy a StatefulSet allows: a worker whose program ends
                        # is restarted (a MonitoredTrainingSession restores its checkpoint
                        # and stops at once when training was complete)
                        "restartPolicy": "Always",
                    },
                },
            },
        })
    return docs


_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def _scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    # a JSON string is a valid YAML double-quoted scalar
    return json.dumps(str(v))


def _key(k):
    return k if _PLAIN_KEY.match(k) else json.dumps(k)


def _emit(v, indent, lines):
    pad = " " * indent
    if isinstance(v, dict):
        if not v:
            lines[-1] += " {}"
            return
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                lines.append(f"{pad}{_key(k)}:")
                _emit(x, indent + 2, lines)
            elif isinstance(x, (dict, list)):
                lines.append(f"{pad}{_key(k)}: " + ("{}" if isinstance(x, dict) else "[]"))
            else:
                lines.append(f"{pad}{_key(k)}: {_scalar(x)}")
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, dict) and x:
                # the first key on the dash line, the rest aligned under it
                sub = []
                _emit(x, indent + 2, sub)
                lines.append(f"{pad}- " + sub[0][indent + 2:])
                lines.extend(sub[1:])
            elif isinstance(x, list) and x:
                lines.append(f"{pad}-")
                _emit(x, indent + 2, lines)
            else:
                lines.append(f"{pad}- {_scalar(x)}")
    else:
        lines.append(pad + _scalar(v))


def to_yaml(docs):
    """The documents as one YAML stream (block style, every string double-quoted)."""
    out = []
    for d in docs:
        lines = ["---"]
        _emit(d, 0, lines)
        out.append("\n".join(lines))
    return "\n".join(out) + "\n"

