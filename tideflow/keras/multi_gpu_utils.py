"""``tf.keras.utils.multi_gpu_model``: a model replicated on GPUs, each replica taking a slice
of the batch, the outputs concatenated on the CPU (TF 1.x's data parallelism for Keras)."""

from tideflow.framework import ops


def _available_devices():
    from tideflow.keras import backend as K

    names = [d.name for d in K.get_session().list_devices()]
    return ["/" + n.lower().split("device:")[1] for n in names]


def _get_slice(data, i, parts):
    """Rows ``[i * step, (i + 1) * step)`` of ``data`` (the last part takes the rest), where
    ``step = batch // parts``."""
    import tideflow as tf

    shape = tf.shape(data)
    batch_size = shape[:1]
    input_shape = shape[1:]
    step = batch_size // parts
    size = batch_size - step * i if i == parts - 1 else step
    size = tf.concat([size, input_shape], axis=0)
    stride = tf.concat([step, input_shape * 0], axis=0)
    return tf.slice(data, stride * i, size)


def multi_gpu_model(model, gpus, cpu_merge=True, cpu_relocation=False):
    """A model running ``model`` on ``gpus`` GPUs (a count, or a list of GPU ids), each on
    its slice of the batch; the outputs are concatenated on the CPU (``cpu_merge``)."""
    from tideflow.keras import backend as K
    from tideflow.keras import models
    from tideflow.keras.layers.core import Lambda
    from tideflow.keras.layers.other import concatenate

    if isinstance(gpus, (list, tuple)):
        if len(gpus) <= 1:
            raise ValueError("For multi-gpu usage to be effective, call `multi_gpu_model` with "
                             f"`len(gpus) >= 2`. Received: `gpus={gpus}`")
        num_gpus = len(gpus)
        target_gpu_ids = list(gpus)
    else:
        if gpus <= 1:
            raise ValueError("For multi-gpu usage to be effective, call `multi_gpu_model` with "
                             f"`gpus >= 2`. Received: `gpus={gpus}`")
        num_gpus = gpus
        target_gpu_ids = list(range(num_gpus))
    target_devices = ["/cpu:0"] + [f"/gpu:{i}" for i in target_gpu_ids]
    available = _available_devices()
    for device in target_devices:
        if device not in available:
            raise ValueError(f"To call `multi_gpu_model` with `gpus={gpus}`, we expect the "
                             f"following devices to be available: {target_devices}. However "
                             f"this machine only has: {available}. Try reducing `gpus`.")
    if cpu_relocation:
        with ops.device("/cpu:0"):
            model = models.clone_model(model)
    all_outputs = [[] for _ in model.outputs]
    for i, gpu_id in enumerate(target_gpu_ids):
        with ops.device(f"/gpu:{gpu_id}"), K.name_scope(f"replica_{gpu_id}"):
            inputs = []
            for x in model.inputs:
                shape = tuple(x.shape.as_list())[1:]
                inputs.append(Lambda(_get_slice, output_shape=shape,
                                     arguments={"i": i, "parts": num_gpus})(x))
            outputs = model(inputs if len(inputs) > 1 else inputs[0])
            if not isinstance(outputs, list):
                outputs = [outputs]
            for o, out in enumerate(outputs):
                all_outputs[o].append(out)
    # outputs that share a name (a Siamese network) get _1, _2, ...
    counts = {}
    for n in model.output_names:
        counts[n] = counts.get(n, 0) + 1
    seen = {n: 0 for n, c in counts.items() if c > 1}
    names = []
    for n in model.output_names:
        if n in seen:
            seen[n] += 1
            n = f"{n}_{seen[n]}"
        names.append(n)
    with ops.device("/cpu:0" if cpu_merge else f"/gpu:{target_gpu_ids[0]}"):
        merged = [concatenate(outs, axis=0, name=name) for name, outs in zip(names, all_outputs)]
        return models.Model(model.inputs, merged)
