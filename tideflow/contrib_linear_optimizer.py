"""``tf.contrib.linear_optimizer``: linear models trained by stochastic dual coordinate ascent
(SdcaModel over the ``SdcaOptimizer`` kernel, its example state in a dense hash table keyed by
the example ids' fingerprints) and the SDCAOptimizer the contrib linear estimators take."""

import collections

from tideflow.train import session_run_hook as _hook_lib


def _tf():
    import tideflow

    return tideflow


class SparseFeatureColumn:
    """A sparse feature group: ``(example_indices, feature_indices, feature_values)``, the
    values None when every present feature is 1."""

    def __init__(self, example_indices, feature_indices, feature_values):
        tf = _tf()
        with tf.name_scope(None, "SparseFeatureColumn", [example_indices, feature_indices]):
            self._example_indices = tf.reshape(tf.cast(example_indices, tf.int64), [-1],
                                               name="example_indices")
            self._feature_indices = tf.reshape(tf.cast(feature_indices, tf.int64), [-1],
                                               name="feature_indices")
            self._feature_values = None if feature_values is None else tf.reshape(
                tf.convert_to_tensor(feature_values, tf.float32), [-1],
                name="feature_values")

    example_indices = property(lambda self: self._example_indices)
    feature_indices = property(lambda self: self._feature_indices)
    feature_values = property(lambda self: self._feature_values)


_LOSSES = ("logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss", "poisson_loss")


def _as_list(var):
    tf = _tf()
    if isinstance(var, (list, tf.PartitionedVariable)):
        return list(var)
    return [var]


def _whole(var):
    """A variable (or its partitions concatenated) as one tensor."""
    tf = _tf()
    parts = _as_list(var)
    return parts[0] if len(parts) == 1 else tf.concat(parts, 0)


