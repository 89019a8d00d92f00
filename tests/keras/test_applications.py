"""tf.keras.applications: TF 1.15's application models (keras_applications 1.0.8).

The parameter counts, layer counts and output shapes below were observed with real TF 2.21's
``tf_keras.applications`` (the direct descendant of TF 1.15's models) built with
``weights=None, classes=10`` and the input shape given, ``include_top=True`` and then
``include_top=False, pooling='avg'``. Where keras_applications 1.0.8 (TF 1.15) differs from
tf_keras, the test says so: the classifier of ResNet is ``probs`` (tf_keras: ``predictions``),
DenseNet's is ``fc1000``, MobileNetV2's is ``Logits``; MobileNet v1's top is
``reshape_1/dropout/conv_preds/act_softmax/reshape_2`` (tf_keras: no ``reshape_1``, the
softmax layer named ``predictions``); the first convolutions of MobileNet and MobileNetV2 are
'valid' after an explicit ``conv1_pad``/``Conv1_pad`` (tf_keras: 'same', no padding layer), so
those models have two and one layers more than tf_keras's; InceptionResNetV2 scales its
residuals with ``Lambda`` layers (tf_keras: ``CustomScaleLayer``).

Outside these tests, every model (without top) was also built in tf_keras with random weights
and batch-norm statistics, saved with ``save_weights(.h5)``, loaded here by topology and run on
the same preprocessed images: the features agree to a relative 3e-6 at most.
"""

import re

import numpy as np
import pytest

import tideflow as tf

A = tf.keras.applications

# name: (constructor kwargs, params with top (classes=10), number of layers with top
#        (tf_keras's count, adjusted as the docstring says))
MODELS = {
    "VGG16": ({"input_shape": (32, 32, 3)}, 33638218, 23),
    "VGG19": ({"input_shape": (32, 32, 3)}, 38947914, 26),
    "ResNet50": ({"input_shape": (32, 32, 3)}, 23608202, 177),
    "ResNet101": ({"input_shape": (32, 32, 3)}, 42678666, 347),
    "ResNet152": ({"input_shape": (32, 32, 3)}, 58391434, 517),
    "ResNet50V2": ({"input_shape": (32, 32, 3)}, 23585290, 192),
    "ResNet101V2": ({"input_shape": (32, 32, 3)}, 42647050, 379),
    "ResNet152V2": ({"input_shape": (32, 32, 3)}, 58352138, 566),
    "InceptionV3": ({"input_shape": (75, 75, 3)}, 21823274, 313),
    "InceptionResNetV2": ({"input_shape": (75, 75, 3)}, 54352106, 782),
    "Xception": ({"input_shape": (71, 71, 3)}, 20881970, 134),
    "MobileNet": ({"input_shape": (32, 32, 3)}, 3239114, 91 + 2),
    "MobileNetV2": ({"input_shape": (32, 32, 3)}, 2270794, 156 + 1),
    "DenseNet121": ({"input_shape": (32, 32, 3)}, 7047754, 429),
    "DenseNet169": ({"input_shape": (32, 32, 3)}, 12659530, 597),
    "DenseNet201": ({"input_shape": (32, 32, 3)}, 18341194, 709),
    "NASNetMobile": ({"input_shape": (32, 32, 3)}, 4280286, 771),
    "NASNetLarge": ({"input_shape": (32, 32, 3)}, 84957148, 1041),
}

# the lighter models are also built without their top (pooling='avg'): params and features
WITHOUT_TOP = {
    "VGG16": (14714688, 512), "VGG19": (20024384, 512), "ResNet50": (23587712, 2048),
    "ResNet50V2": (23564800, 2048), "Xception": (20861480, 2048),
    "MobileNet": (3228864, 1024), "MobileNetV2": (2257984, 1280),
}

