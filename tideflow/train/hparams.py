"""``tf.contrib.training.HParams``: named hyperparameters with typed overrides from a
``"name=value,list=[1,2],arr[3]=5"`` string (``parse_values``), a dict, JSON or an
``HParamDef`` proto.

Values follow TF 1.x's rules: a string is parsed by the parameter's type (``int('1.0')``
fails; a bool takes ``true``/``True``/``false``/``False`` or an integer), and values set
directly are cast only where no meaning is lost (an int may become a float; a float never an
int, a bool never a number, a number never a string); a parameter whose value was ``None``
takes anything."""

import json
import numbers
import re

_PARAM = re.compile(r"(?P<name>[a-zA-Z][\w.]*)(\[\s*(?P<index>\d+)\s*\])?\s*=\s*"
                    r"((?P<val>[^,\[]*)|\[(?P<vals>[^\]]*)\])($|,\s*)")


def _parse_fail(name, var_type, value, values):
    raise ValueError(f"Could not parse hparam '{name}' of type '{var_type.__name__}' with "
                     f"value '{value}' in {values}")


def _reuse_fail(name, values):
    raise ValueError(f"Multiple assignments to variable '{name}' in {values}")


def _bool_parser(name, values):
    def parse(text):
        if text in ("true", "True"):
            return True
        if text in ("false", "False"):
            return False
        try:
            return bool(int(text))
        except ValueError:
            _parse_fail(name, bool, text, values)
    return parse


def parse_values(values, type_map, ignore_unknown=False):
    """``{name: value}`` from ``"a=1,b=[2,3],c[4]=5"``, each value parsed by
    ``type_map[name]``; ``name[i]=v`` assignments collect into ``{name: {i: v}}``. Names
    missing from ``type_map`` raise ValueError unless ``ignore_unknown``."""
    result = {}
    pos = 0
    while pos < len(values):
        m = _PARAM.match(values, pos)
        if not m:
            raise ValueError(f"Malformed hyperparameter value: {values[pos:]}")
        pos = m.end()
        name, index = m.group("name"), m.group("index")
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError(f"Unknown hyperparameter type for {name}")
        kind = type_map[name]
        parse = _bool_parser(name, values) if kind is bool else kind
        val, vals = m.group("val"), m.group("vals")
        if val is not None:
            try:
                parsed = parse(val)
            except ValueError:
                _parse_fail(name, kind, val, values)
            if index is None:
                if name in result:
                    _reuse_fail(name, values)
                result[name] = parsed
            else:
                slots = result.setdefault(name, {})
                if not isinstance(slots, dict):
                    _reuse_fail(name, values)
                if int(index) in slots:
                    _reuse_fail(f"{name}[{int(index)}]", values)
                slots[int(index)] = parsed
        elif vals is not None:
            if index is not None:
                raise ValueError("Assignment of a list to a list index.")
            if name in result:
                _reuse_fail(name, values)
            try:
                result[name] = [parse(e) for e in re.split("[ ,]", vals) if e]
            except ValueError:
                _parse_fail(name, kind, vals, values)
        else:
            _parse_fail(name, kind, "", values)
    return result


def _cast_to_type_if_compatible(name, param_type, value):
    """``value`` as ``param_type`` where that loses nothing, else ValueError."""
    if type(value) is param_type or issubclass(param_type, type(None)):
        return value
    lossy = ((issubclass(param_type, str | bytes) and not isinstance(value, str | bytes))
             or issubclass(param_type, bool) != isinstance(value, bool)
             or (issubclass(param_type, numbers.Integral)
                 and not isinstance(value, numbers.Integral))
             or (issubclass(param_type, numbers.Number)
                 and not isinstance(value, numbers.Number)))
    if lossy:  # TF 1.x raises ValueError here, not TypeError
        raise ValueError(f"Could not cast hparam '{name}' of type '{param_type}' from value "
                         f"{value!r}")
    return param_type(value)


# HParamDef value kinds: (scalar field, list field) by Python type; bool before int.
_PROTO_KINDS = ((bool, "bool_value", "bool_list"), (int, "int64_value", "int64_list"),
                (float, "float_value", "float_list"), (str, "bytes_value", "bytes_list"),
                (bytes, "bytes_value", "bytes_list"))


