"""``tf.keras.callbacks``: hooks called by ``fit`` at the start and end of training, epochs
and batches (History, EarlyStopping, ModelCheckpoint, LearningRateScheduler,
ReduceLROnPlateau, LambdaCallback, TerminateOnNaN, CSVLogger, TensorBoard...)."""

import collections
import csv
import os
import re

import numpy as np

from tideflow.keras import backend as K


class Callback:
    """Base class: override the ``on_*`` methods; ``self.model`` and ``self.params`` are set by
    ``fit``."""

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_batch_begin(self, batch, logs=None):
        pass

    def on_batch_end(self, batch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    # evaluate / predict (and fit's validation passes) call these, as TF 1.x
    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        pass

    def on_predict_batch_end(self, batch, logs=None):
        pass


_MODE_HOOKS = ("on_test_begin", "on_test_end", "on_predict_begin", "on_predict_end")
_MODE_BATCH_HOOKS = ("on_test_batch_begin", "on_test_batch_end", "on_predict_batch_begin",
                     "on_predict_batch_end")


class CallbackList:
    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])

    def append(self, callback):
        self.callbacks.append(callback)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def on_epoch_begin(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        for c in self.callbacks:
            c.on_epoch_begin(epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        for c in self.callbacks:
            c.on_epoch_end(epoch, logs)

    def on_batch_begin(self, batch, logs=None):
        logs = logs if logs is not None else {}
        for c in self.callbacks:
            c.on_train_batch_begin(batch, logs)

    def on_batch_end(self, batch, logs=None):
        logs = logs if logs is not None else {}
        for c in self.callbacks:
            c.on_train_batch_end(batch, logs)

    # (as TF 1.15: the begin and end hooks get ``logs`` as given, None from fit)
    def on_train_begin(self, logs=None):
        for c in self.callbacks:
            c.on_train_begin(logs)

    def on_train_end(self, logs=None):
        for c in self.callbacks:
            c.on_train_end(logs)

    def __getattr__(self, name):
        # the evaluate/predict hooks, on the callbacks that have them
        if name in _MODE_HOOKS:
            def hook(logs=None):
                for c in self.callbacks:
                    fn = getattr(c, name, None)
                    if fn is not None:
                        fn(logs)
            return hook
        if name in _MODE_BATCH_HOOKS:
            def batch_hook(batch, logs=None):
                for c in self.callbacks:
                    fn = getattr(c, name, None)
                    if fn is not None:
                        fn(batch, logs if logs is not None else {})
            return batch_hook
        raise AttributeError(name)


class BaseLogger(Callback):
    """Averages the batch values of the metrics over each epoch (weighted by batch size) into
    the epoch's logs; a metric named in ``stateful_metrics`` keeps its last batch value."""

    def __init__(self, stateful_metrics=None):
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])

    def on_epoch_begin(self, epoch, logs=None):
        self.seen = 0
        self.totals = {}

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        size = logs.get("size", 0)
        self.seen += size
        for k, v in logs.items():
            if k in ("batch", "size"):
                continue
            if k in self.stateful_metrics:
                self.totals[k] = v
            else:
                self.totals[k] = self.totals.get(k, 0.0) + v * size

    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        for k in self.params.get("metrics", []):
            if k in self.totals and self.seen:
                logs[k] = (self.totals[k] if k in self.stateful_metrics
                           else self.totals[k] / self.seen)


class History(Callback):
    """Records the epoch logs: ``history.history['loss']`` is the list of epoch losses."""

    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)