# a few layer names (and classes) each model must have, as TF 1.15 names them
NAMED_LAYERS = {
    "VGG16": [("block1_conv1", "Conv2D"), ("block5_pool", "MaxPooling2D"),
              ("flatten", "Flatten"), ("fc2", "Dense"), ("predictions", "Dense")],
    "VGG19": [("block3_conv4", "Conv2D"), ("block5_conv4", "Conv2D"), ("fc1", "Dense")],
    "ResNet50": [("conv1_pad", "ZeroPadding2D"), ("conv1_conv", "Conv2D"),
                 ("conv2_block1_0_conv", "Conv2D"), ("conv4_block6_3_bn", "BatchNormalization"),
                 ("conv5_block3_add", "Add"), ("conv5_block3_out", "Activation"),
                 ("avg_pool", "GlobalAveragePooling2D"), ("probs", "Dense")],
    "ResNet101": [("conv4_block23_out", "Activation"), ("probs", "Dense")],
    "ResNet152": [("conv3_block8_out", "Activation"), ("conv4_block36_out", "Activation")],
    "ResNet50V2": [("conv2_block1_preact_bn", "BatchNormalization"),
                   ("conv2_block3_2_pad", "ZeroPadding2D"), ("conv4_block6_out", "Add"),
                   ("post_bn", "BatchNormalization"), ("post_relu", "Activation"),
                   ("probs", "Dense")],
    "ResNet101V2": [("conv4_block23_out", "Add")],
    "ResNet152V2": [("conv3_block8_out", "Add"), ("conv4_block36_out", "Add")],
    "InceptionV3": [("conv2d", "Conv2D"), ("conv2d_93", "Conv2D"),
                    ("batch_normalization_93", "BatchNormalization"),
                    ("activation_93", "Activation"), ("mixed0", "Concatenate"),
                    ("mixed9_1", "Concatenate"), ("concatenate_1", "Concatenate"),
                    ("mixed10", "Concatenate"), ("avg_pool", "GlobalAveragePooling2D"),
                    ("predictions", "Dense")],
    "InceptionResNetV2": [("mixed_5b", "Concatenate"), ("block35_10_mixed", "Concatenate"),
                          ("block35_10_conv", "Conv2D"), ("block35_10", "Lambda"),
                          ("block17_20_ac", "Activation"), ("block8_10", "Lambda"),
                          ("conv_7b", "Conv2D"), ("conv_7b_bn", "BatchNormalization"),
                          ("conv_7b_ac", "Activation"), ("predictions", "Dense")],
    "Xception": [("block1_conv1", "Conv2D"), ("block2_sepconv1", "SeparableConv2D"),
                 ("block13_pool", "MaxPooling2D"), ("conv2d_3", "Conv2D"), ("add_11", "Add"),
                 ("block14_sepconv2_act", "Activation"), ("predictions", "Dense")],
    "MobileNet": [("conv1_pad", "ZeroPadding2D"), ("conv1", "Conv2D"), ("conv1_relu", "ReLU"),
                  ("conv_dw_1", "DepthwiseConv2D"), ("conv_pad_12", "ZeroPadding2D"),
                  ("conv_pw_13_relu", "ReLU"), ("reshape_1", "Reshape"),
                  ("conv_preds", "Conv2D"), ("act_softmax", "Activation"),
                  ("reshape_2", "Reshape")],
    "MobileNetV2": [("Conv1_pad", "ZeroPadding2D"), ("bn_Conv1", "BatchNormalization"),
                    ("expanded_conv_depthwise", "DepthwiseConv2D"),
                    ("block_1_pad", "ZeroPadding2D"), ("block_2_add", "Add"),
                    ("block_16_project_BN", "BatchNormalization"), ("Conv_1", "Conv2D"),
                    ("out_relu", "ReLU"), ("Logits", "Dense")],
    "DenseNet121": [("zero_padding2d", "ZeroPadding2D"), ("conv1/conv", "Conv2D"),
                    ("conv2_block6_concat", "Concatenate"), ("pool4_pool", "AveragePooling2D"),
                    ("conv5_block16_2_conv", "Conv2D"), ("bn", "BatchNormalization"),
                    ("relu", "Activation"), ("fc1000", "Dense")],
    "DenseNet169": [("conv4_block32_concat", "Concatenate"), ("fc1000", "Dense")],
    "DenseNet201": [("conv4_block48_concat", "Concatenate"), ("fc1000", "Dense")],
    "NASNetMobile": [("stem_conv1", "Conv2D"), ("reduction_pad_1_stem_1", "ZeroPadding2D"),
                     ("separable_conv_1_pad_reduction_left1_stem_1", "ZeroPadding2D"),
                     ("adjust_avg_pool_2_stem_2", "AveragePooling2D"),
                     ("cropping2d", "Cropping2D"), ("normal_concat_12", "Concatenate"),
                     ("reduction_add4_reduce_8", "Add"), ("predictions", "Dense")],
    "NASNetLarge": [("normal_concat_18", "Concatenate"),
                    ("adjust_conv_projection_1", "Conv2D"), ("reduction_concat_reduce_12",
                                                             "Concatenate")],
}

