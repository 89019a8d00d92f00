"""Security of the distributed runtime: optional TLS for every channel and a shared-secret
token checked on every call (rejected with UNAUTHENTICATED).

A server runs any graph it is sent, so without both it must only listen where every peer is
trusted. Settings come from a :class:`Security` passed to ``Server``, or from the environment
(``tideflow/env.py``: TIDEFLOW_GRPC_TOKEN, _CERT, _KEY, _CA).

Everything is checked when a ``Security`` is made (files readable, PEM, the key matching the
certificate, a token gRPC can carry), so a mistake is a ValueError naming the setting at
``Server``/``Session`` creation, not an obscure handshake failure later.
"""

import hmac
import ssl

TOKEN_METADATA_KEY = "x-tideflow-token"

# what each setting is called in the environment, for error messages
_ENV_NAMES = {"token": "TIDEFLOW_GRPC_TOKEN", "cert_file": "TIDEFLOW_GRPC_CERT",
              "key_file": "TIDEFLOW_GRPC_KEY", "ca_file": "TIDEFLOW_GRPC_CA"}


def _setting(name):
    return f"{name} ({_ENV_NAMES[name]})"


def _read_pem(name, path, marker, what):
    """The bytes of the PEM file ``path`` given as setting ``name``; ValueError when it is
    missing, unreadable, or holds no ``marker`` (a PEM ``what`` block)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError(f"TLS {_setting(name)}: cannot read {path!r}: "
                         f"{e.strerror or e}") from None
    if marker not in data:
        raise ValueError(f"TLS {_setting(name)}: {path!r} holds no PEM {what}")
    return data


def _check_token(token):
    """The token as str; ValueError unless gRPC can send it as a header value."""
    if isinstance(token, bytes):
        try:
            token = token.decode("ascii")
        except UnicodeDecodeError:
            raise ValueError(f"{_setting('token')} must be printable ASCII") from None
    if not isinstance(token, str):
        raise TypeError(f"{_setting('token')} must be a str, not {type(token).__name__}")
    bad = [c for c in token if not " " <= c <= "~"]
    if bad:
        raise ValueError(f"{_setting('token')} must be printable ASCII (it holds {bad[0]!r}); "
                         "gRPC metadata cannot carry other characters")
    if token != token.strip():
        raise ValueError(f"{_setting('token')} must not begin or end with spaces")
    return token


class Security:
    """TLS files (PEM) and the shared token of one process's servers and channels.

    token: the shared secret; servers reject calls without it, clients send it.
    cert_file, key_file: the server's certificate chain and private key (TLS on for the
      server's port). Not encrypted (gRPC takes no passphrase).
    ca_file: the certificate clients verify servers against (TLS on for channels). Without
      it, a process with ``cert_file`` trusts its own certificate (one self-signed
      certificate shared by every task).
    target_name: the name the server certificate is checked against, when it differs from
      the host of the address (e.g. a certificate for "tideflow" used on 127.0.0.1).

    ``Security()`` with nothing set is plaintext with no token, whatever the environment says.
    """

    def __init__(self, token=None, cert_file=None, key_file=None, ca_file=None,
                 target_name=None):
        if (cert_file is None) != (key_file is None):
            missing, given = (("key_file", "cert_file") if key_file is None
                              else ("cert_file", "key_file"))
            raise ValueError(f"TLS needs both a certificate and its key: {_setting(given)} is "
                             f"set but {_setting(missing)} is not")
        self.token = _check_token(token).encode() if token else None
        self.cert_file = cert_file
        self.key_file = key_file
        self.ca_file = ca_file
        self.target_name = target_name
        self._cert = self._key = self._ca = None
        if cert_file is not None:
            self._cert = _read_pem("cert_file", cert_file, b"-----BEGIN CERTIFICATE-----",
                                   "certificate")
            self._key = _read_pem("key_file", key_file, b"PRIVATE KEY-----", "private key")
            try:  # the same checks gRPC makes when it binds, with a message that says which
                ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(
                    cert_file, key_file, password=b"")
            except ssl.SSLError as e:
                raise ValueError(
                    f"TLS {_setting('key_file')} {key_file!r} does not go with "
                    f"{_setting('cert_file')} {cert_file!r} (or is encrypted): "
                    f"{e.reason or e}") from None
        if ca_file is not None:
            self._ca = _read_pem("ca_file", ca_file, b"-----BEGIN CERTIFICATE-----",
                                 "certificate")
            try:
                ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=ca_file)
            except ssl.SSLError as e:
                raise ValueError(f"TLS {_setting('ca_file')} {ca_file!r} is not a valid "
                                 f"certificate: {e.reason or e}") from None

    @classmethod
    def from_env(cls):
        """The Security of TIDEFLOW_GRPC_* (``tideflow/env.py``), or None when none is set."""
        from tideflow import env

        s = env.grpc_security()
        if not any(s.values()):
            return None
        return cls(**s)

    @property
    def tls(self):
        """Whether channels made with these settings use TLS."""
        return self._ca is not None or self._cert is not None

    def __repr__(self):
        return (f"Security(token={'<set>' if self.token else None}, "
                f"cert_file={self.cert_file!r}, key_file={self.key_file!r}, "
                f"ca_file={self.ca_file!r}, target_name={self.target_name!r})")

    # -- client side ----------------------------------------------------------------------
    def metadata(self):
        """The metadata every call carries (the token, when set)."""
        return ((TOKEN_METADATA_KEY, self.token.decode()),) if self.token else ()

    def channel_credentials(self):
        import grpc

        return grpc.ssl_channel_credentials(root_certificates=self._ca or self._cert)

    def channel_options(self):
        if self.target_name:
            return [("grpc.ssl_target_name_override", self.target_name),
                    ("grpc.default_authority", self.target_name)]
        return []

    # -- server side ----------------------------------------------------------------------
    def server_credentials(self):
        import grpc

        return grpc.ssl_server_credentials([(self._key, self._cert)])

    def rejection(self, invocation_metadata):
        """None when a call with ``invocation_metadata`` may proceed, else why it may not."""
        if not self.token:
            return None
        for k, v in invocation_metadata or ():
            if k == TOKEN_METADATA_KEY:
                v = v.encode("utf-8", "replace") if isinstance(v, str) else bytes(v)
                if hmac.compare_digest(v, self.token):
                    return None
                return ("the call's tideflow token is wrong (it must equal the server's "
                        "TIDEFLOW_GRPC_TOKEN)")
        return (f"the call carries no tideflow token ({TOKEN_METADATA_KEY} metadata); set "
                "TIDEFLOW_GRPC_TOKEN to the cluster's shared secret")

    def authorized(self, invocation_metadata):
        """True when the call carries the token (always, when no token is set)."""
        return self.rejection(invocation_metadata) is None


def get_default():
    """The Security the environment sets (tideflow/env.py), or None."""
    return Security.from_env()
