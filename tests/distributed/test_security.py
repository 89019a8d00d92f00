"""TLS and the shared-secret token (tideflow/distributed/security.py) on real clusters: server
processes on loopback configured through TIDEFLOW_GRPC_* with a CA and certificates made for
the test, clients in this process configured the same way.

Every server process is killed when its test ends; every step runs with a deadline."""

import contextlib
import datetime
import ipaddress
import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest

import tideflow as tf
from tests.distributed.cluster_procs import Cluster, cluster_spec
from tideflow.distributed import security as security_lib
from tideflow.distributed import transport as tp
from tideflow.framework import errors

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

TOKEN = "tf-test-4c1d e9"  # printable ASCII with a space: what a header value may hold
ENV_NAMES = ("TIDEFLOW_GRPC_TOKEN", "TIDEFLOW_GRPC_CERT", "TIDEFLOW_GRPC_KEY",
             "TIDEFLOW_GRPC_CA")
STEP = tf.RunOptions(timeout_in_ms=30000)  # no step of these tests may hang


# ------------------------------------------------------------------------------------------
# certificates made for the test: a CA, a server certificate for localhost and 127.0.0.1
# signed by it, one for another name, and an unrelated CA
# ------------------------------------------------------------------------------------------


def _certs_with_cryptography(d):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def write(name, key, cert):
        (d / f"{name}.key").write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))
        (d / f"{name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))

    def builder(subject, issuer, key):
        return (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=2)))

    def ca(name):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (builder(name, name, key)
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(
                    digital_signature=True, content_commitment=False, key_encipherment=False,
                    data_encipherment=False, key_agreement=False, key_cert_sign=True,
                    crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
                .sign(key, hashes.SHA256()))
        return key, cert

    def leaf(name, ca_name, ca_key, dns, ips):
        key = ec.generate_private_key(ec.SECP256R1())
        alt = [x509.DNSName(n) for n in dns] + [x509.IPAddress(ipaddress.ip_address(i))
                                               for i in ips]
        cert = (builder(dns[0], ca_name, key)
                .add_extension(x509.SubjectAlternativeName(alt), critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                      ExtendedKeyUsageOID.CLIENT_AUTH]),
                               critical=False)
                .sign(ca_key, hashes.SHA256()))
        return key, cert

    ca_key, ca_cert = ca("tideflow test CA")
    write("ca", ca_key, ca_cert)
    write("other_ca", *ca("another CA"))
    write("server", *leaf("localhost", "tideflow test CA", ca_key, ["localhost"],
                          ["127.0.0.1"]))
    write("elsewhere", *leaf("elsewhere.example", "tideflow test CA", ca_key,
                             ["elsewhere.example"], []))


def _certs_with_openssl(d, openssl):
    def run(*args):
        subprocess.run([openssl, *args], check=True, capture_output=True, timeout=60, cwd=d)

    ec_key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for name, cn in (("ca", "tideflow test CA"), ("other_ca", "another CA")):
        run("req", "-x509", *ec_key, "-days", "2", "-subj", f"/CN={cn}", "-keyout",
            f"{name}.key", "-out", f"{name}.pem", "-addext",
            "basicConstraints=critical,CA:TRUE", "-addext",
            "keyUsage=critical,keyCertSign,cRLSign,digitalSignature")
    for name, alt in (("server", "DNS:localhost,IP:127.0.0.1"),
                      ("elsewhere", "DNS:elsewhere.example")):
        (d / f"{name}.ext").write_text(f"subjectAltName={alt}\nbasicConstraints=critical,CA:FALSE\n"
                                       "extendedKeyUsage=serverAuth,clientAuth\n")
        run("req", "-new", *ec_key, "-subj", f"/CN={alt.split(',')[0][4:]}", "-keyout",
            f"{name}.key", "-out", f"{name}.csr")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-out", f"{name}.pem", "-extfile", f"{name}.ext")


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """Paths of the test's PEM files: ``ca``, ``other_ca``, ``server`` (localhost,
    127.0.0.1, signed by ``ca``) and ``elsewhere`` (another name, signed by ``ca``), each
    ``.pem`` with its ``.key``."""
    d = tmp_path_factory.mktemp("certs")
    try:
        import cryptography  # noqa: F401
    except ImportError:
        openssl = shutil.which("openssl")
        if openssl is None:
            pytest.skip("making test certificates needs the cryptography package or openssl")
        _certs_with_openssl(d, openssl)
    else:
        _certs_with_cryptography(d)
    return {p.name: str(p) for p in d.iterdir()}