def _kinds(model):
    return {layer.name: type(layer).__name__ for layer in model.layers}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_architecture_matches_tf(name):
    kwargs, with_top, n_layers = MODELS[name]
    model = getattr(A, name)(weights=None, classes=10, **kwargs)
    assert model.count_params() == with_top
    assert len(model.layers) == n_layers
    assert model.output_shape == (None, 10)
    kinds = _kinds(model)
    for layer_name, kind in NAMED_LAYERS[name]:
        assert kinds.get(layer_name) == kind, layer_name
    if name in WITHOUT_TOP:
        params, channels = WITHOUT_TOP[name]
        tf.keras.backend.clear_session()
        model = getattr(A, name)(weights=None, include_top=False, pooling="avg", **kwargs)
        assert model.count_params() == params
        assert model.output_shape == (None, channels)


def test_layers_in_keras_order():
    # Keras lists a network's layers by decreasing depth: in a residual block the long branch
    # comes before the shortcut convolution created first (as tf_keras's ResNet50 shows)
    names = [layer.name for layer in A.ResNet50(weights=None, include_top=False,
                                                input_shape=(32, 32, 3)).layers]
    assert names[:8] == ["input_1", "conv1_pad", "conv1_conv", "conv1_bn", "conv1_relu",
                         "pool1_pad", "pool1_pool", "conv2_block1_1_conv"]
    assert names.index("conv2_block1_2_conv") < names.index("conv2_block1_0_conv")
    assert names[-3:] == ["conv5_block3_3_bn", "conv5_block3_add", "conv5_block3_out"]


def test_forward_pass_shapes():
    x = np.random.RandomState(0).uniform(0, 255, (2, 32, 32, 3)).astype(np.float32)
    model = A.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, include_top=False, weights=None)
    assert model.name == "mobilenetv2_0.35_32"
    assert model.predict(A.mobilenet_v2.preprocess_input(x.copy())).shape == (2, 1, 1, 1280)
    tf.keras.backend.clear_session()
    model = A.ResNet50(weights=None, classes=10, input_shape=(32, 32, 3))
    probs = model.predict(A.resnet50.preprocess_input(x.copy()))
    assert probs.shape == (2, 10)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)


def test_mobilenetv2_base_with_new_head_trains():
    base = A.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, include_top=False, weights=None)
    x = tf.keras.layers.GlobalAveragePooling2D()(base.output)
    out = tf.keras.layers.Dense(3, activation="softmax")(x)
    model = tf.keras.Model(base.input, out)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.001),
                  loss="sparse_categorical_crossentropy")
    rs = np.random.RandomState(0)
    images = rs.uniform(-1, 1, (16, 32, 32, 3)).astype(np.float32)
    labels = rs.randint(0, 3, 16)
    history = model.fit(images, labels, batch_size=16, epochs=4, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0], losses


def test_input_tensor_keeps_its_predecessors():
    inp = tf.keras.Input(shape=(32, 32, 3))
    scaled = tf.keras.layers.Lambda(lambda t: t / 127.5 - 1.0, name="scale")(inp)
    model = A.MobileNet(input_tensor=scaled, alpha=0.25, include_top=False, weights=None)
    assert model.inputs == [inp]
    assert model.layers[1].name == "scale"
    x = np.full((1, 32, 32, 3), 127.5, np.float32)
    assert model.predict(x).shape == (1, 1, 1, 256)
    # a plain tensor is wrapped in an Input layer
    tf.keras.backend.clear_session()
    placeholder = tf.placeholder(tf.float32, (None, 32, 32, 3))
    model = A.VGG16(input_tensor=placeholder, include_top=False, weights=None)
    assert model.input is placeholder
    assert model.output_shape == (None, 1, 1, 512)


