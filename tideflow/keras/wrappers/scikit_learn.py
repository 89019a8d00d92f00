"""``tf.keras.wrappers.scikit_learn``: ``KerasClassifier`` and ``KerasRegressor``, estimators
with scikit-learn's interface around a ``build_fn`` returning a compiled Keras model."""

import copy
import inspect

import numpy as np

from tideflow.keras.engine.sequential import Sequential
from tideflow.keras.utils import to_categorical

_FIT_ARGS = ("batch_size", "epochs", "verbose", "callbacks", "validation_split",
             "validation_data", "shuffle", "class_weight", "sample_weight", "initial_epoch")


def _accepted(fn):
    return set(inspect.signature(fn).parameters)


class BaseWrapper:
    """Keeps ``build_fn`` and the parameters (``sk_params``) shared by the model builder and
    ``fit``/``predict``; ``get_params``/``set_params`` make it clonable by scikit-learn."""

    def __init__(self, build_fn=None, **sk_params):
        self.build_fn = build_fn
        self.sk_params = sk_params
        self.check_params(sk_params)

    def check_params(self, params):
        legal = set(_FIT_ARGS) | {"steps", "nb_epoch"}
        for fn in (Sequential.fit, Sequential.predict, Sequential.evaluate):
            legal |= _accepted(fn)
        if self.build_fn is None:
            legal |= _accepted(self.__call__)
        elif not isinstance(self.build_fn, type):
            legal |= _accepted(self.build_fn)
        else:
            legal |= _accepted(self.build_fn.__call__)
        for name in params:
            if name not in legal:
                raise ValueError(f"{name} is not a legal parameter")

    _ESTIMATOR_TYPE = None

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags (recent versions ask for them)."""
        from sklearn.base import BaseEstimator
        from sklearn.utils import ClassifierTags, RegressorTags

        tags = BaseEstimator.__sklearn_tags__(self)
        tags.estimator_type = self._ESTIMATOR_TYPE
        tags.target_tags.required = True
        if self._ESTIMATOR_TYPE == "classifier":
            tags.classifier_tags = ClassifierTags()
        elif self._ESTIMATOR_TYPE == "regressor":
            tags.regressor_tags = RegressorTags()
        return tags

    def get_params(self, **params):
        res = copy.deepcopy(self.sk_params)
        res.update({"build_fn": self.build_fn})
        return res

    def set_params(self, **params):
        self.check_params(params)
        self.sk_params.update(params)
        return self

    def filter_sk_params(self, fn, override=None):
        override = override or {}
        names = _accepted(fn)
        res = {k: v for k, v in self.sk_params.items() if k in names}
        res.update({k: v for k, v in override.items() if k in names})
        return res

    def _build(self):
        if self.build_fn is None:
            return self.__call__(**self.filter_sk_params(self.__call__))
        if not isinstance(self.build_fn, type) and callable(self.build_fn):
            return self.build_fn(**self.filter_sk_params(self.build_fn))
        return self.build_fn(**self.filter_sk_params(self.build_fn.__call__))

    def fit(self, x, y, **kwargs):
        """Builds a new model with ``build_fn`` and trains it on ``x``, ``y``."""
        self.model = self._build()
        loss = self.model.loss
        name = getattr(loss, "__name__", loss)
        if name == "categorical_crossentropy" and np.asarray(y).ndim != 2:
            y = to_categorical(y)
        fit_args = copy.deepcopy(self.filter_sk_params(Sequential.fit))
        fit_args.update(kwargs)
        return self.model.fit(x, y, **fit_args)


class KerasClassifier(BaseWrapper):
    """A scikit-learn classifier: ``classes_`` are the sorted labels seen by ``fit``."""

    _ESTIMATOR_TYPE = "classifier"

    def fit(self, x, y, sample_weight=None, **kwargs):
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] > 1:
            self.classes_ = np.arange(y.shape[1])
        elif (y.ndim == 2 and y.shape[1] == 1) or y.ndim == 1:
            self.classes_ = np.unique(y)
            y = np.searchsorted(self.classes_, y)
        else:
            raise ValueError(f"Invalid shape for y: {y.shape}")
        self.n_classes_ = len(self.classes_)
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        return super().fit(x, y, **kwargs)

    def predict_proba(self, x, **kwargs):
        kwargs = self.filter_sk_params(Sequential.predict, kwargs)
        probs = self.model.predict(x, **kwargs)
        if probs.shape[1] == 1:
            probs = np.hstack([1 - probs, probs])
        return probs

    def predict(self, x, **kwargs):
        probs = self.predict_proba(x, **kwargs)
        return self.classes_[np.argmax(probs, axis=-1)]

    def score(self, x, y, **kwargs):
        """The model's accuracy on ``x``, ``y`` (the model needs an accuracy metric)."""
        y = np.searchsorted(self.classes_, np.asarray(y))
        kwargs = self.filter_sk_params(Sequential.evaluate, kwargs)
        name = getattr(self.model.loss, "__name__", self.model.loss)
        if name == "categorical_crossentropy" and y.ndim == 1:
            y = to_categorical(y, self.n_classes_)
        kwargs.setdefault("verbose", 0)
        outputs = self.model.evaluate(x, y, **kwargs)
        outputs = outputs if isinstance(outputs, list) else [outputs]
        for name, value in zip(self.model.metrics_names, outputs):
            if name in ("acc", "accuracy"):
                return value
        raise ValueError("The model is not configured to compute accuracy. You should pass "
                         "`metrics=[\"accuracy\"]` to the `model.compile()` method.")


class KerasRegressor(BaseWrapper):
    """A scikit-learn regressor: ``score`` is the negated loss."""

    _ESTIMATOR_TYPE = "regressor"

    def predict(self, x, **kwargs):
        kwargs = self.filter_sk_params(Sequential.predict, kwargs)
        return np.squeeze(self.model.predict(x, **kwargs))

    def score(self, x, y, **kwargs):
        kwargs = self.filter_sk_params(Sequential.evaluate, kwargs)
        kwargs.setdefault("verbose", 0)
        loss = self.model.evaluate(x, y, **kwargs)
        return -loss[0] if isinstance(loss, list) else -loss