def _env(certs, token=TOKEN, tls=True, ca="ca.pem"):
    env = {name: "" for name in ENV_NAMES}
    if token is not None:
        env["TIDEFLOW_GRPC_TOKEN"] = token
    if tls:
        env.update(TIDEFLOW_GRPC_CERT=certs["server.pem"], TIDEFLOW_GRPC_KEY=certs["server.key"])
    if ca is not None:
        env["TIDEFLOW_GRPC_CA"] = certs[ca]
    return env


def _client(monkeypatch, env):
    """This process's client settings, as the environment gives them to tf.Session."""
    for k, v in env.items():
        if v:
            monkeypatch.setenv(k, v)
        else:
            monkeypatch.delenv(k, raising=False)


@pytest.fixture
def clusters(tmp_path):
    made = []

    def make(spec, env, skip=()):
        d = tmp_path / f"cluster{len(made)}"
        d.mkdir()
        c = Cluster(spec, d, env=env)
        made.append(c)
        return c.start_all(skip=skip)

    yield make
    for c in made:
        c.stop()


def _cross_task_model():
    """A graph over ps:0, worker:0 and worker:1 whose values cross between every pair: a 1.4
    MiB tensor (streamed RecvTensor) and scalars (unary RecvTensor) from the ps to worker 0,
    worker 0 to worker 1 and back to the client."""
    g = tf.Graph()
    with g.as_default():
        big0 = np.arange(600 * 600, dtype=np.float32).reshape(600, 600) / 1000.0
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(big0, name="v")
            s = tf.Variable(2.0, name="s")
        with tf.device("/job:worker/task:0"):
            a = v * s  # ps -> worker 0
            a_sum = tf.reduce_sum(a)
        with tf.device("/job:worker/task:1"):
            b = a + 1.0  # worker 0 -> worker 1, streamed
            total = tf.reduce_sum(b) + a_sum  # and a scalar, unary
        init = tf.global_variables_initializer()
    return g, init, b, total, big0