def test_input_shape_and_argument_checks():
    with pytest.raises(ValueError, match=r"Input size must be at least 32x32; got "
                                         r"`input_shape=\(31, 31, 3\)`"):
        A.ResNet50(input_shape=(31, 31, 3), include_top=False, weights=None)
    with pytest.raises(ValueError, match=r"Input size must be at least 75x75"):
        A.InceptionV3(input_shape=(74, 74, 3), include_top=False, weights=None)
    with pytest.raises(ValueError, match="you should specify a static `input_shape`"):
        A.VGG16(input_shape=(None, None, 3), weights=None)
    with pytest.raises(ValueError, match="`input_shape` must be a tuple of three integers"):
        A.VGG16(input_shape=(64, 64), include_top=False, weights=None)
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        A.VGG16(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="or the path to the weights file to be loaded"):
        A.VGG16(weights="no/such/file.h5")
    with pytest.raises(ValueError, match=r"The input must have 3 channels; got "
                                         r"`input_shape=\(64, 64, 1\)`"):
        A.VGG16(weights="imagenet", input_shape=(64, 64, 1), include_top=False)
    with pytest.raises(ValueError, match=r"`input_shape` should be \(224, 224, 3\)"):
        A.ResNet50(weights="imagenet", input_shape=(64, 64, 3))
    with pytest.raises(ValueError, match="alpha can be one of"):
        A.MobileNet(weights="imagenet", alpha=0.3, include_top=False)
    with pytest.raises(ValueError, match="depth multiplier must be 1"):
        A.MobileNet(weights="imagenet", depth_multiplier=2, include_top=False)
    with pytest.raises(ValueError, match=r"static square shape .* = \(100, 100, 3\)"):
        A.MobileNet(weights="imagenet", include_top=False, input_shape=(100, 100, 3))
    with pytest.raises(ValueError, match="`1.3` or `1.4` only"):
        A.MobileNetV2(weights="imagenet", alpha=0.3, include_top=False)
    with pytest.warns(UserWarning, match="usually expects 1 or 3 input channels"):
        A.VGG16(weights=None, include_top=False, input_shape=(32, 32, 5))


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    """An empty Keras cache (``~/.keras/models`` under a temporary home) and no network: the
    download ``get_file`` tries fails as on a machine without one."""
    from urllib.error import URLError

    from tideflow.keras import data_utils

    def offline(url, filename=None, *args, **kwargs):
        raise URLError("no network in this test")

    monkeypatch.setattr(data_utils, "urlretrieve", offline)
    monkeypatch.setenv("HOME", str(tmp_path))
    models = tmp_path / ".keras" / "models"
    models.mkdir(parents=True)
    return models


def test_imagenet_weights_missing_from_the_cache_name_the_url(keras_home):
    url = ("https://github.com/fchollet/deep-learning-models/releases/download/v0.1/"
           "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5")
    with pytest.raises(Exception, match="URL fetch failure on " + re.escape(url)) as info:
        A.VGG16(weights="imagenet", include_top=False)
    assert str(keras_home / "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5") in \
        str(info.value)


def _set_random_weights(model, seed):
    rs = np.random.RandomState(seed)
    values = [rs.uniform(0.5, 1.5, w.get_shape().as_list()).astype(np.float32)
              for w in model.weights]
    tf.keras.backend.batch_set_value(list(zip(model.weights, values)))
    return values


def test_imagenet_weights_come_from_the_cache(keras_home):
    # MobileNet's files carry no hash in Keras: any file of the right name is taken
    model = A.MobileNet(input_shape=(128, 128, 3), alpha=0.25, include_top=False, weights=None)
    values = _set_random_weights(model, 1)
    model.save_weights(str(keras_home / "mobilenet_2_5_128_tf_no_top.h5"))
    tf.keras.backend.clear_session()
    loaded = A.MobileNet(input_shape=(128, 128, 3), alpha=0.25, include_top=False,
                         weights="imagenet")
    for w, v in zip(tf.keras.backend.batch_get_value(loaded.weights), values):
        np.testing.assert_array_equal(w, v)


def test_cached_file_with_a_wrong_hash_is_fetched_again(keras_home, capsys):
    # VGG16's file has an md5 in Keras: our own file does not match it, so get_file fetches
    # the file again, which fails offline
    model = A.VGG16(include_top=False, weights=None, input_shape=(32, 32, 3))
    model.save_weights(str(keras_home / "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5"))
    tf.keras.backend.clear_session()
    with pytest.raises(Exception, match="URL fetch failure on https://github.com/"):
        A.VGG16(include_top=False, weights="imagenet", input_shape=(32, 32, 3))
    assert "6d6bbae143d832006294945121d1f1fc" in capsys.readouterr().out


def test_weights_from_a_file_written_by_save_weights(tmp_path):
    kwargs = {"input_shape": (32, 32, 3), "alpha": 0.35, "weights": None, "classes": 4}
    model = A.MobileNetV2(**kwargs)
    _set_random_weights(model, 2)
    x = np.random.RandomState(3).uniform(-1, 1, (2, 32, 32, 3)).astype(np.float32)
    expected = model.predict(x)
    path = str(tmp_path / "mnv2.h5")
    model.save_weights(path)
    tf.keras.backend.clear_session()
    loaded = A.MobileNetV2(**dict(kwargs, weights=path))
    np.testing.assert_allclose(loaded.predict(x), expected, rtol=1e-5, atol=1e-6)