class SdcaModel:
    """Stochastic dual coordinate ascent for a linear model over ``examples`` (dicts of
    ``sparse_features``, ``dense_features``, ``example_labels``, ``example_weights``,
    ``example_ids``) with the weights in ``variables`` (``sparse_features_weights``,
    ``dense_features_weights``) and ``options`` (``loss_type``,
    ``symmetric_l1_regularization``, ``symmetric_l2_regularization``,
    ``num_loss_partitions``, ``adaptive``). ``minimize()`` runs one pass over the batch,
    ``update_weights(op)`` publishes the (L1-shrunk) weights."""

    def __init__(self, examples, variables, options):
        if not examples or not variables or not options:
            raise ValueError("examples, variables and options must all be specified.")
        if options["loss_type"] not in _LOSSES:
            raise ValueError("Unsupported loss_type: ", options["loss_type"])
        for key in ("example_labels", "example_weights", "example_ids", "sparse_features",
                    "dense_features"):
            if examples[key] is None:
                raise ValueError(f"{key} must be specified.")
        for key in ("sparse_features", "dense_features"):
            if not isinstance(examples[key], list):
                raise ValueError(key + " must be a list.")  # noqa: TRY004 - as TF
        for key in ("sparse_features_weights", "dense_features_weights"):
            if variables[key] is None:
                raise ValueError(f"{key} must be specified.")
            if not isinstance(variables[key], list):
                raise ValueError(key + " must be a list.")  # noqa: TRY004 - as TF
        for key in ("loss_type", "symmetric_l2_regularization", "symmetric_l1_regularization"):
            if options[key] is None:
                raise ValueError(f"{key} must be specified.")
        for key in ("symmetric_l1_regularization", "symmetric_l2_regularization"):
            if options[key] < 0.0:
                raise ValueError(f"{key} should be non-negative. Found ({options[key]:f})")
        self._examples, self._variables, self._options = examples, variables, options
        self._create_slots()
        tf = _tf()
        from tideflow.ops.dense_hash_table_ops import DenseHashTable

        # one table (TF shards it over num_table_shards tables); not checkpointed, as TF's
        self._hashtable = DenseHashTable(tf.int64, tf.float32,
                                         default_value=[0.0, 0.0, 0.0, 0.0],
                                         empty_key=[0, 0], deleted_key=[1, 1],
                                         name="ShardedMutableHashTable", checkpoint=False)
        tf.summary.scalar("approximate_duality_gap", self.approximate_duality_gap())
        tf.summary.scalar("examples_seen", self._hashtable.size())

    def _symmetric_l1_regularization(self):
        return self._options["symmetric_l1_regularization"]

    def _symmetric_l2_regularization(self):
        # TF's kernel divides by it: below 1 it is taken as 1
        return max(self._options["symmetric_l2_regularization"], 1.0)

    def _num_loss_partitions(self):
        return self._options.get("num_loss_partitions", 1)

    def _adaptive(self):
        return self._options.get("adaptive", True)

    def _create_slots(self):
        """The unshrunk weights SDCA updates (the model's variables get their shrunk
        copy)."""
        tf = _tf()
        self._slots = collections.defaultdict(list)
        for name in ("sparse_features_weights", "dense_features_weights"):
            for var in self._variables[name]:
                slots = []
                for v in _as_list(var):
                    with tf.colocate_with(v):
                        slots.append(tf.Variable(
                            tf.zeros_like(v.initialized_value(), tf.float32),
                            name=v.op.name + self._options.get("_slot_suffix",
                                                               "_unshrinked/SDCAOptimizer")))
                self._slots["unshrinked_" + name].append(
                    slots if isinstance(var, (list, tf.PartitionedVariable)) else slots[0])

    def _l1_loss(self):
        tf = _tf()
        with tf.name_scope("sdca/l1_loss"):
            sums = [tf.reduce_sum(tf.abs(tf.cast(v, tf.float64)))
                    for name in ("sparse_features_weights", "dense_features_weights")
                    for var in self._variables[name] for v in _as_list(var)]
            return self._options["symmetric_l1_regularization"] * tf.add_n(sums)

    def _l2_loss(self, l2):
        tf = _tf()
        with tf.name_scope("sdca/l2_loss"):
            sums = [tf.reduce_sum(tf.square(tf.cast(v, tf.float64)))
                    for name in ("sparse_features_weights", "dense_features_weights")
                    for var in self._variables[name] for v in _as_list(var)]
            return l2 * tf.add_n(sums) / 2.0

    def _linear_predictions(self, examples):
        tf = _tf()
        with tf.name_scope("sdca/prediction"):
            sparse = 0.0
            for sfc, var in zip(examples["sparse_features"],
                                self._variables["sparse_features_weights"]):
                w = tf.gather(_whole(var), sfc.feature_indices)
                if sfc.feature_values is not None:
                    w = tf.multiply(w, sfc.feature_values)
                sparse += tf.segment_sum(w, sfc.example_indices)
            dense = 0.0
            for x, var in zip(examples["dense_features"],
                              self._variables["dense_features_weights"]):
                dense += tf.matmul(tf.convert_to_tensor(x), tf.expand_dims(_whole(var), -1))
        return tf.reshape(dense, [-1]) + sparse

    def predictions(self, examples):
        """The model's predictions: probabilities for the logistic loss, ``exp(wx)`` for the
        Poisson loss, ``wx`` otherwise."""
        tf = _tf()
        result = self._linear_predictions(examples)
        if self._options["loss_type"] == "logistic_loss":
            with tf.name_scope("sdca/logistic_prediction"):
                result = tf.sigmoid(result)
        elif self._options["loss_type"] == "poisson_loss":
            with tf.name_scope("sdca/poisson_prediction"):
                result = tf.exp(result)
        return result

    def minimize(self, global_step=None, name=None):
        """One SDCA pass over the batch, adding the weight deltas to the unshrunk weights
        and keeping the examples' dual state; steps ``global_step`` after."""
        tf = _tf()
        from tideflow.ops import sdca_ops

        with tf.name_scope(name, "sdca/minimize"):
            ex_idx, feat_idx, feat_vals = [], [], []
            for sf in self._examples["sparse_features"]:
                ex_idx.append(sf.example_indices)
                feat_idx.append(sf.feature_indices)
                if sf.feature_values is not None:
                    feat_vals.append(sf.feature_values)
            ids_hashed = tf.train.sdca_fprint(
                tf.convert_to_tensor(self._examples["example_ids"]))
            state = self._hashtable.lookup(ids_hashed)
            sparse_weights, sparse_indices = [], []
            for w, i in zip(self._slots["unshrinked_sparse_features_weights"], feat_idx):
                uniq = tf.cast(tf.unique(tf.cast(i, tf.int32))[0], tf.int64)
                sparse_indices.append(uniq)
                sparse_weights.append(tf.gather(_whole(w), uniq))
            dense_slots = [_whole(w) for w in self._slots["unshrinked_dense_features_weights"]]
            esu, sfw, dfw = sdca_ops.sdca_optimizer_v2(
                ex_idx, feat_idx, feat_vals,
                [tf.convert_to_tensor(x) for x in self._examples["dense_features"]],
                tf.convert_to_tensor(self._examples["example_weights"]),
                tf.convert_to_tensor(self._examples["example_labels"]),
                sparse_indices, sparse_weights, dense_slots, state,
                loss_type=self._options["loss_type"],
                l1=self._options["symmetric_l1_regularization"],
                l2=self._symmetric_l2_regularization(),
                num_loss_partitions=self._num_loss_partitions(), num_inner_iterations=1,
                adaptive=self._adaptive())
            with tf.control_dependencies([esu]):
                updates = [self._hashtable.insert(ids_hashed, esu)]
                for w, i, u in zip(self._slots["unshrinked_sparse_features_weights"],
                                   sparse_indices, sfw):
                    updates += self._scatter_add(w, i, u)
                for w, u in zip(self._slots["unshrinked_dense_features_weights"], dfw):
                    parts = _as_list(w)
                    if len(parts) == 1:
                        updates.append(tf.assign_add(parts[0], u))
                    else:
                        pieces = tf.split(u, [p.get_shape().as_list()[0] for p in parts])
                        updates += [tf.assign_add(p, d) for p, d in zip(parts, pieces)]
            if not global_step:
                return tf.group(*updates)
            with tf.control_dependencies(updates):
                return tf.assign_add(global_step, 1, name=name).op

    @staticmethod
    def _scatter_add(var, ids, updates):
        tf = _tf()
        parts = _as_list(var)
        if len(parts) == 1:
            return [tf.scatter_add(parts[0], ids, updates)]
        # ids over partitions as TF's "div" partition strategy lays them out
        sizes = [p.get_shape().as_list()[0] for p in parts]
        total, n = sum(sizes), len(parts)
        per, extras = total // n, total % n
        ids = tf.reshape(ids, [-1])
        assign = tf.maximum(ids // (per + 1), (ids - extras) // per)
        local = tf.where(assign < extras, ids % (per + 1), (ids - extras) % per)
        assign = tf.cast(assign, tf.int32)
        local_parts = tf.dynamic_partition(local, assign, n)
        update_parts = tf.dynamic_partition(updates, assign, n)
        return [tf.scatter_add(p, i, u) for p, i, u in zip(parts, local_parts, update_parts)]

    def update_weights(self, train_op):
        """After ``train_op``: the model's weights become the unshrunk ones, L1-shrunk."""
        tf = _tf()
        from tideflow.ops import sdca_ops

        with tf.control_dependencies([train_op]):
            copies = [v.assign(sv)
                      for name in ("sparse_features_weights", "dense_features_weights")
                      for var, slot in zip(self._variables[name],
                                           self._slots["unshrinked_" + name])
                      for v, sv in zip(_as_list(var), _as_list(slot))]
        with tf.control_dependencies(copies):
            shrinks = [sdca_ops.sdca_shrink_l1([v], l1=self._symmetric_l1_regularization(),
                                               l2=self._symmetric_l2_regularization())
                       for name in ("sparse_features_weights", "dense_features_weights")
                       for var in self._variables[name] for v in _as_list(var)]
            return tf.group(*shrinks)

    def approximate_duality_gap(self):
        """(primal + dual losses + regularization) / total example weight, over the examples
        seen so far."""
        tf = _tf()
        with tf.name_scope("sdca/approximate_duality_gap"):
            _, values = self._hashtable.export()
            summed = tf.reduce_sum(tf.cast(values, tf.float64), 0)
            return (summed[1] + summed[2] + self._l1_loss()
                    + 2.0 * self._l2_loss(self._symmetric_l2_regularization())) / summed[3]

    def unregularized_loss(self, examples):
        """The weighted mean loss of the model on ``examples``."""
        tf = _tf()
        with tf.name_scope("sdca/unregularized_loss"):
            pred = tf.cast(self._linear_predictions(examples), tf.float64)
            labels = tf.cast(tf.convert_to_tensor(examples["example_labels"]), tf.float64)
            weights = tf.cast(tf.convert_to_tensor(examples["example_weights"]), tf.float64)
            loss_type = self._options["loss_type"]
            if loss_type == "logistic_loss":
                per = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=pred)
                return tf.reduce_sum(per * weights) / tf.reduce_sum(weights)
            if loss_type == "poisson_loss":
                per = tf.nn.log_poisson_loss(targets=labels, log_input=pred)
                return tf.reduce_sum(per * weights) / tf.reduce_sum(weights)
            if loss_type in ("hinge_loss", "smooth_hinge_loss"):
                ones = tf.ones_like(pred)
                err = tf.nn.relu(ones - (2 * labels - ones) * pred)
                return tf.reduce_sum(err * weights) / tf.reduce_sum(weights)
            err = labels - pred
            return tf.reduce_sum(tf.square(err) * weights) / (2.0 * tf.reduce_sum(weights))

    def regularized_loss(self, examples):
        """:meth:`unregularized_loss` plus the L1 and L2 terms over the total weight."""
        tf = _tf()
        with tf.name_scope("sdca/regularized_loss"):
            weights = tf.convert_to_tensor(examples["example_weights"])
            return ((self._l1_loss()
                     + self._l2_loss(self._options["symmetric_l2_regularization"]))
                    / tf.reduce_sum(tf.cast(weights, tf.float64))
                    + self.unregularized_loss(examples))