def _check_cross_task_step(target):
    g, init, b, total, big0 = _cross_task_model()
    with tf.Session(target, graph=g) as sess:
        sess.run(init, options=STEP)
        bv, tv = sess.run([b, total], options=STEP)
    np.testing.assert_allclose(bv, big0 * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(tv, (big0 * 2 + 1).sum() + (big0 * 2).sum(), rtol=1e-5)


def _step_on(target, device="/job:ps/task:0", config=None):
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        y = tf.constant(2.0) * 3.0
    with tf.Session(target, graph=g, config=config) as sess:
        return sess.run(y, options=STEP)


# ------------------------------------------------------------------------------------------
# settings
# ------------------------------------------------------------------------------------------


def test_settings_are_checked_and_name_the_variable(certs, tmp_path, monkeypatch):
    S = security_lib.Security
    with pytest.raises(ValueError, match="TIDEFLOW_GRPC_KEY.* is not"):
        S(cert_file=certs["server.pem"])
    with pytest.raises(ValueError, match="TIDEFLOW_GRPC_CERT.* is not"):
        S(key_file=certs["server.key"])
    with pytest.raises(ValueError, match="does not go with"):
        S(cert_file=certs["server.pem"], key_file=certs["ca.key"])
    missing = str(tmp_path / "nowhere.pem")
    with pytest.raises(ValueError, match="TIDEFLOW_GRPC_CA.*cannot read.*nowhere.pem"):
        S(ca_file=missing)
    with pytest.raises(ValueError, match="TIDEFLOW_GRPC_CA.*holds no PEM certificate"):
        S(ca_file=certs["ca.key"])
    with pytest.raises(ValueError, match="TIDEFLOW_GRPC_CERT.*holds no PEM certificate"):
        S(cert_file=certs["server.key"], key_file=certs["server.key"])
    with pytest.raises(ValueError, match=r"TIDEFLOW_GRPC_TOKEN\) must be printable ASCII"):
        S(token="s\u00e9cret")
    with pytest.raises(ValueError, match=r"TIDEFLOW_GRPC_TOKEN\) must be printable ASCII"):
        S(token="secret\n")
    with pytest.raises(ValueError, match="must not begin or end with spaces"):
        S(token=" secret")

    _client(monkeypatch, {name: "" for name in ENV_NAMES})
    assert security_lib.get_default() is None
    _client(monkeypatch, _env(certs))
    s = security_lib.get_default()
    assert s.tls and s.token == TOKEN.encode() and s.ca_file == certs["ca.pem"]
    assert TOKEN not in repr(s)
    _client(monkeypatch, _env(certs, tls=False, ca=None))
    s = security_lib.get_default()
    assert not s.tls and s.metadata() == ((security_lib.TOKEN_METADATA_KEY, TOKEN),)
    # a bad setting fails the session at creation, naming it
    _client(monkeypatch, {"TIDEFLOW_GRPC_CA": missing})
    with pytest.raises(ValueError, match="TIDEFLOW_GRPC_CA"):
        tf.Session("grpc://127.0.0.1:1")


# ------------------------------------------------------------------------------------------
# TLS with the token
# ------------------------------------------------------------------------------------------


def test_tls_cluster_runs_steps_across_ps_and_workers(certs, clusters, monkeypatch):
    c = clusters(cluster_spec(ps=1, worker=2), _env(certs))
    _client(monkeypatch, _env(certs, tls=False))  # a client: the CA and the token
    _check_cross_task_step(c.target("worker", 0))
    # any task can be the master, over TLS as well
    _check_cross_task_step(c.target("worker", 1))

    # every port speaks TLS only: a plaintext client is refused at once, saying why
    _client(monkeypatch, _env(certs, tls=False, ca=None))
    for job, task in (("ps", 0), ("worker", 0), ("worker", 1)):
        with pytest.raises(errors.UnavailableError) as ei:
            _step_on(c.target(job, task))
        msg = str(ei.value)
        assert c.spec[job][task] in msg and "plaintext" in msg, msg
        assert "TIDEFLOW_GRPC_CA" in msg, msg
    # a client that trusts another CA fails the handshake
    _client(monkeypatch, _env(certs, tls=False, ca="other_ca.pem"))
    with pytest.raises(errors.UnavailableError, match="(?i)handshake|certificate"):
        _step_on(c.target("worker", 0))
    # the right CA but no token: refused by the server
    _client(monkeypatch, _env(certs, token=None, tls=False))
    with pytest.raises(errors.UnauthenticatedError, match="no tideflow token"):
        _step_on(c.target("worker", 0))
    # and the cluster still serves a correct client
    _client(monkeypatch, _env(certs, tls=False))
    assert _step_on(c.target("worker", 0), "/job:worker/task:1") == 6.0


def test_certificate_must_name_the_address(certs, clusters, monkeypatch):
    # a server whose certificate is for another host name: clients dialling 127.0.0.1 refuse it
    env = _env(certs)
    env.update(TIDEFLOW_GRPC_CERT=certs["elsewhere.pem"], TIDEFLOW_GRPC_KEY=certs["elsewhere.key"])
    c = clusters(cluster_spec(worker=1), env)
    _client(monkeypatch, _env(certs, tls=False))
    with pytest.raises(errors.UnavailableError, match="(?i)hostname|certificate|handshake"):
        _step_on(c.target("worker", 0), "/job:worker/task:0")


def test_worker_to_worker_traffic_is_verified_tls(certs, clusters, monkeypatch):
    # worker 1 serves with the cluster's certificate but trusts another CA for its own calls:
    # it is reachable (the master's RunGraph works), but its RecvTensor from worker 0 and the
    # ps fail the TLS handshake; the step fails with Unavailable instead of going plaintext
    spec = cluster_spec(ps=1, worker=2)
    c = clusters(spec, _env(certs), skip=[("worker", 1)])
    clusters(spec, _env(certs, ca="other_ca.pem"), skip=[("ps", 0), ("worker", 0)])
    _client(monkeypatch, _env(certs, tls=False))
    g, init, _, total, _ = _cross_task_model()
    with tf.Session(c.target("worker", 0), graph=g) as sess:
        sess.run(init, options=STEP)
        with pytest.raises(errors.UnavailableError, match="(?i)handshake|certificate"):
            sess.run(total, options=STEP)


# ------------------------------------------------------------------------------------------
# the token on every call
# ------------------------------------------------------------------------------------------


def _every_rpc():
    """(service, method, streaming) of every RPC a server offers."""
    calls = [(tp.MASTER_SERVICE, m, False) for m in tp.MASTER_METHODS]
    calls += [(tp.WORKER_SERVICE, m, False) for m in tp.WORKER_METHODS]
    calls += [(tp.TRANSFER_SERVICE, m, True) for m in tp.TRANSFER_METHODS]
    return calls


def _call_raw(channel, service, method, streaming, metadata, timeout, payload=b""):
    """Calls ``method`` with ``payload`` (an empty request); the gRPC error, or None when it
    succeeded."""
    import grpc

    path = f"/{service}/{method}"
    try:
        if streaming:
            list(channel.unary_stream(path)(payload, timeout=timeout, metadata=metadata))
        else:
            channel.unary_unary(path)(payload, timeout=timeout, metadata=metadata)
    except grpc.RpcError as e:
        return e
    return None


@pytest.mark.parametrize("tls", [True, False], ids=["tls", "token-only"])
def test_every_rpc_checks_the_token(certs, clusters, monkeypatch, tls):
    import grpc

    c = clusters(cluster_spec(ps=1, worker=1), _env(certs, tls=tls, ca="ca.pem" if tls else None))
    client = security_lib.Security(ca_file=certs["ca.pem"] if tls else None)
    for job in ("ps", "worker"):
        address = c.spec[job][0]
        ch = tp.make_channel(address, client)
        try:
            for service, method, streaming in _every_rpc():
                for metadata, why in (((), "no tideflow token"),
                                      (((security_lib.TOKEN_METADATA_KEY, "wrong"),),
                                       "token is wrong"),
                                      (((security_lib.TOKEN_METADATA_KEY, TOKEN + "x"),),
                                       "token is wrong")):
                    e = _call_raw(ch, service, method, streaming, metadata, 10)
                    assert e is not None, (job, method)
                    assert e.code() == grpc.StatusCode.UNAUTHENTICATED, (job, method,
                                                                         e.details())
                    assert e.details().startswith(f"{method} refused: "), e.details()
                    assert why in e.details(), e.details()
                # the token is checked before the request is even parsed
                e = _call_raw(ch, service, method, streaming, (), 10, b"\xff\xfe garbage")
                assert e.code() == grpc.StatusCode.UNAUTHENTICATED, (method, e.details())
                # with the token, the call gets through to the service (which finds the
                # empty request wanting, or waits for a tensor that never comes)
                e = _call_raw(ch, service, method, streaming,
                              ((security_lib.TOKEN_METADATA_KEY, TOKEN),), 1)
                assert e is None or e.code() != grpc.StatusCode.UNAUTHENTICATED, (
                    job, method, e.details())
        finally:
            ch.close()
    # a session without the token is refused as a TF error naming the reason
    _client(monkeypatch, _env(certs, token=None, tls=False, ca="ca.pem" if tls else None))
    with pytest.raises(errors.UnauthenticatedError, match="CreateSession refused: .*no tideflow"):
        _step_on(c.target("worker", 0))
    _client(monkeypatch, _env(certs, token="nope", tls=False, ca="ca.pem" if tls else None))
    with pytest.raises(errors.UnauthenticatedError, match="token is wrong"):
        _step_on(c.target("worker", 0))
    # and the servers keep serving correct clients, their calls to each other carrying it
    _client(monkeypatch, _env(certs, tls=False, ca="ca.pem" if tls else None))
    assert _step_on(c.target("worker", 0)) == 6.0
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.ones(4, np.float32), name="v")
        with tf.device("/job:worker/task:0"):
            y = tf.reduce_sum(v * 2.0)
        init = tf.global_variables_initializer()
    with tf.Session(c.target("worker", 0), graph=g) as sess:
        sess.run(init, options=STEP)
        assert sess.run(y, options=STEP) == 8.0


