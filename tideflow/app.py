"""``tf.app``: ``run`` and ``flags``, as in TF 1.x (built on absl.app).

Loaded on first use of ``tf.app`` so ``import tideflow`` does not import absl.
"""

import sys as _sys

from tideflow import flags


def _parse_flags_tolerate_undef(argv):
    # TF 1.x parses with known_only=True: flags nobody defined stay in the argv main receives
    return flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)


def run(main=None, argv=None):
    """Parses the flags from ``argv`` (default ``sys.argv``), then runs ``main(remaining_argv)``
    and exits with its return value (``main`` defaults to ``__main__.main``)."""
    from absl.app import run as _absl_run

    main = main or _sys.modules["__main__"].main
    _absl_run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)


__all__ = ["flags", "run"]