class _BiasColumn:
    """The bias as a dense feature of ones (TF's "tf_virtual_bias_column")."""

    key = name = "tf_virtual_bias_column"


class SDCAOptimizer:
    """The optimizer a contrib linear estimator (LinearClassifier, LinearRegressor, SVM)
    takes to train by SDCA; ``example_id_column`` names the string feature with each
    example's unique id."""

    def __init__(self, example_id_column, num_loss_partitions=1, num_table_shards=None,
                 symmetric_l1_regularization=0.0, symmetric_l2_regularization=1.0,
                 adaptive=True, partitioner=None):
        self._example_id_column = example_id_column
        self._num_loss_partitions = num_loss_partitions
        self._num_table_shards = num_table_shards
        self._symmetric_l1_regularization = symmetric_l1_regularization
        self._symmetric_l2_regularization = symmetric_l2_regularization
        self._adaptive = adaptive
        self._partitioner = partitioner

    _slot_suffix = "_unshrinked/SDCAOptimizer"

    def get_name(self):
        return "SDCAOptimizer"

    example_id_column = property(lambda self: self._example_id_column)
    num_loss_partitions = property(lambda self: self._num_loss_partitions)
    num_table_shards = property(lambda self: self._num_table_shards)
    symmetric_l1_regularization = property(lambda self: self._symmetric_l1_regularization)
    symmetric_l2_regularization = property(lambda self: self._symmetric_l2_regularization)
    adaptive = property(lambda self: self._adaptive)
    partitioner = property(lambda self: self._partitioner)

    def get_train_step(self, columns_to_variables, weight_column_name, loss_type, features,
                       targets, global_step):
        """``(SdcaModel, train_op)`` for a linear model whose columns hold
        ``columns_to_variables``; the bias is ``_BiasColumn``."""
        tf = _tf()
        from tideflow.feature_column import feature_column as fc

        dense, dense_w, sparse, sparse_w = [], [], [], []
        labels = tf.reshape(targets, [-1])
        for column in sorted(columns_to_variables, key=lambda c: getattr(c, "key",
                                                                         getattr(c, "name",
                                                                                 ""))):
            variables = columns_to_variables[column]
            var = variables[0] if len(variables) == 1 else variables
            if isinstance(column, _BiasColumn):
                dense.append(tf.ones_like(tf.cast(tf.expand_dims(labels, 1), tf.float32)))
                dense_w.append(var)
                continue
            value = features.get(column)
            if value is None and hasattr(column, "key"):
                value = features[column.key]
            if isinstance(column, fc._NumericColumn):
                value = tf.convert_to_tensor(value)
                dense.append(tf.reshape(tf.cast(value, tf.float32),
                                        [tf.shape(value)[0], -1]))
                dense_w.append(var)
            elif isinstance(column, fc._BucketizedColumn):
                one_hot = tf.one_hot(value, len(column.boundaries) + 1)
                one_hot = tf.reshape(one_hot, [tf.shape(one_hot)[0], -1])
                where = tf.where(tf.not_equal(one_hot, 0.0))
                sparse.append(SparseFeatureColumn(where[:, 0], where[:, 1],
                                                  tf.gather_nd(one_hot, where)))
                sparse_w.append(var)
            elif isinstance(column, fc._CategoricalColumn):
                ids, weights = value, None
                if isinstance(value, fc._CategoricalColumn.IdWeightPair):
                    ids, weights = value.id_tensor, value.weight_tensor
                sparse.append(self._sparse_column(ids, weights))
                sparse_w.append(var)
            else:
                raise ValueError(  # noqa: TRY004 - as TF
                    f"SDCAOptimizer does not support column type {type(column).__name__}.")
        if weight_column_name:
            example_weights = tf.reshape(features[weight_column_name], [-1])
        else:
            example_weights = tf.ones_like(tf.cast(labels, tf.float32))
        examples = {"sparse_features": sparse, "dense_features": dense,
                    "example_labels": tf.cast(labels, tf.float32),
                    "example_weights": example_weights,
                    "example_ids": features[self._example_id_column]}
        variables = {"sparse_features_weights": sparse_w, "dense_features_weights": dense_w}
        model = SdcaModel(examples, variables, {
            "_slot_suffix": self._slot_suffix,
            "symmetric_l1_regularization": self._symmetric_l1_regularization,
            "symmetric_l2_regularization": self._symmetric_l2_regularization,
            "adaptive": self._adaptive, "num_loss_partitions": self._num_loss_partitions,
            "num_table_shards": self._num_table_shards, "loss_type": loss_type})
        return model, model.minimize(global_step=global_step)

    @staticmethod
    def _sparse_column(ids, weights):
        """A SparseFeatureColumn of one categorical column: repeated ids of an example
        merge (their weights summed), invalid (negative) ids drop."""
        tf = _tf()
        values = (tf.ones([tf.shape(ids.indices)[0]], tf.float32) if weights is None
                  else tf.reshape(tf.cast(weights.values, tf.float32), [-1]))
        example_ids = tf.reshape(ids.indices[:, 0], [-1])
        flat = tf.reshape(tf.cast(ids.values, tf.int64), [-1])
        valid = tf.greater_equal(flat, 0)
        flat = tf.boolean_mask(flat, valid)
        example_ids = tf.boolean_mask(example_ids, valid)
        values = tf.boolean_mask(values, valid)
        width = tf.reduce_max(flat) + 1
        uniq, idx = tf.unique(width * example_ids + flat)
        ex = tf.unsorted_segment_min(example_ids, idx, tf.shape(uniq)[0])
        feat = uniq - width * ex
        summed = tf.reshape(tf.unsorted_segment_sum(values, idx, tf.shape(uniq)[0]), [-1])
        return SparseFeatureColumn(ex, feat, summed)