def test_tasks_with_different_tokens_refuse_each_other(certs, clusters, monkeypatch):
    # a misconfigured cluster: the ps has another token than the worker; the worker's calls to
    # the ps are refused, and the client is told so as UnauthenticatedError
    spec = cluster_spec(ps=1, worker=1)
    clusters(spec, _env(certs, token="ps-token", tls=False, ca=None), skip=[("worker", 0)])
    c = clusters(spec, _env(certs, tls=False, ca=None), skip=[("ps", 0)])
    _client(monkeypatch, _env(certs, tls=False, ca=None))
    # a session that sees only the worker (device_filters) runs
    assert _step_on(c.target("worker", 0), "/job:worker/task:0",
                    tf.ConfigProto(device_filters=["/job:worker"])) == 6.0
    with pytest.raises(errors.UnauthenticatedError, match="token is wrong") as ei:
        _step_on(c.target("worker", 0), "/job:ps/task:0")
    assert spec["ps"][0] in str(ei.value)


def test_server_security_argument_overrides_the_environment(certs, monkeypatch):
    # Server(security=...) in this process: the environment's token does not apply
    from tideflow.distributed.server import Server

    _client(monkeypatch, _env(certs, token="from-env", tls=False, ca=None))
    server = Server({"local": ["127.0.0.1:0"]}, job_name="local", task_index=0,
                    security=security_lib.Security(token=TOKEN))
    try:
        with pytest.raises(errors.UnauthenticatedError, match="token is wrong"):
            _step_on(server.target, "/job:local/task:0")
        _client(monkeypatch, _env(certs, tls=False, ca=None))
        assert _step_on(server.target, "/job:local/task:0") == 6.0
    finally:
        server.stop()