class HParams:
    """Hyperparameters as attributes; ``parse``, ``override_from_dict``, ``values``, JSON,
    ``to_proto``."""

    _HAS_DYNAMIC_ATTRIBUTES = True

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        self._hparam_types = {}
        self._model_structure = model_structure
        if hparam_def:
            self._init_from_proto(hparam_def)
            if kwargs:
                raise ValueError("hparam_def and initialization values are mutually exclusive")
        else:
            for name, value in kwargs.items():
                self.add_hparam(name, value)

    def _init_from_proto(self, hparam_def):
        from tideflow.protos import hparam_pb2

        assert isinstance(hparam_def, hparam_pb2.HParamDef), (
            f"hparam_def must be an HParamDef proto, got {type(hparam_def).__name__}")
        for name in sorted(hparam_def.hparam):
            entry = hparam_def.hparam[name]
            kind = entry.WhichOneof("kind")
            if kind is None:
                continue
            if kind.endswith("_list"):
                value = list(getattr(entry, kind).value)
                if kind == "bytes_list":
                    value = [v.decode("utf-8") for v in value]
            else:
                value = getattr(entry, kind)
                if kind == "bytes_value":
                    value = value.decode("utf-8")
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
        """Sets an existing hyperparameter (KeyError if unknown), casting ``value`` to its type
        where that loses nothing."""
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast_to_type_if_compatible(name, param_type, v)
                                 for v in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast_to_type_if_compatible(name, param_type, value))

    def del_hparam(self, name):
        """Removes ``name`` (nothing if it does not exist)."""
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Overrides from ``"a=1,b=[1,2],c=text"``; the values take each parameter's type."""
        type_map = {name: kind for name, (kind, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, type_map))

    def override_from_dict(self, values_dict):
        """Sets each ``name: value`` of ``values_dict``."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_from_map(self, values_map):
        """Deprecated spelling of ``override_from_dict``."""
        return self.override_from_dict(values_map)

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False):
        """The hyperparameters as a JSON object (callable values left out)."""
        def plain(x):
            if isinstance(x, dict):
                return {k: plain(v) for k, v in x.items() if not callable(v)}
            if isinstance(x, list):
                return [plain(v) for v in x if not callable(v)]
            return x
        return json.dumps(plain(self.values()), indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def parse_json(self, values_json):
        """Overrides from a JSON object."""
        return self.override_from_dict(json.loads(values_json))

    def values(self):
        """``{name: value}``."""
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key, default=None):
        """The value of ``key`` (ValueError when ``default`` could not be of its type), or
        ``default`` when absent."""
        if key in self._hparam_types:
            if default is not None:
                param_type, is_list = self._hparam_types[key]
                type_str = f"list<{param_type}>" if is_list else str(param_type)
                fail = f"Hparam '{key}' of type '{type_str}' is incompatible with default={default}"
                if is_list != isinstance(default, list):
                    raise ValueError(fail)
                try:
                    for value in default if is_list else [default]:
                        _cast_to_type_if_compatible(key, param_type, value)
                except ValueError as e:
                    raise ValueError(f"{fail}. {e}") from None
            return getattr(self, key)
        return default

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return ",".join(f"{k}={v}" for k, v in self.values().items())

    def __repr__(self):
        return f"{type(self).__name__}({sorted(self.values().items())})"

    def to_proto(self, export_scope=None):
        """The hyperparameters as an ``HParamDef`` (bool, int, float and str values and lists
        of them; others are left out)."""
        del export_scope
        from tideflow.protos import hparam_pb2

        hparam_def = hparam_pb2.HParamDef()
        for name, (param_type, is_list) in self._hparam_types.items():
            value = getattr(self, name)
            for kind, scalar_field, list_field in _PROTO_KINDS:
                if issubclass(param_type, kind):
                    break
            else:
                continue
            entry = hparam_def.hparam[name]
            if is_list:
                items = [v.encode("utf-8") if isinstance(v, str) else v for v in value]
                getattr(entry, list_field).value.extend(items)
            else:
                setattr(entry, scalar_field,
                        value.encode("utf-8") if isinstance(value, str) else value)
        return hparam_def

    @staticmethod
    def from_proto(hparam_def, import_scope=None):
        del import_scope
        return HParams(hparam_def=hparam_def)