class LinearSDCA(SDCAOptimizer):
    """``tf.estimator.experimental.LinearSDCA``: SDCA as the ``optimizer`` of the core
    LinearClassifier (binary) and LinearRegressor (one label)."""

    _slot_suffix = "_unshrunk"

    def __init__(self, example_id_column, num_loss_partitions=1, num_table_shards=None,
                 symmetric_l1_regularization=0.0, symmetric_l2_regularization=1.0,
                 adaptive=False):
        super().__init__(example_id_column, num_loss_partitions, num_table_shards,
                         symmetric_l1_regularization, symmetric_l2_regularization, adaptive)


class SdcaUpdateWeightsHook(_hook_lib.SessionRunHook):
    """Runs the SDCA model's weight update (copy of the unshrunk weights, L1 shrink) with
    each training step, on the chief."""

    def set_parameters(self, sdca_model, train_op):
        self._sdca_model = sdca_model
        self._train_op = train_op

    def begin(self):
        self._update_op = self._sdca_model.update_weights(self._train_op)

    def before_run(self, run_context):
        return _hook_lib.SessionRunArgs(self._update_op)


def core_sdca_model_fn(features, labels, mode, head, feature_columns, optimizer,
                       partitioner=None):
    """The core linear estimators' model under a LinearSDCA optimizer (logistic loss under a
    binary head, squared loss under a one-label regression head)."""
    tf = _tf()
    from tideflow.estimator.canned import head as head_lib
    from tideflow.feature_column import feature_column as fc

    if isinstance(head, head_lib.BinaryClassHead):
        loss_type = "logistic_loss"
    elif isinstance(head, head_lib.RegressionHead):
        if head.logits_dimension != 1:
            raise ValueError("SDCA only applies for logits_dimension=1.")
        loss_type = "squared_loss"
    else:
        raise ValueError(f"Unsupported head type: {head}")  # noqa: TRY004 - as TF
    columns = list(feature_columns)
    hook = SdcaUpdateWeightsHook()
    with tf.variable_scope("linear", values=list(features.values()), partitioner=partitioner):
        cols_to_vars = {}
        logits = fc.linear_model(features, columns, units=1, sparse_combiner="sum",
                                 cols_to_vars=cols_to_vars, _keras_layout=True)
        bias = cols_to_vars.pop("bias")
        weight = getattr(head, "_weight_column", None)
        weight = getattr(weight, "key", weight)
        scope = tf.get_default_graph().get_name_scope() + "/"

        def train_op_fn(unused_loss):
            with tf.name_scope(scope):  # (TF builds the SDCA model in "linear/", not the head's)
                return build()

        def build():
            transformed = dict(features)
            transformed.update(fc._transform_features(features, columns))
            variables = dict(cols_to_vars)
            variables[_BiasColumn()] = bias if isinstance(bias, list) else [bias]
            model, train_op = optimizer.get_train_step(
                variables, weight, loss_type, transformed, labels,
                tf.train.get_global_step())
            hook.set_parameters(model, train_op)
            return train_op

        spec = head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                          labels=labels, train_op_fn=train_op_fn)
    return spec._replace(training_chief_hooks=tuple(spec.training_chief_hooks) + (hook,))


