"""Security of the distributed runtime: optional TLS for every channel and a shared-secret
token checked on every call (rejected with UNAUTHENTICATED).

A server runs any graph it is sent, so without both it must only listen where every peer is
trusted. Settings come from a :class:`Security` passed to ``Server``, or from the environment (``tideflow/env.py``: TIDEFLOW_GRPC_TOKEN, _CERT, _KEY, _CA).
"""

import hmac

TOKEN_METADATA_KEY = "x-tideflow-token"


def _read(path):
    with open(path, "rb") as f:
        return f.read()


class Security:
    """TLS files (PEM) and the shared token of one process's servers and channels.

    token: the shared secret; servers reject calls without it, clients send it.
    cert_file, key_file: the server's certificate chain and private key (TLS on).
    ca_file: the certificate clients verify servers against (TLS on for channels).
    target_name: the name the server certificate is checked against, when it differs from
      the host of the address (e.g. a certificate for "tideflow" used on 127.0.0.1).
    """

    def __init__(self, token=None, cert_file=None, key_file=None, ca_file=None,
                 target_name=None):
        if (cert_file is None) != (key_file is None):
            raise ValueError("TLS needs both cert_file and key_file")
        self.token = token.encode() if isinstance(token, str) else token
        self.cert_file = cert_file
        self.key_file = key_file
        self.ca_file = ca_file
        self.target_name = target_name

    @classmethod
    def from_env(cls):
        from tideflow import env

        s = env.grpc_security()
        if not any(s.values()):
            return None
        return cls(**s)

    @property
    def tls(self):
        return self.ca_file is not None or self.cert_file is not None

    # -- client side ----------------------------------------------------------------------
    def metadata(self):
        return ((TOKEN_METADATA_KEY, self.token.decode()),) if self.token else ()

    def channel_credentials(self):
        import grpc

        ca = _read(self.ca_file) if self.ca_file else (
            _read(self.cert_file) if self.cert_file else None)
        return grpc.ssl_channel_credentials(root_certificates=ca)

    def channel_options(self):
        if self.target_name:
            return [("grpc.ssl_target_name_override", self.target_name),
                    ("grpc.default_authority", self.target_name)]
        return []

    # -- server side ----------------------------------------------------------------------
    def server_credentials(self):
        import grpc

        return grpc.ssl_server_credentials([(_read(self.key_file), _read(self.cert_file))])

    def authorized(self, invocation_metadata):
        """True when the call carries the token (always, when no token is set)."""
        if not self.token:
            return True
        for k, v in invocation_metadata or ():
            if k == TOKEN_METADATA_KEY:
                v = v.encode() if isinstance(v, str) else v
                return hmac.compare_digest(v, self.token)
        return False


def get_default():
    """The Security the environment sets (tideflow/env.py), or None."""
    return Security.from_env()