CAFFE_MEAN = np.array([103.939, 116.779, 123.68], np.float32)  # B, G, R
TORCH_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
TORCH_STD = np.array([0.229, 0.224, 0.225], np.float32)


def _images():
    return np.random.RandomState(4).uniform(0, 255, (2, 5, 6, 3)).astype(np.float32)


def test_preprocess_input_numpy_modes():
    x = _images()
    np.testing.assert_allclose(A.vgg16.preprocess_input(x.copy()), x[..., ::-1] - CAFFE_MEAN,
                               rtol=1e-6)
    np.testing.assert_allclose(A.resnet50.preprocess_input(x.copy()),
                               x[..., ::-1] - CAFFE_MEAN, rtol=1e-6)
    np.testing.assert_allclose(A.mobilenet_v2.preprocess_input(x.copy()), x / 127.5 - 1.0,
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(A.densenet.preprocess_input(x.copy()),
                               (x / 255.0 - TORCH_MEAN) / TORCH_STD, rtol=1e-5, atol=1e-6)
    # channels_first: the channel axis is 1 (or 0 for one image)
    xcf = np.transpose(x, (0, 3, 1, 2))
    np.testing.assert_allclose(
        A.imagenet_utils.preprocess_input(xcf.copy(), data_format="channels_first"),
        np.transpose(x[..., ::-1] - CAFFE_MEAN, (0, 3, 1, 2)), rtol=1e-6)
    np.testing.assert_allclose(
        A.imagenet_utils.preprocess_input(xcf[0].copy(), data_format="channels_first",
                                          mode="torch"),
        np.transpose((x[0] / 255.0 - TORCH_MEAN) / TORCH_STD, (2, 0, 1)), rtol=1e-5,
        atol=1e-6)
    # integers become floatx; float arrays are preprocessed in place, as in Keras
    ints = x.astype(np.uint8)
    out = A.inception_v3.preprocess_input(ints)
    assert out.dtype == np.float32 and ints.dtype == np.uint8
    floats = x.copy()
    A.xception.preprocess_input(floats)
    np.testing.assert_allclose(floats, x / 127.5 - 1.0, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="Unknown data_format channels_middle"):
        A.imagenet_utils.preprocess_input(x, data_format="channels_middle")


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
def test_preprocess_input_tensor_equals_numpy(mode):
    x = _images()
    t = tf.placeholder(tf.float32, (None, 5, 6, 3))
    out = A.imagenet_utils.preprocess_input(t, mode=mode)
    with tf.Session() as sess:
        got = sess.run(out, {t: x})
    np.testing.assert_allclose(got, A.imagenet_utils.preprocess_input(x.copy(), mode=mode),
                               rtol=1e-5, atol=1e-5)


def test_decode_predictions(keras_home, monkeypatch):
    with pytest.raises(ValueError, match=r"Found array with shape: \(2, 10\)"):
        A.resnet50.decode_predictions(np.zeros((2, 10)))
    monkeypatch.setattr(A.imagenet_utils, "CLASS_INDEX", None)
    with pytest.raises(Exception, match="URL fetch failure on .*imagenet_class_index.json"):
        A.vgg16.decode_predictions(np.zeros((1, 1000)))
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    monkeypatch.setattr(A.imagenet_utils, "CLASS_INDEX", index)
    preds = np.random.RandomState(5).dirichlet(np.ones(1000), size=2)
    decoded = A.mobilenet.decode_predictions(preds, top=3)
    for row, p in zip(decoded, preds):
        best = np.argsort(p)[::-1][:3]
        assert [r[1] for r in row] == [f"class_{i}" for i in best]
        assert [r[2] for r in row] == [p[i] for i in best]


def test_clear_session_lets_the_graph_go():
    # the Keras state of a graph (tensors' history, variables) goes with the graph: the big
    # graphs of these models are freed once the session is cleared
    import gc
    import weakref

    model = A.MobileNet(input_shape=(32, 32, 3), alpha=0.25, weights=None, classes=10)
    graph = weakref.ref(model.output.graph)
    del model
    tf.keras.backend.clear_session()
    gc.collect()
    assert graph() is None
