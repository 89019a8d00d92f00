"""ClusterSpec (from dicts, sparse jobs, ClusterDef protos and other specs), ServerDef
construction and TF_CONFIG parsing."""

import json

import pytest

from tideflow.distributed.cluster import (
    ClusterDef,
    ClusterSpec,
    JobDef,
    ServerDef,
    make_server_def,
    parse_tf_config,
    tf_config_from_env,
)

SPEC = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]}


def test_dense_jobs():
    c = ClusterSpec(SPEC)
    assert c.jobs == ["ps", "worker"]
    assert c.as_dict() == SPEC
    assert c.num_tasks("worker") == 3 and c.task_indices("ps") == [0, 1]
    assert c.task_address("worker", 2) == "w2:2222"
    assert c.job_tasks("ps") == ["ps0:2222", "ps1:2222"]
    assert bool(c) and not ClusterSpec({})
    assert str(c) == ("ClusterSpec({'ps': ['ps0:2222', 'ps1:2222'], 'worker': ['w0:2222', "
                       "'w1:2222', 'w2:2222']})")


def test_sparse_jobs():
    c = ClusterSpec({"worker": {1: "w1:1", 3: "w3:1"}, "ps": {0: "p:1"}})
    assert c.as_dict() == {"worker": {1: "w1:1", 3: "w3:1"}, "ps": ["p:1"]}
    assert c.task_indices("worker") == [1, 3]
    assert c.job_tasks("worker") == [None, "w1:1", None, "w3:1"]
    assert c.num_tasks("worker") == 2
    assert ClusterSpec({"idle": []}).as_dict() == {"idle": {}}


def test_cluster_def_round_trip():
    c = ClusterSpec(SPEC)
    cd = c.as_cluster_def()
    assert isinstance(cd, ClusterDef)
    assert [j.name for j in cd.job] == ["ps", "worker"]
    assert dict(cd.job[1].tasks) == {0: "w0:2222", 1: "w1:2222", 2: "w2:2222"}
    assert ClusterSpec(cd) == c
    assert ClusterSpec(c) == c and ClusterSpec(c) is not c
    # as TF 1.15: equal to the {job: {index: address}} form only
    assert c != SPEC and c == {j: dict(enumerate(a)) for j, a in SPEC.items()} and c != 3
    # field numbers as TF's: a ClusterDef made by TF parses here
    tf_bytes = ClusterDef(job=[JobDef(name="ps", tasks={0: "a:1"})]).SerializeToString()
    assert tf_bytes == b"\n\r\n\x02ps\x12\x07\x08\x00\x12\x03a:1"
    # jobs are sorted in the proto whatever the dict order, so equal specs give equal bytes
    assert (ClusterSpec({"worker": ["w:1"], "ps": ["p:1"]}).as_cluster_def().SerializeToString()
            == ClusterSpec({"ps": ["p:1"], "worker": ["w:1"]}).as_cluster_def()
            .SerializeToString())


def test_errors():
    c = ClusterSpec(SPEC)
    with pytest.raises(ValueError, match="No such job in cluster: 'x'"):
        c.num_tasks("x")
    with pytest.raises(ValueError, match="No such job in cluster: 'x'"):
        c.task_address("x", 0)
    with pytest.raises(ValueError, match="No such job in cluster: 'x'"):
        c.job_tasks("x")
    with pytest.raises(ValueError, match="No task with index 7 in job 'ps'"):
        c.task_address("ps", 7)
    with pytest.raises(TypeError, match="must be a list or a dictionary"):
        ClusterSpec({"ps": "a:1"})
    with pytest.raises(TypeError, match="must be a dictionary mapping"):
        ClusterSpec(["a:1"])
    with pytest.raises(TypeError, match="must be bytes or unicode"):
        ClusterSpec({"ps": [1234]})
    with pytest.raises(TypeError):
        hash(c)


def test_make_server_def():
    sd = make_server_def(SPEC, job_name="worker", task_index=1)
    assert isinstance(sd, ServerDef)
    assert (sd.job_name, sd.task_index, sd.protocol) == ("worker", 1, "grpc")
    assert ClusterSpec(sd.cluster) == ClusterSpec(SPEC)
    one = make_server_def({"local": ["localhost:0"]})
    assert (one.job_name, one.task_index) == ("local", 0)
    again = make_server_def(sd, task_index=2)
    assert again.task_index == 2 and sd.task_index == 1
    with pytest.raises(ValueError, match="explicit `job_name`"):
        make_server_def(SPEC)
    with pytest.raises(ValueError, match="explicit `task_index`"):
        make_server_def(SPEC, job_name="ps")
    # as TF's _make_server_def, an explicit task index is not checked here: the Server
    # refuses it (InvalidArgumentError, test_programs_dist7)
    assert make_server_def(SPEC, job_name="ps", task_index=5).task_index == 5
    with pytest.raises(TypeError, match="Could not convert"):
        make_server_def("localhost:1")


def test_parse_tf_config():
    cfg = parse_tf_config(json.dumps({"cluster": SPEC, "task": {"type": "worker", "index": 1},
                                      "environment": "cloud"}))
    assert cfg.cluster == ClusterSpec(SPEC)
    assert (cfg.task_type, cfg.task_index, cfg.environment) == ("worker", 1, "cloud")
    assert not cfg.is_chief and cfg.master == "grpc://w1:2222"
    assert parse_tf_config({"cluster": SPEC, "task": {"type": "worker", "index": 0}}).is_chief
    with_chief = dict(SPEC, chief=["c:1"])
    assert parse_tf_config({"cluster": with_chief, "task": {"type": "chief"}}).is_chief
    assert not parse_tf_config(
        {"cluster": with_chief, "task": {"type": "worker", "index": 0}}).is_chief
    bare = parse_tf_config("{}")
    assert not bare.cluster and bare.task_type is None and bare.master == ""
    with pytest.raises(json.JSONDecodeError, match="Expecting property name"):
        parse_tf_config("{cluster")
    with pytest.raises(ValueError, match="No task with index 9"):
        parse_tf_config({"cluster": SPEC, "task": {"type": "ps", "index": 9}})
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        parse_tf_config({"cluster": SPEC, "task": {"type": "chief", "index": 0}})


def test_tf_config_from_env(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert tf_config_from_env() is None
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": SPEC,
                                                "task": {"type": "ps", "index": 1}}))
    cfg = tf_config_from_env()
    assert (cfg.task_type, cfg.task_index) == ("ps", 1)
    assert cfg.cluster.task_address("ps", 1) == "ps1:2222"