class ProgbarLogger(Callback):
    """Prints ``Epoch i/n`` and a progress bar per epoch (``utils.Progbar``: verbose=1 a
    redrawn bar, 2 one line per epoch), counting samples, or steps (``count_mode="steps"``:
    fed by generators or datasets)."""

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super().__init__()
        if count_mode not in ("samples", "steps"):
            raise ValueError(f"Unknown `count_mode`: {count_mode}")
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics or ())
        self._fix_unknown_target = True  # (fit: a dataset of unknown length, once counted)

    def on_train_begin(self, logs=None):
        self.verbose = self.params.get("verbose", 1)
        self.epochs = self.params.get("epochs", 1)

    def on_epoch_begin(self, epoch, logs=None):
        from tideflow.keras.utils import Progbar

        self.seen = 0
        self.target = self.params.get("steps" if self.use_steps else "samples")
        if self.verbose and self.epochs > 1:  # as TF 1.15: no "Epoch 1/1" line
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.progbar = Progbar(target=self.target, verbose=self.verbose,
                               stateful_metrics=self.stateful_metrics,
                               unit_name="step" if self.use_steps else "sample")

    def on_batch_begin(self, batch, logs=None):
        self.log_values = []

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        self.seen += logs.get("num_steps", 1) * (1 if self.use_steps else logs.get("size", 0))
        self.log_values = getattr(self, "log_values", [])
        for k in self.params.get("metrics", []):
            if k in logs:
                self.log_values.append((k, logs[k]))
        if self.verbose and (self.target is None or self.seen < self.target):
            self.progbar.update(self.seen, self.log_values)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.target is None and self.seen and self._fix_unknown_target:
            # as TF: a dataset of unknown length counted its steps in this epoch
            self.target = self.progbar.target = self.seen
            self.params["steps"] = self.seen
        self.log_values = getattr(self, "log_values", [])
        for k in self.params.get("metrics", []):
            if k in logs:
                self.log_values.append((k, logs[k]))
        if self.verbose:
            self.progbar.update(self.seen, self.log_values)


def _warn(message, *args):
    """A warning through ``tf.logging``, as TF 1.15's callbacks give theirs (so the logging
    verbosity silences them)."""
    from tideflow import logging as tf_logging

    tf_logging.warning(message, *args)


def _monitor_op(mode, monitor, who=None):
    if mode not in ("auto", "min", "max"):
        if who is not None:
            _warn("%s mode %s is unknown, fallback to auto mode.", who, mode)
        mode = "auto"
    if mode == "min":
        return np.less
    if mode == "max":
        return np.greater
    if "acc" in monitor or monitor.startswith("fmeasure"):
        return np.greater
    return np.less


