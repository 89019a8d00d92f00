"""``tf.flags`` / ``tf.app.flags``: absl's flags, as TF 1.x re-exported them.

Everything absl.flags exports is here under the same name (``DEFINE_string``, ``DEFINE_integer``,
``DEFINE_float``, ``DEFINE_boolean``/``DEFINE_bool``, ``DEFINE_list``, ``DEFINE_enum``,
``DEFINE_multi_string``, ``FlagValues``, the error classes, ...). Two TF 1.x differences are kept:

* ``FLAGS`` wraps absl's global ``FlagValues``: reading a flag before the command line was parsed
  parses ``sys.argv`` first, tolerating unknown flags (absl alone raises
  ``UnparsedFlagAccessError``), so module-level ``FLAGS.x`` works in scripts without ``app.run``.
* The ``DEFINE_*`` functions still take the old ``flag_name=`` keyword for ``name``.

This module is loaded on first use of ``tf.flags`` / ``tf.app``, so ``import tideflow`` does not
import absl.
"""

import functools
import sys
import warnings

# TF 1.x's tf.app imports absl.app, hence absl.logging and its flags (--log_dir, --logtostderr,
# --verbosity, ...), before a program defines its own: one redefining ``log_dir`` fails at its
# DEFINE with DuplicateFlagError as in TF, not later inside app.run with the blame reversed.
# ``import tensorflow`` also loads absl's test module (tf.test) and defines one flag of its
# own: a program listing every flag (``FLAGS.__flags``) sees all of them, and one defining a
# flag of the same name fails as under TF
import absl.app
import absl.flags as _absl_flags
import absl.logging
import absl.testing.absltest  # noqa: F401

if "op_conversion_fallback_to_while_loop" not in _absl_flags.FLAGS:
    _absl_flags.DEFINE_bool("op_conversion_fallback_to_while_loop", False,
                            "Whether pfor runs an op it cannot vectorise in a while loop.")

for _name in _absl_flags.__all__:
    globals()[_name] = getattr(_absl_flags, _name)

# the DEFINE_* wrappers below call absl from this module: absl then attributes each flag to the
# program that called the wrapper (its --help groups and DuplicateFlagError name the program)
from absl.flags import _helpers as _absl_helpers

_absl_helpers.disclaim_module_ids.add(id(sys.modules[__name__]))


def _accept_flag_name(define):
    @functools.wraps(define)
    def wrapper(*args, **kwargs):
        if "flag_name" in kwargs:
            if args or "name" in kwargs:
                raise TypeError(f"{define.__name__}() got both 'name' and 'flag_name'")
            warnings.warn("'flag_name' is deprecated, use 'name'", DeprecationWarning, 2)
            kwargs["name"] = kwargs.pop("flag_name")
        return define(*args, **kwargs)

    return wrapper


DEFINE_string = _accept_flag_name(_absl_flags.DEFINE_string)
DEFINE_boolean = _accept_flag_name(_absl_flags.DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _accept_flag_name(_absl_flags.DEFINE_float)
DEFINE_integer = _accept_flag_name(_absl_flags.DEFINE_integer)


class _FlagValuesWrapper:
    """absl's ``FLAGS`` that parses ``sys.argv`` (``known_only``) on the first read of a flag."""

    def __init__(self, flag_values):
        self.__dict__["_wrapped"] = flag_values

    def __getattr__(self, name):
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed() and not (name.startswith("__") and name.endswith("__")):
            wrapped(sys.argv, known_only=True)
        return getattr(wrapped, name)

    def __setattr__(self, name, value):
        setattr(self.__dict__["_wrapped"], name, value)

    def __delattr__(self, name):
        delattr(self.__dict__["_wrapped"], name)

    def __dir__(self):
        return dir(self.__dict__["_wrapped"])

    def __getitem__(self, name):
        return self.__dict__["_wrapped"][name]

    def __setitem__(self, name, flag):
        self.__dict__["_wrapped"][name] = flag

    def __contains__(self, name):
        return name in self.__dict__["_wrapped"]

    def __len__(self):
        return len(self.__dict__["_wrapped"])

    def __iter__(self):
        return iter(self.__dict__["_wrapped"])

    def __str__(self):
        return str(self.__dict__["_wrapped"])

    def __call__(self, *args, **kwargs):
        return self.__dict__["_wrapped"](*args, **kwargs)

    def _parse_flags(self, args=None):
        """TF <= 1.4's explicit parse: known flags of ``args`` (default ``sys.argv[1:]``) are set
        and the arguments left over are returned (without the program name)."""
        argv = sys.argv[:1] + list(sys.argv[1:] if args is None else args)
        return self.__dict__["_wrapped"](argv, known_only=True)[1:]


FLAGS = _FlagValuesWrapper(_absl_flags.FLAGS)
