"""The ``tideflow`` command: ``launch`` end to end with a small Python program as every task
(environment, log prefixes, exit status, no process left after an interrupt), ``server``'s
errors, and the structure of the ``k8s`` manifests."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tideflow import cli
from tideflow.distributed import k8s, launcher

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")

# every task records its environment (and the pids it owns) in DIR/<job>-<task>.json, then
# acts on MODE
PROGRAM = textwrap.dedent("""
    import json, os, signal, subprocess, sys, time
    out, mode = sys.argv[1], sys.argv[2]
    job, task = os.environ["TIDEFLOW_JOB"], int(os.environ["TIDEFLOW_TASK"])
    me = f"{job}-{task}"
    pids = [os.getpid()]
    if mode == "hang":
        # a grandchild in the task's process group, and one task that ignores the signals
        pids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]).pid)
        if me == "worker-1":
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
    record = {"tf_config": json.loads(os.environ["TF_CONFIG"]), "job": job, "task": task,
              "pids": pids}
    with open(os.path.join(out, me + ".tmp"), "w") as f:
        json.dump(record, f)
    os.replace(os.path.join(out, me + ".tmp"), os.path.join(out, me + ".json"))
    print(f"hello from {job} {task}", flush=True)
    print(f"to stderr {job} {task}", file=sys.stderr, flush=True)
    if mode == "hang" or job == "ps":
        while True:
            time.sleep(0.1)
    if me == "worker-0":
        # the chief waits until every other task has started, then exits with status 3
        deadline = time.time() + 30
        while len([n for n in os.listdir(out) if n.endswith(".json")]) < int(sys.argv[3]):
            if time.time() > deadline:
                sys.exit(99)
            time.sleep(0.02)
        sys.exit(int(sys.argv[4]))
""")


def _launch(tmp_path, mode, *extra, ps=1, workers=2, status=3, grace=2):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    out = tmp_path / "out"
    out.mkdir()
    argv = [sys.executable, "-m", "tideflow.cli", "launch", "--ps", str(ps), "--workers",
            str(workers), "--ps-program", "--grace", str(grace), *extra, "--",
            sys.executable, str(prog), str(out), mode, str(ps + workers), str(status)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    return proc, out


def _records(out):
    recs = {}
    for name in os.listdir(out):
        if name.endswith(".json"):
            with open(out / name) as f:
                recs[name[:-5]] = json.load(f)
    return recs


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@contextlib.contextmanager
def _reaped(proc, out):
    """Stops whatever the test left running: the launcher's group and every recorded pid."""
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=10)
        for rec in _records(out).values():
            for pid in rec["pids"]:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)


def test_launch_environment_prefixes_and_chief_status(tmp_path):
    proc, out = _launch(tmp_path, "run", status=3)
    with _reaped(proc, out):
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 3, stdout + stderr
        recs = _records(out)
        assert sorted(recs) == ["ps-0", "worker-0", "worker-1"]
        cluster = recs["ps-0"]["tf_config"]["cluster"]
        assert len(cluster["ps"]) == 1 and len(cluster["worker"]) == 2
        addresses = cluster["ps"] + cluster["worker"]
        assert len(set(addresses)) == 3 and all(a.startswith("localhost:") for a in addresses)
        for name, rec in recs.items():
            job, task = name.split("-")
            assert rec["tf_config"] == {"cluster": cluster,
                                        "task": {"type": job, "index": int(task)}}
            assert (rec["job"], rec["task"]) == (job, int(task))
            assert f"[{job}:{task}] hello from {job} {task}" in stdout.splitlines()
            assert f"[{job}:{task}] to stderr {job} {task}" in stdout.splitlines()
        assert "worker:0 exited with status 3" in stdout
        # the ps task (which never ends by itself) was stopped with the cluster
        deadline = time.monotonic() + 10
        while _alive(recs["ps-0"]["pids"][0]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(recs["ps-0"]["pids"][0])


def test_launch_success_is_zero_and_stops_servers(tmp_path):
    proc, out = _launch(tmp_path, "run", status=0, workers=1)
    with _reaped(proc, out):
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 0, stdout + stderr
        assert "workers done; chief exited with status 0" in stdout
        ps_pid = _records(out)["ps-0"]["pids"][0]
        time.sleep(0.1)
        assert not _alive(ps_pid)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_leaves_no_process(tmp_path, sig):
    proc, out = _launch(tmp_path, "hang", grace=1)
    with _reaped(proc, out):
        deadline = time.monotonic() + 30
        while len(_records(out)) < 3:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the tasks did not start"
            time.sleep(0.05)
        pids = [pid for rec in _records(out).values() for pid in rec["pids"]]
        assert len(pids) == 6 and all(_alive(p) for p in pids)
        proc.send_signal(sig)
        stdout, _ = proc.communicate(timeout=30)
        assert proc.returncode == 128 + sig
        assert f"got {signal.Signals(sig).name}" in stdout
        # worker 1 ignored the signal: it was killed after the grace period
        assert "worker:1 did not stop within 1s: killing it" in stdout
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in pids if _alive(p)] == []