class EarlyStopping(Callback):
    """Stops training when ``monitor`` has not improved by ``min_delta`` for ``patience``
    epochs; optionally restores the best epoch's weights."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.monitor_op = _monitor_op(mode, monitor, "EarlyStopping")
        if self.monitor_op == np.less:
            self.min_delta *= -1
        self.wait = 0
        self.stopped_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op == np.less else -np.inf

    def get_monitor_value(self, logs):
        """The monitored value of ``logs`` (None, with a warning, when it is missing)."""
        logs = logs or {}
        current = logs.get(self.monitor)
        if current is None:
            _warn("Early stopping conditioned on metric `%s` which is not available. "
                  "Available metrics are: %s", self.monitor, ",".join(logs.keys()))
        return current

    def on_epoch_end(self, epoch, logs=None):
        current = self.get_monitor_value(logs)
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                if self.restore_best_weights and self.best_weights is not None:
                    if self.verbose > 0:
                        print("Restoring model weights from the end of the best epoch.")
                    self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")


class ModelCheckpoint(Callback):
    """Saves the model (or its weights) to ``filepath``, which may hold ``{epoch:02d}`` and
    log keys (``{val_loss:.2f}``): after each ``period`` epochs (``save_freq='epoch'``) or
    each time ``save_freq`` more samples were trained on (an int). With
    ``load_weights_on_restart``, training starts from the newest file matching the path."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch", **kwargs):
        super().__init__()
        # (TF 1.15's deprecated keywords, with its warnings)
        load_weights_on_restart = kwargs.get("load_weights_on_restart", False)
        if "load_weights_on_restart" in kwargs:
            _warn("`load_weights_on_restart` argument is deprecated. Please use "
                  "`model.load_weights()` for loading weights before the start of "
                  "`model.fit()`.")
        period = kwargs.get("period", 1)
        if "period" in kwargs:
            _warn("`period` argument is deprecated. Please use `save_freq` to specify the "
                  "frequency in number of samples seen.")
        self.filepath = filepath
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}")
        self.save_freq = save_freq
        self.period = period
        self.load_weights_on_restart = load_weights_on_restart
        self.epochs_since_last_save = 0
        self._samples_seen_since_last_saving = 0
        self._current_epoch = 0
        self.monitor_op = _monitor_op(mode, monitor, "ModelCheckpoint")
        self.best = np.inf if self.monitor_op == np.less else -np.inf

    def set_model(self, model):
        self.model = model
        # as TF 1.15: a subclassed model cannot be saved whole to HDF5, so its weights are
        if (not self.save_weights_only and not getattr(model, "_is_graph_network", False)
                and type(model).__name__ != "Sequential"):
            self.save_weights_only = True

    def on_train_begin(self, logs=None):
        if not self.load_weights_on_restart:
            return
        path = self._get_most_recently_modified_file_matching_pattern(self.filepath)
        if path is not None and os.path.exists(path):
            try:
                self.model.load_weights(path)
            except (OSError, ValueError) as e:
                raise ValueError(f"Error loading file from {path}. Reason: {e}") from None

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_batch_end(self, batch, logs=None):
        if isinstance(self.save_freq, int):
            logs = logs or {}
            self._samples_seen_since_last_saving += logs.get("size", 1)
            if self._samples_seen_since_last_saving >= self.save_freq:
                self._save_model(self._current_epoch, logs)
                self._samples_seen_since_last_saving = 0

    def on_epoch_end(self, epoch, logs=None):
        self.epochs_since_last_save += 1
        if self.save_freq == "epoch" and self.epochs_since_last_save >= self.period:
            self._save_model(epoch, logs or {})

    def _get_file_handle_and_path(self, epoch, logs):
        """``(None, path)``: the path for ``epoch`` (one worker writes it; TF 1.x's subclasses
        override ``_save_model`` around this and ``_maybe_remove_file``)."""
        # (a key the logs lack is str.format's own KeyError, as TF 1.15's)
        return None, self.filepath.format(epoch=epoch + 1, **logs)

    def _maybe_remove_file(self, file_handle, filepath):
        """Closes and removes a temporary file ``_get_file_handle_and_path`` made (none here)."""
        if file_handle is not None:
            os.close(file_handle)
            os.remove(filepath)

    def _save_model(self, epoch, logs):
        self.epochs_since_last_save = 0
        file_handle, filepath = self._get_file_handle_and_path(epoch, logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                _warn("Can save best model only with %s available, skipping.", self.monitor)
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1:05d}: {self.monitor} did not improve from "
                          f"{self.best:.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1:05d}: {self.monitor} improved from {self.best:.5f} "
                      f"to {current:.5f}, saving model to {filepath}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: saving model to {filepath}")
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)
        self._maybe_remove_file(file_handle, filepath)

    def _get_most_recently_modified_file_matching_pattern(self, pattern):
        """The newest file whose name matches ``pattern`` (its ``{...}`` fields as wildcards);
        among files of the same newest time, the largest name. None when nothing matches."""
        directory, base = os.path.split(pattern)
        regex = "^" + re.sub(r"{.*}", r".*", base) + "$"
        newest, newest_time, ties, largest = None, 0, 0, None
        if os.path.isdir(directory or "."):
            for name in os.listdir(directory or "."):
                if not re.match(regex, name):
                    continue
                path = os.path.join(directory, name)
                mtime = os.path.getmtime(path)
                if largest is None or path > largest:
                    largest = path
                if mtime > newest_time:
                    newest, newest_time, ties = path, mtime, 1
                elif mtime == newest_time:
                    ties += 1
        return newest if ties == 1 else largest


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to ``schedule(epoch)`` (or
    ``schedule(epoch, lr)``) at the start of each epoch."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "lr"):
            raise ValueError('Optimizer must have a "lr" attribute.')
        try:
            lr = float(K.get_value(optimizer.lr))
            lr = self.schedule(epoch, lr)
        except TypeError:
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.float32, np.float64)):  # (as TF 1.15: not an int)
            raise ValueError('The output of the "schedule" function should be float.')  # noqa: TRY004
        K.set_value(optimizer.lr, float(lr))
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: LearningRateScheduler reducing learning rate to "
                  f"{lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = K.get_value(self.model.optimizer.lr)  # np.float32, as TF


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` stops improving for
    ``patience`` epochs (not below ``min_lr``)."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        if "epsilon" in kwargs:  # Keras 1's name, as TF 1.15 (with its warning)
            from tideflow import logging as tf_logging

            min_delta = kwargs.pop("epsilon")
            tf_logging.warning("`epsilon` argument is deprecated and will be removed, use "
                               "`min_delta` instead.")
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor, self.factor, self.patience = monitor, factor, patience
        self.verbose, self.min_delta, self.cooldown, self.min_lr = (verbose, min_delta,
                                                                     cooldown, min_lr)
        self.mode = mode
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            _warn("Learning Rate Plateau Reducing mode %s is unknown, fallback to auto mode.",
                  self.mode)
            self.mode = "auto"
        # (as TF 1.15: 'auto' maximizes a monitor naming 'acc', no other)
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = K.get_value(self.model.optimizer.lr)  # np.float32, as TF
        current = logs.get(self.monitor)
        if current is None:
            _warn("Reduce LR on plateau conditioned on metric `%s` which is not available. "
                  "Available metrics are: %s", self.monitor, ",".join(logs.keys()))
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old = float(K.get_value(self.model.optimizer.lr))
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    K.set_value(self.model.optimizer.lr, new)
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1:05d}: ReduceLROnPlateau reducing learning "
                              f"rate to {new}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


    def in_cooldown(self):
        return self.cooldown_counter > 0


class LambdaCallback(Callback):
    """A callback from functions: ``on_epoch_begin(epoch, logs)``, ``on_epoch_end``,
    ``on_batch_begin(batch, logs)``, ``on_batch_end``, ``on_train_begin(logs)``,
    ``on_train_end``."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        noop2 = lambda a, logs: None
        noop1 = lambda logs: None
        self.on_epoch_begin = on_epoch_begin or noop2
        self.on_epoch_end = on_epoch_end or noop2
        self.on_batch_begin = on_batch_begin or noop2
        self.on_batch_end = on_batch_end or noop2
        self.on_train_begin = on_train_begin or noop1
        self.on_train_end = on_train_end or noop1


class TerminateOnNaN(Callback):
    """Stops training when a batch loss is NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class CSVLogger(Callback):
    """Writes one CSV row of epoch logs per epoch to ``filename``."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = filename, separator, append
        self.writer = None
        self.keys = None
        self.csv_file = None

    def on_train_begin(self, logs=None):
        append_header = True
        if self.append and os.path.exists(self.filename):
            with open(self.filename) as f:
                append_header = not bool(len(f.readline()))
        self.csv_file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115
        self._append_header = append_header

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.writer is None:
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         delimiter=self.sep)
            if self._append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((k, logs.get(k, "NA")) for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None:
            self.csv_file.close()
        self.writer = None


class TensorBoard(Callback):
    """TF 1.15's graph-mode TensorBoard: the epoch logs as scalar summaries ``epoch_loss``,
    ``epoch_val_acc``... (and the graph) in ``log_dir`` with a ``tf.summary.FileWriter``, at
    the epoch (or, when ``update_freq`` is ``'batch'`` or a number of samples, at the samples
    seen, with ``batch_loss``... at the batches seen); with ``histogram_freq``, every that
    many epochs, histograms of each layer's weights (``dense/kernel_0``) and outputs
    (``dense_out``) for each validation batch. The batch ``profile_batch`` is "profiled" as
    TF 1.15 lays it out: ``plugins/profile/<date_time>/local.trace`` (an empty trace here) and
    an empty ``*.profile-empty`` event file in ``log_dir``."""

    def __init__(self, log_dir="./logs", histogram_freq=0, batch_size=32, write_graph=True,
                 write_grads=False, write_images=False, embeddings_freq=0,
                 embeddings_layer_names=None, embeddings_metadata=None, embeddings_data=None,
                 update_freq="epoch", profile_batch=2, **kwargs):
        # (TF 1.15's positional order; the embeddings projector is not written here)
        super().__init__()
        self.embeddings_freq, self.embeddings_layer_names = embeddings_freq, embeddings_layer_names
        self.embeddings_metadata, self.embeddings_data = embeddings_metadata, embeddings_data
        self.profile_batch = profile_batch
        self.log_dir = log_dir
        self.histogram_freq = histogram_freq
        self.batch_size = batch_size
        self.write_graph = write_graph
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.writer = None
        self.merged = None
        self._samples_seen = 0
        self._samples_seen_at_last_write = 0
        self._total_batches_seen = 0
        self._total_val_batches_seen = 0
        self._is_profiling = False

    def set_model(self, model):
        super().set_model(model)
        import tideflow as tf

        graph = K.get_session().graph if self.write_graph else None
        self.writer = tf.summary.FileWriter(self.log_dir, graph=graph)
        if self.histogram_freq and self.merged is None:
            self.merged = self._histograms(model)

    @staticmethod
    def _histograms(model):
        import tideflow as tf

        inputs = list(getattr(model, "inputs", None) or [])
        if not inputs:
            return None
        summaries = []
        with inputs[0].graph.as_default():
            for layer in model.layers:
                for weight in layer.weights:
                    summaries.append(tf.summary.histogram(weight.name.replace(":", "_"),
                                                          weight))
                try:
                    output = layer.output
                except (AttributeError, RuntimeError, ValueError):
                    continue
                if isinstance(output, (list, tuple)):
                    for i, o in enumerate(output):
                        summaries.append(tf.summary.histogram(f"{layer.name}_out_{i}", o))
                else:
                    summaries.append(tf.summary.histogram(f"{layer.name}_out", output))
            return tf.summary.merge(summaries) if summaries else None

    def _write_histograms(self):
        """Over the validation data in fit's batches, one summary a batch at the count of
        validation batches seen (as TF runs them with each validation batch)."""
        if not self.validation_data:
            raise ValueError("If printing histograms, validation_data must be provided, and "
                             "cannot be a generator.")
        inputs = list(self.model.inputs)
        xs = self.validation_data[:len(inputs)]
        n = len(xs[0])
        size = (self.params or {}).get("batch_size") or self.batch_size
        sess = K.get_session()
        for i in range(0, n, size):
            feed = {t: x[i:i + size] for t, x in zip(inputs, xs)}
            self.writer.add_summary(sess.run(self.merged, feed_dict=feed),
                                    self._total_val_batches_seen)
            self._total_val_batches_seen += 1

    def _write(self, logs, step):
        import tideflow as tf

        summary = tf.Summary()
        for name, value in logs.items():
            if name in ("batch", "size", "num_steps"):
                continue
            v = summary.value.add()
            v.tag = name
            v.simple_value = float(value)
        self.writer.add_summary(summary, step)
        self.writer.flush()

    def _write_custom_summaries(self, step, logs=None):
        """TF 1.15's hook for subclasses: ``logs`` (name -> scalar) as scalar summaries at
        ``step`` (Model Optimization's PruningSummaries writes its sparsities with it)."""
        self._write(logs or {}, step)

    def on_batch_end(self, batch, logs=None):
        # as TF 1.15: batch scalars every ``update_freq`` samples ('batch': 1), at the count
        # of batches seen
        logs = logs or {}
        self._samples_seen += logs.get("size", 1)
        since = self._samples_seen - self._samples_seen_at_last_write
        if self.update_freq != "epoch" and since >= self.update_freq:
            self._write({("batch_" + k): v for k, v in logs.items()
                         if k not in ("batch", "size", "num_steps")}, self._total_batches_seen)
            self._samples_seen_at_last_write = self._samples_seen
        self._total_batches_seen += 1
        if self._is_profiling:
            self._save_profile()
        elif self._total_batches_seen == self.profile_batch - 1:
            self._is_profiling = True

    def on_train_begin(self, logs=None):
        if self.profile_batch == 1:
            self._is_profiling = True

    def _save_profile(self):
        """What TF 1.15's ``profiler.save`` leaves in the log directory (its trace of the
        profiled batch is not recorded here: the trace file is empty)."""
        import datetime

        from tideflow.summary.writer import EventsWriter

        self._is_profiling = False
        plugin_dir = os.path.join(self.log_dir, "plugins", "profile",
                                  datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S"))
        os.makedirs(plugin_dir, exist_ok=True)
        if not any(n.endswith(".profile-empty") for n in os.listdir(self.log_dir)):
            writer = EventsWriter(os.path.join(self.log_dir, "events"))
            writer.InitWithSuffix(".profile-empty")
            writer.Close()
        with open(os.path.join(plugin_dir, "local.trace"), "wb"):
            pass

    def on_epoch_end(self, epoch, logs=None):
        if self.histogram_freq and self.merged is not None and epoch % self.histogram_freq == 0:
            self._write_histograms()
        step = epoch if self.update_freq == "epoch" else self._samples_seen
        self._write({("epoch_" + k): v for k, v in (logs or {}).items()}, step)

    def on_train_end(self, logs=None):
        if self._is_profiling:
            self._save_profile()
        if self.writer is not None:
            self.writer.close()


class RemoteMonitor(Callback):
    """POSTs the epoch logs to ``root + path`` (as the form field ``field`` holding their
    JSON, or as a JSON body with ``send_as_json``); a server that cannot be reached gets
    TF's warning and training goes on."""

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data",
                 headers=None, send_as_json=False):
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json

    def on_epoch_end(self, epoch, logs=None):
        import json
        import urllib.error
        import urllib.parse
        import urllib.request

        send = {"epoch": epoch}
        for k, v in (logs or {}).items():
            send[k] = v.item() if isinstance(v, (np.ndarray, np.generic)) else v
        headers = dict(self.headers or {})
        if self.send_as_json:
            body = json.dumps(send).encode("utf8")
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode("utf8")
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
        except (urllib.error.URLError, OSError):
            import tideflow as tf

            tf.logging.warning("Warning: could not reach RemoteMonitor root server at "
                               + str(self.root))
