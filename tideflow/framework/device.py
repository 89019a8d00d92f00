"""Device names: ``DeviceSpec`` parsing and merging in the 0.8 and the 1.x forms."""




class DeviceSpec:
    """A (possibly partial) device: job, replica, task, device type and index.

    Parses ``/job:ps/task:0/cpu:0``, ``/gpu:1``, ``/job:worker/replica:0/task:1/device:CPU:0``
    and ``/device:GPU:*``; ``to_string()`` gives the 1.x form.
    """

    __slots__ = ("device_index", "device_type", "job", "replica", "task")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = replica
        self.task = task
        self.device_type = device_type
        self.device_index = device_index

    def __setattr__(self, name, value):
        # as TF's DeviceSpecV1 setters: numbers become ints, the job a str, cpu/gpu upper case
        if value is not None:
            if name == "job":
                value = str(value)
            elif name == "device_type":
                value = _canon_type(value)
            else:
                value = int(value)
        object.__setattr__(self, name, value)

    def _clear(self):
        self.job = self.replica = self.task = self.device_type = self.device_index = None

    def parse_from_string(self, spec):
        """Sets the fields named in ``spec``; raises ValueError for a malformed string.

        As TF 1.15: each ``/``-part is ``job:x``, ``replica:n``, ``task:n``, ``cpu``/``gpu``
        with an optional index, or ``device:TYPE:index``; a bad number raises int()'s error."""
        self._clear()
        for part in (spec or "").split("/"):
            y = part.split(":")
            n, key = len(y), y[0]
            if n == 2 and key in ("job", "replica", "task"):
                if key == "job":
                    self.job = y[1]
                else:
                    setattr(self, key, int(y[1]))
            elif n <= 2 and key.upper() in ("CPU", "GPU"):
                self._set_type(key.upper(), y[1] if n == 2 else "*", spec)
            elif n == 3 and key == "device":
                self._set_type(_canon_type(y[1]), y[2], spec)
            elif key:
                raise ValueError(f"Unknown attribute: '{key}' in '{spec}'")
        return self

    def _set_type(self, typ, index, spec):
        if self.device_type is not None:
            raise ValueError(f"Cannot specify multiple device types: {spec}")
        self.device_type = typ
        self.device_index = None if index == "*" else int(index)

    @classmethod
    def from_string(cls, spec):
        return cls().parse_from_string(spec)

    def merge_from(self, dev):
        """Overwrites this spec's fields with those set in ``dev`` (returns None, as TF)."""
        for f in DeviceSpec.__slots__:
            v = getattr(dev, f)
            if v is not None:
                setattr(self, f, v)

    def make_merged_spec(self, dev):
        merged = self.copy()
        merged.merge_from(dev)
        return merged

    def replace(self, **kwargs):
        d = self.copy()
        for k, v in kwargs.items():
            setattr(d, k, v)
        return d

    def copy(self):
        return DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index)

    def to_string(self):
        out = []
        if self.job is not None:
            out.append(f"/job:{self.job}")
        if self.replica is not None:
            out.append(f"/replica:{self.replica}")
        if self.task is not None:
            out.append(f"/task:{self.task}")
        if self.device_type is not None:
            idx = "*" if self.device_index is None else self.device_index
            out.append(f"/device:{self.device_type}:{idx}")
        return "".join(out)

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"DeviceSpec({self.to_string()!r})"

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def is_compatible_with(self, other):
        """True when no field set in both specs disagrees."""
        for f in DeviceSpec.__slots__:
            a, b = getattr(self, f), getattr(other, f)
            if a is not None and b is not None and a != b:
                return False
        return True


def _canon_type(typ):
    return typ.upper() if typ.lower() in ("cpu", "gpu") else typ


_CANON_CACHE = {}


def check_valid(spec):
    """Raises ValueError unless ``spec`` parses as a device string."""
    DeviceSpec.from_string(spec)


def is_device_spec(obj):
    """Whether ``obj`` is a DeviceSpec."""
    return isinstance(obj, DeviceSpec)


def canonical_name(spec):
    """The 1.x string form of a device string, a DeviceSpec or None (cached per string)."""
    if spec is None:
        return ""
    if isinstance(spec, DeviceSpec):
        return spec.to_string()
    out = _CANON_CACHE.get(spec)
    if out is None:
        out = DeviceSpec.from_string(spec).to_string()
        if len(_CANON_CACHE) < 10000:
            _CANON_CACHE[spec] = out
    return out


_FUNCTION = object()


def merge_device(outer, inner=_FUNCTION):
    """The device an op gets when ``inner`` is requested inside an ``outer`` device scope.
    With one argument, TF's ``merge_device(spec)``: a device function that fills the fields
    an op's device leaves unset from ``spec``."""
    if inner is _FUNCTION:
        spec = outer.to_string() if isinstance(outer, DeviceSpec) else (outer or "")

        def _device_function(node_def):
            # as TF's MergeDevice: the merged DeviceSpec (tf.device takes it as its string)
            return DeviceSpec.from_string(merge_device(spec, node_def.device or ""))

        return _device_function
    if not outer:
        return canonical_name(inner)
    if not inner:
        return canonical_name(outer)
    return DeviceSpec.from_string(outer).make_merged_spec(DeviceSpec.from_string(inner)).to_string()
