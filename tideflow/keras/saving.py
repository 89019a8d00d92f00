"""Saving whole models and HDF5 weights. HDF5 needs ``h5py``, which this environment may not
have: then these raise ImportError saying so (``save_weights`` to a path not ending in ``.h5``
writes a TF checkpoint instead, which needs nothing)."""


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ImportError("Saving or loading HDF5 (.h5) files requires h5py, which is not "
                          "installed. Use model.save_weights('path/ckpt') (TF checkpoint "
                          "format) instead.") from None
    return h5py


def save_weights_to_hdf5(model, filepath):
    h5py = _h5py()
    import numpy as np

    from tideflow.keras import backend as K

    with h5py.File(filepath, "w") as f:
        f.attrs["layer_names"] = [la.name.encode("utf8") for la in model.layers]
        for layer in model.layers:
            g = f.create_group(layer.name)
            weights = layer.weights
            values = K.batch_get_value(weights)
            g.attrs["weight_names"] = [w.name.encode("utf8") for w in weights]
            for w, v in zip(weights, values):
                g.create_dataset(w.name, data=np.asarray(v))


def load_weights_from_hdf5(model, filepath, by_name=False):
    h5py = _h5py()
    import numpy as np

    from tideflow.keras import backend as K

    with h5py.File(filepath, "r") as f:
        names = [n.decode("utf8") for n in f.attrs["layer_names"]]
        layers = [la for la in model.layers if la.weights]
        tuples = []
        if by_name:
            index = {la.name: la for la in layers}
            pairs = [(index[n], f[n]) for n in names if n in index]
        else:
            stored = [n for n in names if len(f[n].attrs["weight_names"])]
            if len(stored) != len(layers):
                raise ValueError(f"You are trying to load a weight file containing "
                                 f"{len(stored)} layers into a model with {len(layers)} "
                                 "layers.")
            pairs = [(la, f[n]) for la, n in zip(layers, stored)]
        for layer, g in pairs:
            wnames = [n.decode("utf8") for n in g.attrs["weight_names"]]
            for w, n in zip(layer.weights, wnames):
                tuples.append((w, np.asarray(g[n])))
        K.batch_set_value(tuples)


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None):
    """Saves a model to HDF5 (needs h5py)."""
    _h5py()
    raise NotImplementedError("save_model to HDF5 is not supported yet; use save_weights.")


def load_model(filepath, custom_objects=None, compile=True):
    """Loads a model saved by ``save_model`` (HDF5; needs h5py)."""
    _h5py()
    raise NotImplementedError("load_model from HDF5 is not supported yet; use load_weights.")