# ------------------------------------------------------------------------------------------
# tideflow launch, as docs/distributed.md shows it
# ------------------------------------------------------------------------------------------

LAUNCHED = """
import grpc, tideflow as tf
from tideflow.distributed import security, transport as tp
from tideflow.distributed.cluster import tf_config_from_env
from tideflow.protos import master_pb2
cfg = tf_config_from_env()
server = tf.train.Server(cfg.cluster, job_name=cfg.task_type, task_index=cfg.task_index)
with tf.device("/job:ps/task:0"):
    v = tf.Variable(3.0)
with tf.device("/job:worker/task:0"):
    y = v * 2.0
with tf.Session(server.target) as sess:
    sess.run(v.initializer)
    print("VALUE", sess.run(y, options=tf.RunOptions(timeout_in_ms=30000)), flush=True)
ps = cfg.cluster.task_address("ps", 0)
ch = tp.make_channel(ps, security.Security(token=security.get_default().token))
try:
    ch.unary_unary(f"/{tp.MASTER_SERVICE}/ListDevices")(
        master_pb2.ListDevicesRequest().SerializeToString(), timeout=10,
        metadata=security.get_default().metadata())
    print("PLAINTEXT ANSWERED", flush=True)
except grpc.RpcError as e:
    print("PLAINTEXT REFUSED", e.code().name, flush=True)
"""


def _launch(tmp_path, env, workers=1):
    from tests.distributed.cluster_procs import _env as proc_env

    script = tmp_path / "prog.py"
    script.write_text(LAUNCHED)
    argv = [sys.executable, "-m", "tideflow.cli", "launch", "--ps", "1", "--workers",
            str(workers), "--grace", "5", "--", sys.executable, str(script)]
    p = subprocess.Popen(argv, env=proc_env(env), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=90)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait(10)
    return p.returncode, out


def test_launch_with_tls_and_token(certs, tmp_path):
    # the documented recipe: the variables in the launcher's environment reach every task;
    # the cluster's addresses are localhost:PORT, which the certificate names
    rc, out = _launch(tmp_path, _env(certs))
    assert rc == 0, out[-3000:]
    assert "[launch] security: TLS on, token on\n" in out, out[-3000:]
    assert "[worker:0] VALUE 6.0" in out, out[-3000:]
    assert "[worker:0] PLAINTEXT REFUSED UNAVAILABLE" in out, out[-3000:]


def test_launch_refuses_bad_settings_before_starting_anything(certs, tmp_path):
    env = _env(certs)
    env["TIDEFLOW_GRPC_KEY"] = certs["other_ca.key"]
    rc, out = _launch(tmp_path, env)
    assert rc == 2, out
    assert "TIDEFLOW_GRPC_KEY" in out and "does not go with" in out, out
    assert "[ps:0]" not in out and "[launch] cluster" not in out, out