def test_launch_usage_errors(capsys):
    assert cli.main(["launch", "--workers", "1"]) == 2
    assert "give the program after '--'" in capsys.readouterr().err
    assert cli.main(["launch", "--workers", "0", "--", "true"]) == 2
    assert "at least one worker" in capsys.readouterr().err


def test_cluster_addresses():
    c = launcher.cluster_addresses(2, 3, port_base=5000)
    assert c == {"ps": ["localhost:5000", "localhost:5001"],
                 "worker": ["localhost:5002", "localhost:5003", "localhost:5004"]}
    c = launcher.cluster_addresses(0, 2)
    assert list(c) == ["worker"] and len(set(c["worker"])) == 2
    env = launcher.task_environment(c, "worker", 1, base={})
    assert json.loads(env["TF_CONFIG"])["task"] == {"type": "worker", "index": 1}
    assert (env["TIDEFLOW_JOB"], env["TIDEFLOW_TASK"]) == ("worker", "1")


def _has_server():
    import importlib.util

    return importlib.util.find_spec("tideflow.distributed.server") is not None


@pytest.mark.skipif(_has_server(), reason="tf.train.Server exists now")
def test_server_without_server_module(capsys, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert cli.main(["server", "--cluster", '{"ps": ["localhost:2222"]}', "--job", "ps",
                     "--task", "0"]) == 2
    assert "tf.train.Server is not available" in capsys.readouterr().err
    monkeypatch.setenv("TF_CONFIG", json.dumps(
        {"cluster": {"ps": ["localhost:2222"]}, "task": {"type": "ps", "index": 0}}))
    assert cli.main(["server"]) == 2
    assert "cannot serve ps:0 (localhost:2222)" in capsys.readouterr().err


def test_server_argument_errors(capsys, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    monkeypatch.delenv("TIDEFLOW_JOB", raising=False)
    monkeypatch.delenv("TIDEFLOW_TASK", raising=False)
    assert cli.main(["server", "--job", "ps", "--task", "0"]) == 2
    assert "no cluster" in capsys.readouterr().err
    assert cli.main(["server", "--cluster", '{"ps": ["a:1"]}', "--job", "wk", "--task",
                     "0"]) == 2
    assert "No such job in cluster: 'wk'" in capsys.readouterr().err
    assert cli.main(["server", "--cluster", "{not json", "--job", "ps", "--task", "0"]) == 2
    assert "--cluster is not a cluster description" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# k8s
# ------------------------------------------------------------------------------------------


def _parse_yaml(text):
    """A parser for the YAML subset ``to_yaml`` writes (block maps and lists, JSON scalars),
    so the test checks the text itself, not only the data it came from."""
    docs = []
    for chunk in text.split("---\n")[1:]:
        lines = [ln for ln in chunk.splitlines() if ln.strip()]
        value, rest = _block(lines, 0, 0)
        assert rest == len(lines)
        docs.append(value)
    return docs


def _scalar(s):
    return json.loads(s)


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _block(lines, i, indent):
    if lines[i].lstrip().startswith("- ") or lines[i].strip() == "-":
        out = []
        while i < len(lines) and _indent(lines[i]) == indent and lines[i].lstrip()[:1] == "-":
            body = lines[i][indent + 2:]
            if ":" in body and not body.startswith('"'):
                # a map starting on the dash line: re-indent its first line
                sub = [" " * (indent + 2) + body]
                j = i + 1
                while j < len(lines) and _indent(lines[j]) > indent:
                    sub.append(lines[j])
                    j += 1
                value, _ = _block(sub, 0, indent + 2)
                out.append(value)
                i = j
            else:
                out.append(_scalar(body))
                i += 1
        return out, i
    out = {}
    while i < len(lines) and _indent(lines[i]) == indent:
        key, _, val = lines[i].strip().partition(":")
        key = json.loads(key) if key.startswith('"') else key
        val = val.strip()
        if val:
            out[key] = {} if val == "{}" else [] if val == "[]" else _scalar(val)
            i += 1
        else:
            out[key], i = _block(lines, i + 1, _indent(lines[i + 1]))
    return out, i


def test_k8s_manifests_structure(capsys):
    assert cli.main(["k8s", "--ps", "2", "--workers", "3", "--image", "reg/img:1", "--name",
                     "demo", "--", "python", "train.py", "--lr=0.1 x"]) == 0
    text = capsys.readouterr().out
    docs = _parse_yaml(text)
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("Service", "demo-ps"), ("StatefulSet", "demo-ps"),
        ("Service", "demo-worker"), ("StatefulSet", "demo-worker")]
    assert docs == k8s.manifests(["python", "train.py", "--lr=0.1 x"], "reg/img:1",
                                 name="demo", num_ps=2, num_workers=3)
    svc, sts = docs[2], docs[3]
    assert svc["spec"]["clusterIP"] == "None"
    assert svc["spec"]["selector"] == sts["spec"]["template"]["metadata"]["labels"]
    assert sts["spec"]["serviceName"] == "demo-worker" and sts["spec"]["replicas"] == 3
    assert docs[1]["spec"]["replicas"] == 2
    container = sts["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "reg/img:1"
    assert container["command"][-3:] == ["python", "train.py", "--lr=0.1 x"]
    assert docs[1]["spec"]["template"]["spec"]["containers"][0]["command"][-2:] == [
        "tideflow", "server"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["TIDEFLOW_JOB"] == "worker"
    assert json.loads(env["TIDEFLOW_CLUSTER"]) == {
        "ps": ["demo-ps-0.demo-ps:2222", "demo-ps-1.demo-ps:2222"],
        "worker": [f"demo-worker-{i}.demo-worker:2222" for i in range(3)]}


def test_k8s_entrypoint_derives_task_from_hostname():
    show = "import os; print(os.environ['TF_CONFIG']); print(os.environ['TIDEFLOW_TASK'])"
    docs = k8s.manifests([sys.executable, "-c", show], "img", name="demo", num_ps=1,
                         num_workers=3)
    container = docs[3]["spec"]["template"]["spec"]["containers"][0]
    env = dict(os.environ, HOSTNAME="demo-worker-2",
               **{e["name"]: e["value"] for e in container["env"]})
    res = subprocess.run(container["command"], env=env, capture_output=True, text=True,
                         timeout=30, check=True)
    tf_config, task = res.stdout.splitlines()
    assert task == "2"
    assert json.loads(tf_config) == {
        "cluster": k8s.cluster_spec_dict("demo", 1, 3),
        "task": {"type": "worker", "index": 2}}


def test_k8s_errors(capsys):
    assert cli.main(["k8s", "--image", "img", "--name", "Bad_Name", "--", "x"]) == 2
    assert "must be a DNS label" in capsys.readouterr().err
    assert cli.main(["k8s", "--image", "img"]) == 2
    assert "No program" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["k8s", "--", "python"])  # --image is required


@pytest.mark.skipif(not _has_server(), reason="no tf.train.Server in this build")
def test_launch_with_real_ps_servers(tmp_path):
    # the worker waits until the ps task's server accepts connections, then exits 0
    prog = tmp_path / "connect.py"
    prog.write_text(textwrap.dedent("""
        import json, os, socket, sys, time
        host, port = json.loads(os.environ["TF_CONFIG"])["cluster"]["ps"][0].split(":")
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                socket.create_connection((host, int(port)), timeout=1).close()
                print("ps is up", flush=True)
                sys.exit(0)
            except OSError:
                time.sleep(0.1)
        sys.exit(7)
    """))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tideflow.cli", "launch", "--ps", "1", "--workers", "1",
         "--grace", "5", "--", sys.executable, str(prog)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    assert proc.returncode == 0, stdout + stderr
    # only the ps task's server listens on that port
    assert "[worker:0] ps is up" in stdout


def test_train_and_eval_commands_run_the_example_programs():
    import subprocess
    import sys

    for name, prog in (("train", "image_train.py"), ("eval", "image_eval.py")):
        out = subprocess.run([sys.executable, "-m", "tideflow.cli", name, "--help"],
                             capture_output=True, text=True, timeout=60, check=True).stdout
        assert prog in out and "--model" in out