def _source_paths():
    """TF's implementation modules (``linear_optimizer.python.ops.sdca_ops``,
    ``...python.ops.sparse_feature_column``, ``...python.sdca_optimizer``) over this one."""
    import sys
    import types

    base = "tideflow.contrib.linear_optimizer.python"
    python = types.ModuleType(base, "``tf.contrib.linear_optimizer.python``.")
    python.ops = types.ModuleType(base + ".ops", "``...python.ops``.")
    python.ops.sdca_ops = types.ModuleType(base + ".ops.sdca_ops", "``...ops.sdca_ops``.")
    python.ops.sdca_ops.SdcaModel = SdcaModel
    python.ops.sparse_feature_column = types.ModuleType(
        base + ".ops.sparse_feature_column", "``...ops.sparse_feature_column``.")
    python.ops.sparse_feature_column.SparseFeatureColumn = SparseFeatureColumn
    python.sdca_optimizer = types.ModuleType(base + ".sdca_optimizer",
                                             "``...python.sdca_optimizer``.")
    python.sdca_optimizer.SDCAOptimizer = SDCAOptimizer
    for module in (python, python.ops, python.ops.sdca_ops, python.ops.sparse_feature_column,
                   python.sdca_optimizer):
        sys.modules.setdefault(module.__name__, module)
    return python


python = _source_paths()

__all__ = ["SDCAOptimizer", "SdcaModel", "SparseFeatureColumn", "python"]
