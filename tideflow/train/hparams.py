"""``tf.contrib.training.HParams``: named hyperparameters with typed overrides from a
``"name=value,list=[1,2]"`` string, a dict or JSON."""

import json
import re

_PARAM = re.compile(r"\s*(?P<name>[a-zA-Z][\w.]*)\s*(?P<index>\[\s*(\d+)\s*\])?\s*=\s*"
                    r"((?P<val>[^,\[]*)|\[(?P<vals>[^\]]*)\])\s*(,|$)")


def _cast_bool(name, value):
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"Could not parse hparam {name!r} as a bool: {value!r}")


def _cast(name, kind, value):
    """``value`` converted to the type ``kind`` of the existing hyperparameter."""
    if kind is bool:
        return _cast_bool(name, value)
    if kind is int:
        if isinstance(value, bool):
            raise ValueError(f"Could not cast hparam {name!r} of type int from a bool {value!r}")
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError as e:
                raise ValueError(f"Could not parse hparam {name!r} of type int: {value!r}") \
                    from e
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"Could not cast hparam {name!r} of type int from the float "
                                 f"{value!r}")
            return int(value)
        if isinstance(value, int):
            return value
    if kind is float:
        if isinstance(value, bool):
            raise ValueError(f"Could not cast hparam {name!r} of type float from a bool")
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError as e:
                raise ValueError(f"Could not parse hparam {name!r} of type float: {value!r}") \
                    from e
        if isinstance(value, int | float):
            return float(value)
    if kind is str:
        if isinstance(value, str):
            return value
        raise ValueError(f"Could not cast hparam {name!r} of type str from {value!r}")
    if kind is type(None) or kind is None:
        return value
    raise ValueError(f"Could not cast hparam {name!r} of type {kind.__name__} from {value!r}")


class HParams:
    """Hyperparameters as attributes; ``parse``, ``override_from_dict``, ``values``, JSON."""

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        if hparam_def is not None:
            raise ValueError("hparam_def protos are not supported by tideflow; pass keyword "
                             "arguments")
        self._hparam_types = {}
        self._model_structure = model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        """Adds ``name`` with ``value``; ValueError if it exists or clashes with a method."""
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, list | tuple):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name, value):
        """Sets an existing hyperparameter, converting ``value`` to its type."""
        if name not in self._hparam_types:
            raise KeyError(f"Unknown hyperparameter: {name}")
        kind, is_list = self._hparam_types[name]
        if isinstance(value, list | tuple):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast(name, kind, v) for v in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast(name, kind, value))

    def del_hparam(self, name):
        """Removes ``name``."""
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Overrides from ``"a=1,b=[1,2],c=text"``; the values take each parameter's type."""
        updates = {}
        pos = 0
        values = values or ""
        while pos < len(values):
            m = _PARAM.match(values, pos)
            if m is None:
                raise ValueError(f"Malformed hyperparameter value: {values[pos:]!r}")
            pos = m.end()
            name = m.group("name")
            if name not in self._hparam_types:
                raise ValueError(f"Unknown hyperparameter type for {name}")
            if name in updates:
                raise ValueError(f"Multiple assignments to variable '{name}' in {values}")
            kind, is_list = self._hparam_types[name]
            if m.group("vals") is not None:
                if not is_list:
                    raise ValueError(f"Must not pass a list for single-valued parameter: "
                                     f"{name}")
                items = [v for v in m.group("vals").split(",") if v.strip()]
                updates[name] = [_cast(name, kind, v.strip()) for v in items]
            else:
                raw = m.group("val").strip()
                if is_list:
                    raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
                updates[name] = _cast(name, kind, raw)
        for name, value in updates.items():
            setattr(self, name, value)
        return self

    def override_from_dict(self, values_dict):
        """Sets each ``name: value`` of ``values_dict``."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False):
        """The hyperparameters as a JSON object."""
        return json.dumps(self.values(), indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def parse_json(self, values_json):
        """Overrides from a JSON object."""
        return self.override_from_dict(json.loads(values_json))

    def values(self):
        """``{name: value}``."""
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key, default=None):
        """The value of ``key``, or ``default`` (type-checked against it) when absent."""
        if key in self._hparam_types:
            if default is not None:
                is_list = self._hparam_types[key][1]
                if is_list != isinstance(default, list | tuple):
                    raise ValueError(f"Hparam '{key}' has a different list-ness than the "
                                     f"default {default!r}")
            return getattr(self, key)
        return default

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return str(sorted(self.values().items()))

    def __repr__(self):
        return f"{type(self).__name__}({self})"
