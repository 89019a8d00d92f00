"""The ``tensorflow.python.*`` module paths that have no file of their own under
``tideflow/python``: each is a module whose names are looked up, on first use, in an ordered
list of tideflow modules (``tensorflow.python.ops.image_ops.resize_images`` is
``tf.image.resize_images``; ``tensorflow.python.framework.constant_op.constant`` is
``tf.constant``), so it holds the very objects of tideflow's public API rather than copies.

``gen_*_ops`` paths answer TF's generated op wrappers: ``gen_nn_ops.relu_grad(gradients,
features)``, ``gen_math_ops.mat_mul(a, b, transpose_a=...)``, ``gen_nn_ops._max_pool_grad``
(TF's hidden-op spelling): the snake_case name of a registered op, its inputs then its
attrs positionally (attrs without a default before those with one) or by keyword.

A meta-path finder answers these names, so ``import tensorflow.python.saved_model.builder``
and ``from tensorflow.python.ops import gen_nn_ops`` both work and set the parent's attribute.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys

_ROOT = "tideflow.python."

# path under tideflow.python -> (doc, modules searched in order, explicit members or None).
# A member given as "module:attr" is that object; a package path lists no modules.
_TABLE = {}


def _add(path, doc, spaces=(), **members):
    _TABLE[path] = (doc, tuple(spaces), members)


# -- ops ------------------------------------------------------------------------------------
for _gen in ("gen_nn_ops", "gen_array_ops", "gen_math_ops", "gen_image_ops", "gen_data_flow_ops",
             "gen_state_ops", "gen_random_ops", "gen_string_ops", "gen_io_ops",
             "gen_sparse_ops", "gen_linalg_ops", "gen_logging_ops", "gen_parsing_ops",
             "gen_control_flow_ops", "gen_candidate_sampling_ops", "gen_ctc_ops",
             "gen_lookup_ops", "gen_training_ops", "gen_resource_variable_ops"):
    _TABLE["ops." + _gen] = ((f"TF's generated op wrappers (``{_gen}``): snake_case op "
                              "functions over tideflow's registered ops."), "gen", {})
_add("ops.resource_variable_ops", "Resource variables (``ResourceVariable``: a tf.Variable made "
     "with use_resource).", ["tideflow.ops.variables", "tideflow"],
     ResourceVariable="tideflow.ops.variables:ResourceVariable",
     is_resource_variable="tideflow.python._paths:_is_var")
_add("ops.script_ops", "``tf.py_func`` and friends.", ["tideflow.ops.script_ops", "tideflow"])
_add("ops.image_ops", "``tf.image``.", ["tideflow.image", "tideflow.ops.image_ops", "tideflow"])
_add("ops.io_ops", "Readers, Saver ops, file reading.",
     ["tideflow.ops.io_ops", "tideflow", "tideflow.io",
      # TF's module re-exports gen_io_ops (io_ops.restore_v2, io_ops.save_v2, ...)
      "tideflow.python.ops.gen_io_ops"])
_add("ops.parsing_ops", "``tf.parse_example`` and the feature specs.",
     ["tideflow.ops.parsing_ops", "tideflow", "tideflow.io"])
_add("ops.metrics", "``tf.metrics``.", ["tideflow.metrics"])
_add("ops.metrics_impl", "``tf.metrics`` and ``metric_variable``, ``_confusion_matrix_at_thresholds``.",
     ["tideflow.python._metrics_impl", "tideflow.metrics"])
_add("ops.losses", "``tensorflow.python.ops.losses``.", [], losses="tideflow:losses")
_add("ops.losses.losses", "``tf.losses``.", ["tideflow.losses"])
_add("ops.losses.losses_impl", "``tf.losses`` (``Reduction``, ``compute_weighted_loss``).",
     ["tideflow.losses"])
_add("ops.losses.util", "``tf.losses``' collection helpers (``get_losses``, ...).",
     ["tideflow.losses"])
_add("ops.template", "``tf.make_template``.", ["tideflow.ops.template", "tideflow"])
_add("ops.bitwise_ops", "``tf.bitwise`` and the bit counting ops (``population_count``).",
     ["tideflow.ops.bitwise_ops", "tideflow.bitwise"])
_add("ops.weights_broadcast_ops", "``assert_broadcastable`` and ``broadcast_weights``.",
     ["tideflow.ops.weights_broadcast_ops"])
_add("ops.control_flow_util", "TF's control-flow helpers (``IsSwitch``, ``IsInWhileLoop``, ...).",
     ["tideflow.ops.control_flow_util"])
_add("ops.session_ops", "Session tensor handles (``get_session_handle``, ``TensorHandle``).",
     ["tideflow.ops.session_ops", "tideflow"])
_add("ops.gradients", "``tf.gradients``.", ["tideflow"])
_add("ops.gradients_util", "``gradients`` and ``AggregationMethod``.", ["tideflow"])
_add("ops.unconnected_gradients", "``tf.UnconnectedGradients``.", ["tideflow"])
_add("ops.numerics", "``add_check_numerics_ops``, ``verify_tensor_all_finite``.",
     ["tideflow.ops.numerics", "tideflow"])
_add("ops.custom_gradient", "``tf.custom_gradient`` and ``get_dependent_variables``.",
     ["tideflow", "tideflow.ops.misc_ops", "tideflow.ops.tf1_misc_ops"])
_add("ops.linalg_ops", "``tf.linalg`` ops.", ["tideflow.ops.linalg_ops", "tideflow.linalg",
                                              "tideflow",
                                              # TF's module re-exports gen_linalg_ops
                                              "tideflow.python.ops.gen_linalg_ops"])
_add("ops.linalg", "``tensorflow.python.ops.linalg``: ``tf.linalg``'s modules.",
      ["tideflow.linalg"])
for _la in ("linalg", "linalg_impl", "linear_operator", "linear_operator_util",
            "linear_operator_adjoint", "linear_operator_block_diag",
            "linear_operator_block_lower_triangular", "linear_operator_circulant",
            "linear_operator_composition", "linear_operator_diag", "linear_operator_full_matrix",
            "linear_operator_householder", "linear_operator_identity",
            "linear_operator_inversion", "linear_operator_kronecker",
            "linear_operator_low_rank_update", "linear_operator_lower_triangular",
            "linear_operator_permutation", "linear_operator_toeplitz",
            "linear_operator_tridiag", "linear_operator_zeros"):
    _add("ops.linalg." + _la, "``tf.linalg``.",
         ["tideflow.linalg", "tideflow.ops.linalg_more_ops", "tideflow.ops.linear_operator",
          "tideflow.ops.linear_operator_util"],
         matrix_exponential="tideflow.linalg:expm")
_add("ops.signal", "``tensorflow.python.ops.signal``: ``tf.signal``'s modules.",
     ["tideflow.signal"])
for _sg in ("signal", "fft_ops", "spectral_ops", "mel_ops", "mfcc_ops", "window_ops", "dct_ops",
            "reconstruction_ops", "shape_ops", "mdct_ops"):
    _add("ops.signal." + _sg, "``tf.signal``.", ["tideflow.signal"])
_add("ops.spectral_ops", "``tf.spectral``.", ["tideflow.spectral"])
_add("ops.standard_ops", "Every public op under one name (``standard_ops.matmul``).",
     ["tideflow", "tideflow.math", "tideflow.python.ops.array_ops",
      "tideflow.python.ops.math_ops"])
_add("ops.seq2seq", "``tf.nn.seq2seq`` under its 0.x module path.", [],
     _module="tideflow.nn:seq2seq")
_add("ops.map_fn", "``tf.map_fn``.", ["tideflow"])
_add("compat", "``tensorflow.python.compat``.", [])
_add("compat.compat", "``forward_compatible`` and its horizon.", ["tideflow.compat"],
     _module="tideflow.compat")
_TABLE["ops.gen_spectral_ops"] = ("TF's generated FFT op wrappers (``fft``, ``rfft``, ...).",
                                  "gen", {})
_add("ops.ctc_ops", "CTC loss and decoders.", ["tideflow.ops.ctc_ops", "tideflow.nn"])
_add("ops.candidate_sampling_ops", "Candidate samplers.",
     ["tideflow.ops.candidate_sampling_ops", "tideflow.nn", "tideflow.random"])
_add("ops.summary_ops_v2", "``tf.contrib.summary``.", ["tideflow.contrib.summary"])
_add("ops.distributions", "``tf.distributions``.", ["tideflow.distributions"])
_add("ops.gradient_checker", "``compute_gradient`` and ``compute_gradient_error``.",
     ["tideflow.test"])
_add("ops.manip_ops", "``tf.manip`` (``roll``).", ["tideflow.manip", "tideflow"])
_add("ops.distributions.distribution", "``Distribution``.",
     ["tideflow.distributions.distribution", "tideflow.distributions"])
for _dist in ("bernoulli", "beta", "categorical", "dirichlet", "dirichlet_multinomial",
              "exponential", "gamma", "kullback_leibler", "laplace", "multinomial", "normal",
              "student_t", "uniform"):
    _add("ops.distributions." + _dist, "``tf.distributions``.", ["tideflow.distributions"])
_add("ops.distributions.kullback_leibler", "``kl_divergence``, ``RegisterKL``...",
     ["tideflow.distributions.distribution"], _module="tideflow.distributions.distribution")
_add("ops.distributions.bijector", "``Bijector``.", ["tideflow.distributions.bijector"],
     _module="tideflow.distributions.bijector")
_add("ops.distributions.identity_bijector", "The ``Identity`` bijector.",
     ["tideflow.distributions.bijector"])
_add("ops.distributions.util", "``distribution_util``'s helpers.",
     ["tideflow.distributions.util", "tideflow.distributions"],
     _module="tideflow.distributions.util")
_add("ops.distributions.special_math", "``ndtr``, ``ndtri``, ``log_ndtr``...",
     ["tideflow.distributions.special_math"], _module="tideflow.distributions.special_math")
# -- framework ------------------------------------------------------------------------------
_add("framework.constant_op", "``tf.constant``.", ["tideflow.ops.constant_op", "tideflow"],
     # TF's TensorShape -> constant conversion (TensorLayer's tl.alphas calls it)
     _tensor_shape_tensor_conversion_function="tideflow.ops.constant_op:_shape_conversion")
_add("framework.function", "Graph functions (``Defun``).", ["tideflow.python._defun", "tideflow"])
_add("framework.errors_impl", "The OpError classes.", ["tideflow.framework.errors"])
_add("framework.graph_util_impl", "``tf.graph_util`` (``remove_training_nodes``, ...).",
     ["tideflow.framework.graph_util_impl", "tideflow.graph_util"])
_add("framework.meta_graph", "MetaGraphDef export and import.",
     ["tideflow.framework.meta_graph", "tideflow.train"])
_add("framework.tensor_spec", "``TensorSpec``.", ["tideflow"])
_add("framework.indexed_slices", "``IndexedSlices`` and its conversions.",
     ["tideflow.framework.indexed_slices", "tideflow.framework.ops", "tideflow"])
_add("framework.tensor_conversion_registry", "``register_tensor_conversion_function``.",
     ["tideflow.framework.ops"])
_add("framework.op_def_registry", "The registered ops.", [],
     get="tideflow.python._paths:_op_def", get_registered_ops="tideflow.python._paths:_op_defs")
_add("framework.load_library", "Loading op libraries.", ["tideflow"])
_add("framework.versions", "Version numbers.", ["tideflow"],
     __version__="tideflow:VERSION")
# -- training, platform, client, util -------------------------------------------------------
_add("training.training", "``tf.train``.", ["tideflow.train"])
_TABLE["training.training_ops"] = ("TF's generated training ops (``apply_adam``, ...).",
                                  "gen", {})
_add("training.tracking", "``tensorflow.python.training.tracking``.", [])
_add("training.tracking.util", "Object-based checkpoints (``Checkpoint``).",
     ["tideflow.train.trackable_checkpoint"])
_add("training.server_lib", "``Server`` and ``ClusterSpec``.", ["tideflow.train"])
_add("distribute", "``tensorflow.python.distribute``: distribution helpers.", [])
_add("distribute.all_reduce", "The all-reduce graph builders of ``tf.contrib.all_reduce``.",
     ["tideflow.contrib_collectives"])
_add("training.evaluation", "The evaluation loop behind Estimators' evaluate (TF's private names).",
     ["tideflow.train.contrib_evaluation"],
     _evaluate_once="tideflow.train.contrib_evaluation:evaluate_once",
     _StopAfterNEvalsHook="tideflow.train.contrib_evaluation:StopAfterNEvalsHook",
     _get_or_create_eval_step="tideflow.train.contrib_evaluation:get_or_create_eval_step")
_add("training.summary_io", "``SummaryWriter`` and ``summary_iterator``.",
     ["tideflow.train", "tideflow.summary"], SummaryWriter="tideflow.summary:FileWriter")
_add("platform.test", "``tf.test``.", ["tideflow.test"], _module="tideflow.test")
_add("platform.googletest", "``googletest``: ``tf.test``'s runner under TF's test-module name.",
     ["tideflow.test"], GetTempDir="tideflow.test:get_temp_dir")
_add("platform.resource_loader", "``tf.resource_loader``.", ["tideflow.resource_loader"],
     _module="tideflow.resource_loader")
_add("platform.sysconfig", "``tf.sysconfig``.", ["tideflow.sysconfig"],
     _module="tideflow.sysconfig")
_add("client.session", "``Session``, ``InteractiveSession``, ``BaseSession``.",
     ["tideflow", "tideflow.runtime.session"], SessionInterface="tideflow.runtime.session:BaseSession")
_add("util.deprecation", "Deprecation decorators.", ["tideflow.python._deprecation"],
     _module="tideflow.python._deprecation")
_add("util.tf_inspect", "``inspect`` through decorators.", ["tideflow.python._tf_inspect"],
     _module="tideflow.python._tf_inspect")
_add("util.lazy_loader", "``LazyLoader``: a module imported on first use.",
     ["tideflow.python._lazy_loader"], _module="tideflow.python._lazy_loader")
_add("util.tf_decorator", "Decorator helpers.", ["tideflow.python._deprecation"])
_add("tf2", "``tf2.enabled()``: whether TF 2 behaviour is on (never, in tideflow).", [],
     enabled="tideflow.python._paths:_tf2_enabled", enable="tideflow.python._paths:_tf2_enable",
     disable="tideflow.python._paths:_tf2_disable")
_add("util.all_util", "``remove_undocumented`` and ``make_all`` (``@@name`` docstring lists).",
     ["tideflow.python._all_util"], _module="tideflow.python._all_util")
_add("pywrap_tensorflow", "The checkpoint reader and the synchronous event writer (OpenAI "
     "baselines' logger) TF 1.x programs reach through TF's C++ wrapper.",
     [], NewCheckpointReader="tideflow.train:NewCheckpointReader",
     CheckpointReader="tideflow.train.checkpoint_utils:CheckpointReader",
     EventsWriter="tideflow.summary.writer:EventsWriter")
_add("pywrap_tensorflow_internal", "The same C++ wrapper names under their SWIG module "
     "(DeepChem imports the checkpoint reader from here).", ["tideflow.python.pywrap_tensorflow"])
_add("util.tf_contextlib", "``contextmanager`` (TF's keeps the decorated function's signature).",
     ["contextlib"])
_add("util.function_utils", "``fn_args``: the argument names a callable takes.",
     ["tideflow.python._tf_inspect"], fn_args="tideflow.estimator.estimator:fn_args")
# -- layers, lib.io, summary ----------------------------------------------------------------
# TF 1.x's layer modules also hold the old aliases of their classes and functions
_add("layers.convolutional", "``tf.layers`` convolutions.", ["tideflow.layers"],
     Convolution1D="tideflow.layers:Conv1D", Convolution3DTranspose="tideflow.layers:Conv3DTranspose",
     Deconvolution2D="tideflow.layers:Conv2DTranspose", Deconv2D="tideflow.layers:Conv2DTranspose",
     Deconvolution3D="tideflow.layers:Conv3DTranspose", Deconv3D="tideflow.layers:Conv3DTranspose",
     convolution1d="tideflow.layers:conv1d", convolution2d="tideflow.layers:conv2d",
     convolution3d="tideflow.layers:conv3d",
     separable_convolution2d="tideflow.layers:separable_conv2d",
     convolution2d_transpose="tideflow.layers:conv2d_transpose",
     deconvolution2d="tideflow.layers:conv2d_transpose", deconv2d="tideflow.layers:conv2d_transpose",
     convolution3d_transpose="tideflow.layers:conv3d_transpose",
     deconvolution3d="tideflow.layers:conv3d_transpose", deconv3d="tideflow.layers:conv3d_transpose")
_add("layers.normalization", "``tf.layers`` batch normalization.", ["tideflow.layers"],
     BatchNorm="tideflow.layers:BatchNormalization", batch_norm="tideflow.layers:batch_normalization")
_add("layers.pooling", "``tf.layers`` pooling.", ["tideflow.layers"],
     max_pool2d="tideflow.layers:max_pooling2d", avg_pool2d="tideflow.layers:average_pooling2d")
_add("layers.layers", "``tf.layers``.", ["tideflow.layers"])
_add("lib.io.tf_record", "TFRecord reading and writing.", ["tideflow.python_io"])
_add("lib.io.python_io", "``tf.python_io``.", ["tideflow.python_io"], _module="tideflow.python_io")
_add("summary", "``tensorflow.python.summary``.", [])
_add("summary.summary", "``tf.summary``.", ["tideflow.summary"])
_add("ops.summary_op_util", "The summary ops' naming helpers: ``summary_scope(name, family, "
     "default_name, values)`` yields ``(tag, scope)``; ``clean_tag``; ``skip_summary``; "
     "``collect(value, collections, default_collections)``.", [],
     collect="tideflow.summary.summary:_collect",
     summary_scope="tideflow.summary.summary:_SummaryScope",
     clean_tag="tideflow.summary.summary:_clean_tag",
     skip_summary="tideflow.python._paths:_no_skip")
_add("summary.summary_iterator", "``summary_iterator``.", ["tideflow.summary.summary_iterator",
                                                           "tideflow.train"])
_add("summary.plugin_asset", "TensorBoard plugin assets.", ["tideflow.summary.plugin_asset"],
     _module="tideflow.summary.plugin_asset")
_add("summary.writer", "``tensorflow.python.summary.writer``.", [])
_add("summary.writer.writer", "``FileWriter``.", ["tideflow.summary.writer", "tideflow.summary"])
_add("summary.writer.writer_cache", "``FileWriterCache``.", ["tideflow.summary"])
# -- saved_model ----------------------------------------------------------------------------
_add("saved_model", "``tf.saved_model``.", ["tideflow.saved_model"],
     simple_save="tideflow.python.saved_model.simple_save")  # the module, as in TF
for _sm in ("builder", "signature_constants", "tag_constants", "signature_def_utils", "utils",
            "loader", "main_op"):
    _add("saved_model." + _sm, f"``tf.saved_model.{_sm}``.", [f"tideflow.saved_model:{_sm}"],
         _module=f"tideflow.saved_model:{_sm}")
_add("saved_model.simple_save", "``simple_save``.", ["tideflow.saved_model"])
# TF 1.x's ``tensorflow.python.saved_model.saved_model``: the names of ``tf.saved_model`` with
# ``simple_save`` the function; ``tensorflow.python``'s ``saved_model`` attribute is this module
_add("saved_model.saved_model", "Convenience functions to save a model.",
     ["tideflow.saved_model"], simple_save="tideflow.saved_model:simple_save")
_add("saved_model.builder_impl", "``SavedModelBuilder``.", ["tideflow.saved_model:builder",
                                                            "tideflow.saved_model"])
_add("saved_model.constants", "SavedModel file and collection names.",
     ["tideflow.saved_model:constants"], _module="tideflow.saved_model:constants")
for _sm in ("signature_def_utils_impl", "utils_impl", "loader_impl", "main_op_impl"):
    _add("saved_model." + _sm, "``tf.saved_model`` implementation names.",
         ["tideflow.saved_model", "tideflow.ops.saved_model_impl"])
# -- estimator, data, eager, profiler, the rest ---------------------------------------------
_add("estimator", "``tf.estimator``.", ["tideflow.estimator"])
for _est in ("estimator", "model_fn", "run_config"):
    _add("estimator." + _est, "``tf.estimator``.", [f"tideflow.estimator.{_est}",
                                                    "tideflow.estimator"])
_add("estimator.util", "``fn_args``: the argument names a model_fn or input_fn takes.",
     ["tideflow.estimator.estimator"], fn_args="tideflow.estimator.estimator:fn_args")
_add("estimator.inputs", "``tf.estimator.inputs``.", ["tideflow.estimator.inputs"])
_add("estimator.inputs.numpy_io", "``numpy_input_fn``.", ["tideflow.estimator.inputs"])
_add("estimator.export", "``tf.estimator.export``.", ["tideflow.estimator.export"])
_add("estimator.export.export_output", "Export outputs.", ["tideflow.estimator.export"])
_add("estimator.canned", "Canned estimators.", ["tideflow.estimator"])
_add("estimator.canned.dnn", "DNN estimators.", ["tideflow.estimator.canned.dnn",
                                                 "tideflow.estimator"])
for _canned in ("linear", "baseline", "dnn_linear_combined", "head"):
    _add("estimator.canned." + _canned, "Canned estimators.",
         [f"tideflow.estimator.canned.{_canned}", "tideflow.estimator"])
_add("estimator.canned.optimizers", "``get_optimizer_instance``: an optimizer from a name or class.",
     ["tideflow.estimator.canned.head"])
_add("estimator.canned.metric_keys", "The canned heads' metric names.", [],
     MetricKeys="tideflow.estimator.canned.head:MetricKeys")
_add("estimator.canned.prediction_keys", "The canned heads' prediction names.", [],
     PredictionKeys="tideflow.estimator.canned.head:PredictionKeys")
_add("tpu", "``tensorflow.python.tpu``: ``tf.tpu``.", ["tideflow.tpu"])
for _tpu in ("tpu_estimator", "tpu_config"):
    _add("tpu." + _tpu, "``TPUEstimator`` and its configs, run on the CPU.",
         ["tideflow.estimator.tpu"])
_add("tpu.tpu_function", "``get_tpu_context``: the shard count (``None``: not sharded).",
     ["tideflow.tpu"])
_add("tpu.ops", "``tensorflow.python.tpu.ops``.", [])
_add("tpu.ops.tpu_ops", "The TPU collective ops that have a one-replica CPU meaning.",
     ["tideflow.tpu"])
_add("data", "``tensorflow.python.data``.", ["tideflow.data"])
_add("data.ops", "``tensorflow.python.data.ops``.", [])
_add("data.ops.dataset_ops", "``Dataset``.", ["tideflow.ops.dataset_ops", "tideflow.data"])
_add("data.ops.iterator_ops", "``Iterator``.", ["tideflow.ops.iterator_ops", "tideflow.data",
                                                "tideflow.ops.dataset_more"])
_add("data.ops.readers", "The file datasets (``TFRecordDataset``...).",
     ["tideflow.ops.dataset_readers", "tideflow.data"])
_add("data.ops.optional_ops", "``Optional``.", ["tideflow.ops.dataset_more"])
_add("data.experimental", "``tf.data.experimental``.", ["tideflow.ops.dataset_experimental"])
_add("data.experimental.ops", "``tensorflow.python.data.experimental.ops``.", [])
for _exp in ("batching", "interleave_ops", "readers", "error_ops", "shuffle_ops", "grouping",
             "scan_ops", "take_while_ops", "unique", "iterator_ops", "cardinality", "counter",
             "enumerate_ops", "get_single_element", "random_ops", "resampling",
             "prefetching_ops", "threading_options", "distribute_options",
             "optimization_options", "parsing_ops", "writers", "optimization", "stats_options"):
    _add("data.experimental.ops." + _exp, "``tf.data.experimental``.",
         ["tideflow.ops.dataset_experimental", "tideflow.ops.dataset_more"])
_add("data.util", "``tensorflow.python.data.util``.", [])
_add("data.util.nest", "``nest`` over dataset structures (a list is one leaf).",
     ["tideflow.ops.dataset_nest"], _module="tideflow.ops.dataset_nest")
_add("data.util.structure", "Type specs of element structures.",
     ["tideflow.python._data_structure"], _module="tideflow.python._data_structure")
_add("data.kernel_tests", "``tensorflow.python.data.kernel_tests``.", [])
_add("data.kernel_tests.test_base", "``DatasetTestBase`` of tf.data's tests.",
     ["tideflow.python._data_test_base"], _module="tideflow.python._data_test_base")
_add("eager", "``tensorflow.python.eager``: tideflow runs graphs only.", [])
_add("eager.context", "Eager context queries: tideflow is always in graph mode.",
     ["tideflow.python._eager_context"], _module="tideflow.python._eager_context")
_add("eager.function", "``defun``: tideflow's ``tf.function``.", ["tideflow"],
     defun="tideflow:function")
_add("eager.def_function", "``tf.function``.", ["tideflow"])
_add("eager.backprop", "``GradientTape`` (its tape records graph ops).", ["tideflow"])
_add("eager.execute", "Eager op dispatch: tideflow runs graphs only, so none is here.", [])
_add("profiler", "``tf.profiler``.", ["tideflow.profiler"])
for _prof in ("model_analyzer", "option_builder", "profiler"):
    _add("profiler." + _prof, "``tf.profiler``.", ["tideflow.profiler"])
_add("feature_column", "``tf.feature_column``.", ["tideflow.feature_column"])
_add("feature_column.feature_column", "``tf.feature_column``.",
     ["tideflow.feature_column.feature_column", "tideflow.feature_column"])
_add("feature_column.feature_column_v2", "``tf.feature_column`` (tideflow's columns serve TF's "
     "v1 and v2 column APIs alike).",
     ["tideflow.feature_column.feature_column", "tideflow.feature_column"],
     is_feature_column_v2="tideflow.python._paths:_is_feature_column_v2")
_add("feature_column.feature_column_lib", "``tf.feature_column`` (TF's v1 and v2 columns), "
     "``DenseFeatures`` and ``is_feature_column_v2``.",
     ["tideflow.feature_column.feature_column", "tideflow.feature_column"],
     DenseFeatures="tideflow.keras.layers.dense_features:DenseFeatures",
     is_feature_column_v2="tideflow.python._paths:_is_feature_column_v2")
_add("user_ops", "``tf.user_ops``.", ["tideflow.user_ops"])
_add("user_ops.user_ops", "``tf.user_ops``.", ["tideflow.user_ops"], _module="tideflow.user_ops")


def _resolve(spec):
    """``"pkg.mod"`` -> module, ``"pkg.mod:attr"`` -> that attribute, ``"pkg.mod:"`` -> module."""
    mod, _, attr = spec.partition(":")
    obj = importlib.import_module(mod)
    return getattr(obj, attr) if attr else obj


def _is_feature_column_v2(feature_columns):
    """Whether every item is a feature column: tideflow's columns serve both of TF's APIs, as
    the ``tf.feature_column`` ones TF 1.15 makes are v2 columns."""
    from tideflow.feature_column.feature_column import _FeatureColumn

    return all(isinstance(c, _FeatureColumn) for c in feature_columns)


def _tf2_enabled():
    return False


def _tf2_enable():
    from tideflow import compat

    compat.v1.enable_v2_behavior()  # raises: tideflow runs TF 1.x graphs only


def _tf2_disable():
    pass


def _no_skip():
    """``summary_op_util.skip_summary``: summaries are skipped only on TPU replicas."""
    return False


def _is_var(x):
    from tideflow.ops import variables

    return isinstance(x, variables.ResourceVariable)


def _op_defs():
    from tideflow.framework import op_registry

    op_registry.load_all_op_modules()
    return op_registry.registered_ops()


def _op_def(name):
    from tideflow.framework import op_registry

    return op_registry.lookup_or_load(name)


# ------------------------------------------------------------------------------------------
# gen_*_ops: snake_case wrappers of registered ops
# ------------------------------------------------------------------------------------------
_SNAKE = {}


def snake_case(op_type):
    """TF's Python name of an op type: ``MatMul`` -> ``mat_mul``, ``Conv2D`` -> ``conv2d``,
    ``LRNGrad`` -> ``lrn_grad``, ``BatchMatMulV2`` -> ``batch_mat_mul_v2``."""
    out = []
    for i, c in enumerate(op_type):
        if c.isupper():
            if i > 0 and (op_type[i - 1].islower() or
                          (i + 1 < len(op_type) and op_type[i + 1].islower()
                           and op_type[i - 1] != "_")):
                out.append("_")
            out.append(c.lower())
        else:
            out.append(c)
    return "".join(out)


def _gen_function(module_name, attr):
    if not _SNAKE:
        for op_type in _op_defs():
            _SNAKE.setdefault(snake_case(op_type), op_type)
    from tideflow import raw_ops

    if attr in _SNAKE.values():
        return getattr(raw_ops, attr)  # TF's gen modules also hold the raw op (``MatMul``)
    op_type = _SNAKE.get(attr) or _SNAKE.get(attr.lstrip("_"))
    if op_type is None:
        return None

    op_def = _op_def(op_type)
    raw = getattr(raw_ops, op_type)
    inferred = {a for arg in op_def.inputs
                for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a}
    attrs = [a for a in op_def.attrs.values() if a.name not in inferred]
    order = ([a.name for a in op_def.inputs] + [a.name for a in attrs if not a.has_default]
             + [a.name for a in attrs if a.has_default])
    # TF's Python names where its api_defs rename an argument (``squeeze(input, axis)``)
    tf_names = {v: k for k, v in raw_ops._RENAMES.get(op_type, {}).items()}
    order = [tf_names.get(n, n) for n in order]

    def op_function(*args, **kwargs):
        if len(args) > len(order):
            raise TypeError(f"{module_name}.{attr}() takes at most {len(order)} positional "
                            f"arguments {order} ({len(args)} given)")
        for key, value in zip(order, args):
            if key in kwargs:
                raise TypeError(f"{module_name}.{attr}() got multiple values for argument "
                                f"{key!r}")
            kwargs[key] = value
        return raw(**kwargs)

    op_function.__name__ = attr
    op_function.__qualname__ = attr
    op_function.__doc__ = f"The {op_type} op; arguments {order + ['name']}."
    return op_function


# ------------------------------------------------------------------------------------------
# the finder
# ------------------------------------------------------------------------------------------
def _make_getattr(module):
    path = module.__name__[len(_ROOT):]
    _doc, spaces, members = _TABLE[path]
    tf_name = "tensorflow.python." + path

    def __getattr__(attr):
        if attr in members and attr != "_module":
            value = _resolve(members[attr])
        elif spaces == "gen":
            value = _gen_function(tf_name, attr)
            if value is None:
                raise AttributeError(f"module {tf_name!r} has no attribute {attr!r}: no "
                                     f"registered op is named {attr!r} in snake_case")
        else:
            value = _MISSING
            if not attr.startswith("__"):
                for space in spaces:
                    obj = _resolve(space)
                    if hasattr(obj, attr):
                        value = getattr(obj, attr)
                        break
            if value is _MISSING:
                raise AttributeError(f"module {tf_name!r} has no attribute {attr!r} "
                                     f"(tideflow looked in {', '.join(spaces) or 'nothing'})")
        setattr(module, attr, value)
        return value

    return __getattr__


_MISSING = object()


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        path = module.__name__[len(_ROOT):]
        if "_module" in _TABLE[path][2]:
            # a path that is one tideflow module entire (``platform.test`` is ``tf.test``): the
            # import system hands out whatever sits in sys.modules after exec_module
            sys.modules[module.__name__] = _resolve(_TABLE[path][2]["_module"])
            return
        module.__doc__ = f"``tensorflow.python.{path}``: {_TABLE[path][0]}"
        module.__getattr__ = _make_getattr(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_ROOT) or fullname[len(_ROOT):] not in _TABLE:
            return None
        sub = fullname[len(_ROOT):]
        is_package = any(k.startswith(sub + ".") for k in _TABLE)
        spec = importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=is_package)
        if is_package:
            spec.submodule_search_locations = []
        return spec


def install():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


# TF 1.15's ``tensorflow.python`` package holds these modules as attributes (imported by its
# ``__init__``), so 2016-era programs write ``from tensorflow.python import control_flow_ops``
# (the batch-norm recipe of the time); each name -> its path under ``tideflow.python``. (Not
# ``ops`` and ``layers``: TF binds them to framework.ops and layers.layers, but here they are
# packages whose first submodule import rebinds the name.)
TOP_LEVEL_ALIASES = {
    "app": "platform.app", "array_grad": "ops.array_grad", "array_ops": "ops.array_ops",
    "bitwise": "ops.bitwise_ops", "check_ops": "ops.check_ops", "clip_ops": "ops.clip_ops",
    "compat": "util.compat", "constant_op": "framework.constant_op", "context": "eager.context",
    "control_flow_ops": "ops.control_flow_ops", "control_flow_util": "ops.control_flow_util",
    "data": "data", "deprecation": "util.deprecation", "distribute": "distribute",
    "dtypes": "framework.dtypes", "errors": "framework.errors",
    "errors_impl": "framework.errors_impl", "feature_column": "feature_column.feature_column_lib",
    "file_io": "lib.io.file_io", "flags": "platform.flags", "framework_ops": "framework.ops",
    "function_utils": "util.function_utils", "fwd_compat": "compat.compat",
    "gen_array_ops": "ops.gen_array_ops", "gen_control_flow_ops": "ops.gen_control_flow_ops",
    "gen_data_flow_ops": "ops.gen_data_flow_ops", "gen_io_ops": "ops.gen_io_ops",
    "gen_linalg_ops": "ops.gen_linalg_ops", "gen_math_ops": "ops.gen_math_ops",
    "gen_nn_ops": "ops.gen_nn_ops", "gen_parsing_ops": "ops.gen_parsing_ops",
    "gen_random_ops": "ops.gen_random_ops", "gen_sparse_ops": "ops.gen_sparse_ops",
    "gen_state_ops": "ops.gen_state_ops", "gen_string_ops": "ops.gen_string_ops",
    "gfile": "platform.gfile", "gradient_checker_v2": "ops.gradient_checker_v2",
    "graph_util": "framework.graph_util", "image": "ops.image_ops", "keras": "keras",
    "linalg": "ops.linalg.linalg", "logging": "platform.tf_logging",
    "losses": "ops.losses.losses", "manip": "ops.manip_ops", "map_fn": "ops.map_fn",
    "math_grad": "ops.math_grad", "math_ops": "ops.math_ops", "metrics": "ops.metrics",
    "nest": "util.nest", "nn": "ops.nn", "nn_ops": "ops.nn_ops",
    "profiler": "profiler.profiler", "pydev": "framework.device", "python_io": "lib.io.python_io",
    "ragged": "ops.ragged", "random_grad": "ops.random_grad", "random_ops": "ops.random_ops",
    "random_seed": "framework.random_seed", "resource_loader": "platform.resource_loader",
    "resource_variable_ops": "ops.resource_variable_ops", "rnn": "ops.rnn",
    "rnn_cell": "ops.rnn_cell", "sets": "ops.sets", "signal": "ops.signal.signal",
    "sparse_ops": "ops.sparse_ops", "sparse_tensor": "framework.sparse_tensor",
    "state_ops": "ops.state_ops", "summary": "summary.summary", "sysconfig": "platform.sysconfig",
    "tensor_array_ops": "ops.tensor_array_ops", "tensor_shape": "framework.tensor_shape",
    "tensor_spec": "framework.tensor_spec", "tensor_util": "framework.tensor_util",
    "test": "platform.test", "tf_inspect": "util.tf_inspect", "tf_logging": "platform.tf_logging",
    "train": "training.training", "user_ops": "user_ops.user_ops", "util_compat": "util.compat",
    "vs": "ops.variable_scope",
}
