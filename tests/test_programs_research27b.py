"""TF 1.x research programs tideflow had not seen (neural style transfer, fast style transfer,
DeepDream, Glow, ELMo's biLM, XLNet), reduced to standalone forms with small synthetic data: API
calls, graph structure and training loops kept, sizes and step counts shrunk, no downloads. Each
test runs the reduced program and compares what it prints, line by line, with what TF 1.15
(tensorflow-cpu 1.15.0) printed running the same program with the same seeds (measured). Where
a program trains through convolutions its numbers may differ from TF 1.15 in the last float32
digits (summation order), so those are compared to a stated relative tolerance; all text is
compared exactly. The programs keep their authors' code style, hence the lint exemptions."""
# ruff: noqa: F401, F841, UP031, C417, RUF059

import re
import sys

import numpy as np
import pytest

import tideflow as tf
from tests.printed_programs import same_printed as _same


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield




def test_neural_style(capsys):
    # anishathalye/neural-style stylize.py + vgg.py (VGG19 .mat weights -> random 4-channel kernels; 16x16 images; 3 iterations)
    # anishathalye/neural-style stylize.py + vgg.py (VGG19 weights dict -> random, sizes shrunk)
    from collections import OrderedDict
    from functools import reduce
    VGG19_LAYERS = (
        'conv1_1', 'relu1_1', 'conv1_2', 'relu1_2', 'pool1',
        'conv2_1', 'relu2_1', 'conv2_2', 'relu2_2', 'pool2',
        'conv3_1', 'relu3_1', 'conv3_2', 'relu3_2', 'conv3_3',
        'relu3_3', 'conv3_4', 'relu3_4', 'pool3',
        'conv4_1', 'relu4_1', 'conv4_2', 'relu4_2', 'conv4_3',
        'relu4_3', 'conv4_4', 'relu4_4', 'pool4',
        'conv5_1', 'relu5_1', 'conv5_2', 'relu5_2', 'conv5_3',
        'relu5_3', 'conv5_4', 'relu5_4')
    def load_net(rng):
        weights = []
        cin = 3
        for name in VGG19_LAYERS:
            if name[:4] == 'conv':
                k = (rng.randn(3, 3, cin, 4) * 0.3).astype(np.float32)
                b = (rng.randn(1, 4) * 0.1).astype(np.float32)
                weights.append([[[[(k, b)]]]])
                cin = 4
            else:
                weights.append(None)
        return weights, np.array([123.68, 116.779, 103.939])
    def net_preloaded(weights, input_image, pooling):
        net = {}
        current = input_image
        for i, name in enumerate(VGG19_LAYERS):
            kind = name[:4]
            if kind == 'conv':
                kernels, bias = weights[i][0][0][0][0]
                kernels = np.transpose(kernels, (1, 0, 2, 3))
                bias = bias.reshape(-1)
                current = _conv_layer(current, kernels, bias)
            elif kind == 'relu':
                current = tf.nn.relu(current)
            elif kind == 'pool':
                current = _pool_layer(current, pooling)
            net[name] = current
        assert len(net) == len(VGG19_LAYERS)
        return net
    def _conv_layer(input, weights, bias):
        conv = tf.nn.conv2d(input, tf.constant(weights), strides=(1, 1, 1, 1), padding='SAME')
        return tf.nn.bias_add(conv, bias)
    def _pool_layer(input, pooling):
        if pooling == 'avg':
            return tf.nn.avg_pool(input, ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding='SAME')
        else:
            return tf.nn.max_pool(input, ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding='SAME')
    def preprocess(image, mean_pixel):
        return image - mean_pixel
    def unprocess(image, mean_pixel):
        return image + mean_pixel
    CONTENT_LAYERS = ('relu4_2', 'relu5_2')
    STYLE_LAYERS = ('relu1_1', 'relu2_1', 'relu3_1', 'relu4_1', 'relu5_1')
    def get_loss_vals(loss_store):
        return OrderedDict((key, val.eval()) for key, val in loss_store.items())
    def print_progress(loss_vals):
        for key, val in loss_vals.items():
            print('{:>13s} {:g}'.format(key + ' loss:', val))
    def _tensor_size(tensor):
        from operator import mul
        return reduce(mul, (d.value for d in tensor.get_shape()), 1)
    def stylize(network, initial, initial_noiseblend, content, styles, iterations,
                content_weight, content_weight_blend, style_weight, style_layer_weight_exp, style_blend_weights, tv_weight,
                learning_rate, beta1, beta2, epsilon, pooling, print_iterations=None, checkpoint_iterations=None):
        shape = (1,) + content.shape
        style_shapes = [(1,) + style.shape for style in styles]
        content_features = {}
        style_features = [{} for _ in styles]
        vgg_weights, vgg_mean_pixel = network
        layer_weight = 1.0
        style_layers_weights = {}
        for style_layer in STYLE_LAYERS:
            style_layers_weights[style_layer] = layer_weight
            layer_weight *= style_layer_weight_exp
        layer_weights_sum = 0
        for style_layer in STYLE_LAYERS:
            layer_weights_sum += style_layers_weights[style_layer]
        for style_layer in STYLE_LAYERS:
            style_layers_weights[style_layer] /= layer_weights_sum
        g = tf.Graph()
        with g.as_default(), g.device('/cpu:0'), tf.Session() as sess:
            image = tf.placeholder('float', shape=shape)
            net = net_preloaded(vgg_weights, image, pooling)
            content_pre = np.array([preprocess(content, vgg_mean_pixel)])
            for layer in CONTENT_LAYERS:
                content_features[layer] = net[layer].eval(feed_dict={image: content_pre})
            print(image, net['pool4'], net['relu5_2'])
        for i in range(len(styles)):
            g = tf.Graph()
            with g.as_default(), g.device('/cpu:0'), tf.Session() as sess:
                image = tf.placeholder('float', shape=style_shapes[i])
                net = net_preloaded(vgg_weights, image, pooling)
                style_pre = np.array([preprocess(styles[i], vgg_mean_pixel)])
                for layer in STYLE_LAYERS:
                    features = net[layer].eval(feed_dict={image: style_pre})
                    features = np.reshape(features, (-1, features.shape[3]))
                    gram = np.matmul(features.T, features) / features.size
                    style_features[i][layer] = gram
        print({k: (v.shape, v.dtype.name) for k, v in sorted(style_features[0].items())})
        initial_content_noise_coeff = 1.0 - initial_noiseblend
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            if initial is None:
                initial = tf.random_normal(shape) * 0.256
            else:
                initial = np.array([preprocess(initial, vgg_mean_pixel)])
                initial = initial.astype('float32')
                initial = (initial) * initial_content_noise_coeff + (tf.random_normal(shape) * 0.256) * (1.0 - initial_content_noise_coeff)
            image = tf.Variable(initial)
            net = net_preloaded(vgg_weights, image, pooling)
            content_layers_weights = {}
            content_layers_weights['relu4_2'] = content_weight_blend
            content_layers_weights['relu5_2'] = 1.0 - content_weight_blend
            content_loss = 0
            content_losses = []
            for content_layer in CONTENT_LAYERS:
                content_losses.append(content_layers_weights[content_layer] * content_weight * (2 * tf.nn.l2_loss(
                    net[content_layer] - content_features[content_layer]) / content_features[content_layer].size))
            content_loss += reduce(tf.add, content_losses)
            style_loss = 0
            for i in range(len(styles)):
                style_losses = []
                for style_layer in STYLE_LAYERS:
                    layer = net[style_layer]
                    _, height, width, number = map(lambda i: i.value, layer.get_shape())
                    size = height * width * number
                    feats = tf.reshape(layer, (-1, number))
                    gram = tf.matmul(tf.transpose(feats), feats) / size
                    style_gram = style_features[i][style_layer]
                    style_losses.append(style_layers_weights[style_layer] * 2 * tf.nn.l2_loss(gram - style_gram) / style_gram.size)
                style_loss += style_weight * style_blend_weights[i] * reduce(tf.add, style_losses)
            tv_y_size = _tensor_size(image[:, 1:, :, :])
            tv_x_size = _tensor_size(image[:, :, 1:, :])
            tv_loss = tv_weight * 2 * (
                (tf.nn.l2_loss(image[:, 1:, :, :] - image[:, :shape[1] - 1, :, :]) / tv_y_size) +
                (tf.nn.l2_loss(image[:, :, 1:, :] - image[:, :, :shape[2] - 1, :]) / tv_x_size))
            loss = content_loss + style_loss + tv_loss
            print(content_loss, style_loss, tv_loss, loss)
            loss_store = OrderedDict([('content', content_loss), ('style', style_loss), ('tv', tv_loss), ('total', loss)])
            train_step = tf.train.AdamOptimizer(learning_rate, beta1, beta2, epsilon).minimize(loss)
            print(train_step.name, [v.name for v in tf.global_variables()])
            best_loss = float('inf')
            best = None
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                print('Optimization started...')
                if (print_iterations and print_iterations != 0):
                    print_progress(get_loss_vals(loss_store))
                for i in range(iterations):
                    print('Iteration %4d/%4d' % (i + 1, iterations))
                    train_step.run()
                    last_step = (i == iterations - 1)
                    if last_step or (print_iterations and i % print_iterations == 0):
                        loss_vals = get_loss_vals(loss_store)
                        print_progress(loss_vals)
                    else:
                        loss_vals = None
                    if (checkpoint_iterations and i % checkpoint_iterations == 0) or last_step:
                        this_loss = loss.eval()
                        if this_loss < best_loss:
                            best_loss = this_loss
                            best = image.eval()
                        img_out = unprocess(best.reshape(shape[1:]), vgg_mean_pixel)
                    else:
                        img_out = None
                    yield i + 1 if last_step else i, img_out, loss_vals
    rng = np.random.RandomState(0)
    network = load_net(rng)
    content = rng.uniform(0, 255, (16, 16, 3))
    style = rng.uniform(0, 255, (16, 16, 3))
    for pooling, initial in (('max', None), ('avg', content)):
        for it, img, lv in stylize(network, initial, 0.5, content, [style], 3, 5e0, 1.0, 5e2, 1.0, [1.0], 1e2,
                                   1e1, 0.9, 0.999, 1e-08, pooling, print_iterations=2, checkpoint_iterations=2):
            if img is not None:
                print(it, img.shape, img.dtype, np.round(img[0, 0], 3).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["neural_style"], 0.0001)


def test_fast_style(capsys):
    # lengstrom/fast-style-transfer src/transform.py + src/vgg.py + src/optimize.py (Adam, and the slow path with tf.contrib.opt.ScipyOptimizerInterface L-BFGS-B; weights random, 16x16 images)
    # lengstrom/fast-style-transfer src/transform.py + src/vgg.py + src/optimize.py (weights random, sizes shrunk)
    import functools
    WEIGHTS_INIT_STDEV = .1
    def tnet(image):
        conv1 = _conv_layer(image, 4, 9, 1)
        conv2 = _conv_layer(conv1, 6, 3, 2)
        conv3 = _conv_layer(conv2, 8, 3, 2)
        resid1 = _residual_block(conv3, 3)
        resid2 = _residual_block(resid1, 3)
        conv_t1 = _conv_tranpose_layer(resid2, 6, 3, 2)
        conv_t2 = _conv_tranpose_layer(conv_t1, 4, 3, 2)
        conv_t3 = _conv_layer(conv_t2, 3, 9, 1, relu=False)
        preds = tf.nn.tanh(conv_t3) * 150 + 255./2
        return preds
    def _conv_layer(net, num_filters, filter_size, strides, relu=True):
        weights_init = _conv_init_vars(net, num_filters, filter_size)
        strides_shape = [1, strides, strides, 1]
        net = tf.nn.conv2d(net, weights_init, strides_shape, padding='SAME')
        net = _instance_norm(net)
        if relu:
            net = tf.nn.relu(net)
        return net
    def _conv_tranpose_layer(net, num_filters, filter_size, strides):
        weights_init = _conv_init_vars(net, num_filters, filter_size, transpose=True)
        batch_size, rows, cols, in_channels = [i.value for i in net.get_shape()]
        new_rows, new_cols = int(rows * strides), int(cols * strides)
        new_shape = [batch_size, new_rows, new_cols, num_filters]
        tf_shape = tf.stack(new_shape)
        strides_shape = [1, strides, strides, 1]
        net = tf.nn.conv2d_transpose(net, weights_init, tf_shape, strides_shape, padding='SAME')
        net = _instance_norm(net)
        return tf.nn.relu(net)
    def _residual_block(net, filter_size=3):
        tmp = _conv_layer(net, 8, filter_size, 1)
        return net + _conv_layer(tmp, 8, filter_size, 1, relu=False)
    def _instance_norm(net, train=True):
        batch, rows, cols, channels = [i.value for i in net.get_shape()]
        var_shape = [channels]
        mu, sigma_sq = tf.nn.moments(net, [1, 2], keep_dims=True)
        shift = tf.Variable(tf.zeros(var_shape))
        scale = tf.Variable(tf.ones(var_shape))
        epsilon = 1e-3
        normalized = (net - mu) / (sigma_sq + epsilon) ** (.5)
        return scale * normalized + shift
    def _conv_init_vars(net, out_channels, filter_size, transpose=False):
        _, rows, cols, in_channels = [i.value for i in net.get_shape()]
        if not transpose:
            weights_shape = [filter_size, filter_size, in_channels, out_channels]
        else:
            weights_shape = [filter_size, filter_size, out_channels, in_channels]
        weights_init = tf.Variable(tf.truncated_normal(weights_shape, stddev=WEIGHTS_INIT_STDEV, seed=1), dtype=tf.float32)
        return weights_init
    MEAN_PIXEL = np.array([123.68, 116.779, 103.939])
    LAYERS = ('conv1_1', 'relu1_1', 'conv1_2', 'relu1_2', 'pool1', 'conv2_1', 'relu2_1', 'conv2_2', 'relu2_2', 'pool2',
              'conv3_1', 'relu3_1', 'conv3_2', 'relu3_2', 'pool3', 'conv4_1', 'relu4_1', 'conv4_2', 'relu4_2', 'pool4',
              'conv5_1', 'relu5_1')
    _rng = np.random.RandomState(1)
    WEIGHTS = [(_rng.randn(3, 3, 3 if i == 0 else 4, 4).astype(np.float32) * 0.2, _rng.randn(1, 4).astype(np.float32) * 0.1) for i in range(len(LAYERS))]
    def vnet(data_path, input_image):
        weights = WEIGHTS
        net = {}
        current = input_image
        for i, name in enumerate(LAYERS):
            kind = name[:4]
            if kind == 'conv':
                kernels, bias = weights[i]
                kernels = np.transpose(kernels, (1, 0, 2, 3))
                bias = bias.reshape(-1)
                conv = tf.nn.conv2d(current, tf.constant(kernels), strides=(1, 1, 1, 1), padding='SAME')
                current = tf.nn.bias_add(conv, bias)
            elif kind == 'relu':
                current = tf.nn.relu(current)
            elif kind == 'pool':
                current = tf.nn.max_pool(current, ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding='SAME')
            net[name] = current
        assert len(net) == len(LAYERS)
        return net
    def preprocess(image):
        return image - MEAN_PIXEL
    STYLE_LAYERS = ('relu1_1', 'relu2_1', 'relu3_1', 'relu4_1', 'relu5_1')
    CONTENT_LAYER = 'relu4_2'
    def _tensor_size(tensor):
        from operator import mul
        return functools.reduce(mul, (d.value for d in tensor.get_shape()[1:]), 1)
    def optimize(content_targets, style_target, content_weight, style_weight, tv_weight, vgg_path, epochs=2,
                 print_iterations=1000, batch_size=4, save_path='saver/fns.ckpt', slow=False, learning_rate=1e-3, debug=False):
        mod = len(content_targets) % batch_size
        if mod > 0:
            print("Train set has been trimmed slightly..")
            content_targets = content_targets[:-mod]
        style_features = {}
        batch_shape = (batch_size, 16, 16, 3)
        style_shape = (1,) + style_target.shape
        print(style_shape)
        with tf.Graph().as_default(), tf.device('/cpu:0'), tf.Session() as sess:
            style_image = tf.placeholder(tf.float32, shape=style_shape, name='style_image')
            style_image_pre = preprocess(style_image)
            net = vnet(vgg_path, style_image_pre)
            style_pre = np.array([style_target])
            for layer in STYLE_LAYERS:
                features = net[layer].eval(feed_dict={style_image: style_pre})
                features = np.reshape(features, (-1, features.shape[3]))
                gram = np.matmul(features.T, features) / features.size
                style_features[layer] = gram
            print(style_image_pre)
        with tf.Graph().as_default(), tf.Session() as sess:
            tf.set_random_seed(7)
            X_content = tf.placeholder(tf.float32, shape=batch_shape, name="X_content")
            X_pre = preprocess(X_content)
            content_features = {}
            content_net = vnet(vgg_path, X_pre)
            content_features[CONTENT_LAYER] = content_net[CONTENT_LAYER]
            if slow:
                preds = tf.Variable(tf.random_normal(X_content.get_shape()) * 0.256)
                preds_pre = preds
            else:
                preds = tnet(X_content / 255.0)
                preds_pre = preprocess(preds)
            net = vnet(vgg_path, preds_pre)
            print(preds, preds_pre)
            content_size = _tensor_size(content_features[CONTENT_LAYER]) * batch_size
            assert _tensor_size(content_features[CONTENT_LAYER]) == _tensor_size(net[CONTENT_LAYER])
            content_loss = content_weight * (2 * tf.nn.l2_loss(net[CONTENT_LAYER] - content_features[CONTENT_LAYER]) / content_size)
            style_losses = []
            for style_layer in STYLE_LAYERS:
                layer = net[style_layer]
                bs, height, width, filters = map(lambda i: i.value, layer.get_shape())
                size = height * width * filters
                feats = tf.reshape(layer, (bs, height * width, filters))
                feats_T = tf.transpose(feats, perm=[0, 2, 1])
                grams = tf.matmul(feats_T, feats) / size
                style_gram = style_features[style_layer]
                style_losses.append(2 * tf.nn.l2_loss(grams - style_gram) / style_gram.size)
            style_loss = style_weight * functools.reduce(tf.add, style_losses) / batch_size
            tv_y_size = _tensor_size(preds[:, 1:, :, :])
            tv_x_size = _tensor_size(preds[:, :, 1:, :])
            y_tv = tf.nn.l2_loss(preds[:, 1:, :, :] - preds[:, :batch_shape[1] - 1, :, :])
            x_tv = tf.nn.l2_loss(preds[:, :, 1:, :] - preds[:, :, :batch_shape[2] - 1, :])
            tv_loss = tv_weight * 2 * (x_tv / tv_x_size + y_tv / tv_y_size) / batch_size
            loss = content_loss + style_loss + tv_loss
            if slow:
                sess.run(tf.global_variables_initializer())
                train_step = tf.contrib.opt.ScipyOptimizerInterface(loss, method='L-BFGS-B', options={'maxiter': 2, 'disp': False})
            else:
                train_step = tf.train.AdamOptimizer(learning_rate).minimize(loss)
                sess.run(tf.global_variables_initializer())
            print(len(tf.trainable_variables()), [v.name for v in tf.global_variables()][-4:])
            for epoch in range(epochs):
                num_examples = len(content_targets)
                iterations = 0
                while iterations * batch_size < num_examples:
                    curr = iterations * batch_size
                    step = curr + batch_size
                    X_batch = np.zeros(batch_shape, dtype=np.float32)
                    for j, img_p in enumerate(content_targets[curr:step]):
                        X_batch[j] = img_p.astype(np.float32)
                    iterations += 1
                    assert X_batch.shape[0] == batch_size
                    feed_dict = {X_content: X_batch}
                    if slow:
                        train_step.minimize(session=sess, feed_dict=feed_dict)
                    else:
                        train_step.run(feed_dict=feed_dict)
                    is_print_iter = int(iterations) % print_iterations == 0
                    if slow:
                        is_print_iter = epoch % print_iterations == 0
                    is_last = epoch == epochs - 1 and iterations * batch_size >= num_examples
                    should_print = is_print_iter or is_last
                    if should_print:
                        to_get = [style_loss, content_loss, tv_loss, loss, preds]
                        tup = sess.run(to_get, feed_dict=feed_dict)
                        _style_loss, _content_loss, _tv_loss, _loss, _preds = tup
                        losses = (_style_loss, _content_loss, _tv_loss, _loss)
                        if not slow:
                            saver = tf.train.Saver()
                            import tempfile
                            res = saver.save(sess, tempfile.mkdtemp() + '/fns.ckpt')
                        yield (_preds, losses, iterations, epoch)
    rng = np.random.RandomState(0)
    content_targets = [rng.uniform(0, 255, (16, 16, 3)) for _ in range(3)]
    style_target = rng.uniform(0, 255, (16, 16, 3))
    for slow in (False, True):
        for preds, losses, i, epoch in optimize(content_targets, style_target, 7.5, 100., 200., None, epochs=2,
                                                print_iterations=1, batch_size=2, slow=slow, learning_rate=1e-3):
            style_loss, content_loss, tv_loss, loss = losses
            print('Epoch %d, Iteration: %d, Loss: %.4g' % (epoch, i, loss))
            to_print = (style_loss, content_loss, tv_loss)
            print('style: %.4g, content:%.4g, tv: %.4g' % to_print)
            print(preds.shape, preds.dtype)
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["fast_style"], 0.002)


def test_deepdream(capsys):
    # tensorflow/examples/tutorials/deepdream/deepdream.ipynb (inception5h .pb -> a 3-layer conv GraphDef imported with an input map; 12x12 images)
    # tensorflow/examples/tutorials/deepdream/deepdream.ipynb (inception5h .pb -> a small conv net's GraphDef, sizes shrunk)
    from functools import partial
    np.random.seed(0)
    # the "model file": a tiny conv net frozen into a GraphDef
    with tf.Graph().as_default() as mg:
        x = tf.placeholder(tf.float32, [None, None, None, 3], name='input')
        rng = np.random.RandomState(1)
        h = x
        for i, name in enumerate(['conv2d0', 'mixed3a', 'mixed4d_3x3_bottleneck']):
            w = tf.constant(rng.randn(3, 3, int(h.shape[-1]), 6).astype(np.float32) * 0.2, name=name + '_w')
            h = tf.nn.conv2d(h, w, [1, 1, 1, 1], 'SAME', name=name)
            h = tf.nn.bias_add(h, tf.constant(rng.randn(6).astype(np.float32) * 0.1, name=name + '_b'), name=name + '_pre_relu')
            h = tf.nn.relu(h, name=name + '_relu')
        model_bytes = mg.as_graph_def().SerializeToString()
    graph = tf.Graph()
    sess = tf.InteractiveSession(graph=graph)
    graph_def = tf.GraphDef()
    graph_def.ParseFromString(model_bytes)
    t_input = tf.placeholder(np.float32, name='input')
    imagenet_mean = 117.0
    t_preprocessed = tf.expand_dims(t_input - imagenet_mean, 0)
    tf.import_graph_def(graph_def, {'input': t_preprocessed})
    layers = [op.name for op in graph.get_operations() if op.type == 'Conv2D' and 'import/' in op.name]
    feature_nums = [int(graph.get_tensor_by_name(name + ':0').get_shape()[-1]) for name in layers]
    print('Number of layers', len(layers))
    print('Total number of feature channels:', sum(feature_nums))
    print(layers, graph.get_tensor_by_name(layers[0] + ':0'))
    def strip_consts(graph_def, max_const_size=32):
        strip_def = tf.GraphDef()
        for n0 in graph_def.node:
            n = strip_def.node.add()
            n.MergeFrom(n0)
            if n.op == 'Const':
                tensor = n.attr['value'].tensor
                size = len(tensor.tensor_content)
                if size > max_const_size:
                    s = "<stripped %d bytes>" % size
                    tensor.tensor_content = str(s).encode('utf-8')
        return strip_def
    def rename_nodes(graph_def, rename_func):
        res_def = tf.GraphDef()
        for n0 in graph_def.node:
            n = res_def.node.add()
            n.MergeFrom(n0)
            n.name = rename_func(n.name)
            for i, s in enumerate(n.input):
                n.input[i] = rename_func(s) if s[0] != '^' else '^' + rename_func(s[1:])
        return res_def
    tmp_def = rename_nodes(graph_def, lambda s: "/".join(s.split('_', 1)))
    sd = strip_consts(tmp_def)
    print([n.name for n in sd.node][:6], [n.attr['value'].tensor.tensor_content for n in sd.node if n.op == 'Const'][:2])
    print(len(str(strip_consts(graph.as_graph_def()))) > 0)
    img_noise = np.random.uniform(size=(12, 12, 3)) + 100.0
    def visstd(a, s=0.1):
        return (a - a.mean()) / max(a.std(), 1e-4) * s + 0.5
    def T(layer):
        return graph.get_tensor_by_name("import/%s:0" % layer)
    def render_naive(t_obj, img0=img_noise, iter_n=4, step=1.0):
        t_score = tf.reduce_mean(t_obj)
        t_grad = tf.gradients(t_score, t_input)[0]
        img = img0.copy()
        for i in range(iter_n):
            g, score = sess.run([t_grad, t_score], {t_input: img})
            g /= g.std() + 1e-8
            img += g * step
            print('%.5f' % score, end=' ')
        print()
        print(t_grad, visstd(img)[0, 0].round(4).tolist())
    layer = 'mixed4d_3x3_bottleneck_pre_relu'
    channel = 3
    render_naive(T(layer)[:, :, :, channel])
    def tffunc(*argtypes):
        placeholders = list(map(tf.placeholder, argtypes))
        def wrap(f):
            out = f(*placeholders)
            def wrapper(*args, **kw):
                return out.eval(dict(zip(placeholders, args)), session=kw.get('session'))
            return wrapper
        return wrap
    def resize(img, size):
        img = tf.expand_dims(img, 0)
        return tf.image.resize_bilinear(img, size)[0, :, :, :]
    resize = tffunc(np.float32, np.int32)(resize)
    def calc_grad_tiled(img, t_grad, tile_size=8):
        sz = tile_size
        h, w = img.shape[:2]
        sx, sy = np.random.randint(sz, size=2)
        img_shift = np.roll(np.roll(img, sx, 1), sy, 0)
        grad = np.zeros_like(img)
        for y in range(0, max(h - sz // 2, sz), sz):
            for x in range(0, max(w - sz // 2, sz), sz):
                sub = img_shift[y:y + sz, x:x + sz]
                g = sess.run(t_grad, {t_input: sub})
                grad[y:y + sz, x:x + sz] = g
        return np.roll(np.roll(grad, -sx, 1), -sy, 0)
    def render_multiscale(t_obj, img0=img_noise, iter_n=2, step=1.0, octave_n=3, octave_scale=1.4):
        t_score = tf.reduce_mean(t_obj)
        t_grad = tf.gradients(t_score, t_input)[0]
        img = img0.copy()
        for octave in range(octave_n):
            if octave > 0:
                hw = np.float32(img.shape[:2]) * octave_scale
                img = resize(img, np.int32(hw))
            for i in range(iter_n):
                g = calc_grad_tiled(img, t_grad)
                g /= g.std() + 1e-8
                img += g * step
                print('.', end=' ')
            print(img.shape, img.dtype, visstd(img)[0, 0].round(4).tolist())
    render_multiscale(T(layer)[:, :, :, channel])
    k = np.float32([1, 4, 6, 4, 1])
    k = np.outer(k, k)
    k5x5 = k[:, :, None, None] / k.sum() * np.eye(3, dtype=np.float32)
    def lap_split(img):
        with tf.name_scope('split'):
            lo = tf.nn.conv2d(img, k5x5, [1, 2, 2, 1], 'SAME')
            lo2 = tf.nn.conv2d_transpose(lo, k5x5 * 4, tf.shape(img), [1, 2, 2, 1])
            hi = img - lo2
        return lo, hi
    def lap_split_n(img, n):
        levels = []
        for i in range(n):
            img, hi = lap_split(img)
            levels.append(hi)
        levels.append(img)
        return levels[::-1]
    def lap_merge(levels):
        img = levels[0]
        for hi in levels[1:]:
            with tf.name_scope('merge'):
                img = tf.nn.conv2d_transpose(img, k5x5 * 4, tf.shape(hi), [1, 2, 2, 1]) + hi
        return img
    def normalize_std(img, eps=1e-10):
        with tf.name_scope('normalize'):
            std = tf.sqrt(tf.reduce_mean(tf.square(img)))
            return img / tf.maximum(std, eps)
    def lap_normalize(img, scale_n=4):
        img = tf.expand_dims(img, 0)
        tlevels = lap_split_n(img, scale_n)
        tlevels = list(map(normalize_std, tlevels))
        out = lap_merge(tlevels)
        return out[0, :, :, :]
    def render_lapnorm(t_obj, img0=img_noise, visfunc=visstd, iter_n=2, step=1.0, octave_n=2, octave_scale=1.4, lap_n=2):
        t_score = tf.reduce_mean(t_obj)
        t_grad = tf.gradients(t_score, t_input)[0]
        lap_norm_func = tffunc(np.float32)(partial(lap_normalize, scale_n=lap_n))
        img = img0.copy()
        for octave in range(octave_n):
            if octave > 0:
                hw = np.float32(img.shape[:2]) * octave_scale
                img = resize(img, np.int32(hw))
            for i in range(iter_n):
                g = calc_grad_tiled(img, t_grad)
                g = lap_norm_func(g)
                img += g * step
                print('.', end=' ')
            print(img.shape, visfunc(img)[1, 1].round(4).tolist())
    lap_graph = tf.Graph()
    with lap_graph.as_default():
        lap_in = tf.placeholder(np.float32, name='lap_in')
        lap_out = lap_normalize(lap_in)
    print(lap_out, [op.name for op in lap_graph.get_operations()][-6:])
    render_lapnorm(T(layer)[:, :, :, channel])
    def render_deepdream(t_obj, img0=img_noise, iter_n=2, step=1.5, octave_n=3, octave_scale=1.4):
        t_score = tf.reduce_mean(t_obj)
        t_grad = tf.gradients(t_score, t_input)[0]
        img = img0
        octaves = []
        for i in range(octave_n - 1):
            hw = img.shape[:2]
            lo = resize(img, np.int32(np.float32(hw) / octave_scale))
            hi = img - resize(lo, hw)
            img = lo
            octaves.append(hi)
        for octave in range(octave_n):
            if octave > 0:
                hi = octaves[-octave]
                img = resize(img, hi.shape[:2]) + hi
            for i in range(iter_n):
                g = calc_grad_tiled(img, t_grad)
                img += g * (step / (np.abs(g).mean() + 1e-7))
                print('.', end=' ')
            print(img.shape, (img / 255.0)[2, 2].round(4).tolist())
    render_deepdream(tf.square(T('mixed3a')))
    sess.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["deepdream"], 0)


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "neural_style": [
        'Tensor("Placeholder:0", shape=(1, 16, 16, 3), dtype=float32, device=/device:CPU:0) Tensor("MaxPool_3:0", shape=(1, 1, 1, 4), dtype=float32, device=/device:CPU:0) Tensor("Relu_13:0", shape=(1, 1, 1, 4), dtype=float32, device=/device:CPU:0)',
        "{'relu1_1': ((4, 4), 'float32'), 'relu2_1': ((4, 4), 'float32'), 'relu3_1': ((4, 4), 'float32'), 'relu4_1': ((4, 4), 'float32'), 'relu5_1': ((4, 4), 'float32')}",
        'Tensor("add_1:0", shape=(), dtype=float32) Tensor("add_6:0", shape=(), dtype=float32) Tensor("mul_11:0", shape=(), dtype=float32) Tensor("add_9:0", shape=(), dtype=float32)',
        "Adam ['Variable:0', 'beta1_power:0', 'beta2_power:0', 'Variable/Adam:0', 'Variable/Adam_1:0']",
        'Optimization started...',
        'content loss: 117001',
        '  style loss: 9.49835e+08',
        '     tv loss: 24.1035',
        '  total loss: 9.49952e+08',
        'Iteration    1/   3',
        'content loss: 75412.5',
        '  style loss: 8.16063e+08',
        '     tv loss: 39537.8',
        '  total loss: 8.16178e+08',
        '0 (16, 16, 3) float64 [113.294, 106.561, 93.738]',
        'Iteration    2/   3',
        'Iteration    3/   3',
        'content loss: 11969.3',
        '  style loss: 5.88001e+08',
        '     tv loss: 104888',
        '  total loss: 5.88118e+08',
        '3 (16, 16, 3) float64 [129.125, 103.119, 91.308]',
        'Tensor("Placeholder:0", shape=(1, 16, 16, 3), dtype=float32, device=/device:CPU:0) Tensor("AvgPool_3:0", shape=(1, 1, 1, 4), dtype=float32, device=/device:CPU:0) Tensor("Relu_13:0", shape=(1, 1, 1, 4), dtype=float32, device=/device:CPU:0)',
        "{'relu1_1': ((4, 4), 'float32'), 'relu2_1': ((4, 4), 'float32'), 'relu3_1': ((4, 4), 'float32'), 'relu4_1': ((4, 4), 'float32'), 'relu5_1': ((4, 4), 'float32')}",
        'Tensor("add_2:0", shape=(), dtype=float32) Tensor("add_7:0", shape=(), dtype=float32) Tensor("mul_12:0", shape=(), dtype=float32) Tensor("add_10:0", shape=(), dtype=float32)',
        "Adam ['Variable:0', 'beta1_power:0', 'beta2_power:0', 'Variable/Adam:0', 'Variable/Adam_1:0']",
        'Optimization started...',
        'content loss: 78.2228',
        '  style loss: 4.51709e+07',
        '     tv loss: 560102',
        '  total loss: 4.57311e+07',
        'Iteration    1/   3',
        'content loss: 18.6751',
        '  style loss: 2.15877e+07',
        '     tv loss: 734610',
        '  total loss: 2.23223e+07',
        '0 (16, 16, 3) float64 [177.267, 55.756, 87.391]',
        'Iteration    2/   3',
        'Iteration    3/   3',
        'content loss: 45.1054',
        '  style loss: 9.1882e+06',
        '     tv loss: 1.21565e+06',
        '  total loss: 1.04039e+07',
        '3 (16, 16, 3) float64 [196.161, 36.501, 105.962]',
    ],
    "fast_style": [
        'Train set has been trimmed slightly..',
        '(1, 16, 16, 3)',
        'Tensor("sub:0", shape=(1, 16, 16, 3), dtype=float32, device=/device:CPU:0)',
        'Tensor("add_22:0", shape=(2, 16, 16, 3), dtype=float32) Tensor("sub_11:0", shape=(2, 16, 16, 3), dtype=float32)',
        "30 ['Variable_28/Adam:0', 'Variable_28/Adam_1:0', 'Variable_29/Adam:0', 'Variable_29/Adam_1:0']",
        'Epoch 0, Iteration: 1, Loss: 1.451e+07',
        'style: 8.17e+06, content:115.4, tv: 6.341e+06',
        '(2, 16, 16, 3) float32',
        'Epoch 1, Iteration: 1, Loss: 1.206e+07',
        'style: 5.825e+06, content:74.82, tv: 6.237e+06',
        '(2, 16, 16, 3) float32',
        'Train set has been trimmed slightly..',
        '(1, 16, 16, 3)',
        'Tensor("sub:0", shape=(1, 16, 16, 3), dtype=float32, device=/device:CPU:0)',
        "<tf.Variable 'Variable:0' shape=(2, 16, 16, 3) dtype=float32_ref> <tf.Variable 'Variable:0' shape=(2, 16, 16, 3) dtype=float32_ref>",
        "1 ['Variable:0']",
        'Epoch 0, Iteration: 1, Loss: 7.037e+06',
        'style: 6.285e+06, content:273, tv: 7.514e+05',
        '(2, 16, 16, 3) float32',
        'Epoch 1, Iteration: 1, Loss: 6.083e+06',
        'style: 5.331e+06, content:151.6, tv: 7.518e+05',
        '(2, 16, 16, 3) float32',
    ],
    "deepdream": [
        'Number of layers 3',
        'Total number of feature channels: 18',
        '[\'import/conv2d0\', \'import/mixed3a\', \'import/mixed4d_3x3_bottleneck\'] Tensor("import/conv2d0:0", shape=(?, ?, ?, 6), dtype=float32)',
        "['input', 'conv2d0/w', 'conv2d0', 'conv2d0/b', 'conv2d0/pre_relu', 'conv2d0/relu'] [b'<stripped 648 bytes>', b'\\xf7\\xd0\\xcb<(\\x02\\xf3\\xbc\\xac\\xd6J=\\xe9\\x1d\\x8f\\xbc_\\x00\\xca=O\\xed\\xae<']",
        'True',
        '5.34515 6.15665 6.94745 7.75991 ',
        'Tensor("gradients/sub_grad/Reshape:0", dtype=float32) [0.582, 0.5148, 0.4286]',
        '. . (12, 12, 3) float64 [0.6086, 0.4623, 0.4428]',
        '. . (16, 16, 3) float32 [0.6668000221252441, 0.3531000018119812, 0.4320000112056732]',
        '. . (22, 22, 3) float32 [0.6502000093460083, 0.35850000381469727, 0.3984000086784363]',
        'Tensor("strided_slice:0", dtype=float32) [\'merge_3/conv2d_transpose\', \'merge_3/add\', \'strided_slice/stack\', \'strided_slice/stack_1\', \'strided_slice/stack_2\', \'strided_slice\']',
        '. . (12, 12, 3) [0.6062, 0.4445, 0.5629]',
        '. . (16, 16, 3) [0.6485000252723694, 0.4104999899864197, 0.4959999918937683]',
        '. . (5, 5, 3) [0.4041999876499176, 0.36500000953674316, 0.38429999351501465]',
        '. . (8, 8, 3) [0.4002000093460083, 0.35199999809265137, 0.3634999990463257]',
        '. . (12, 12, 3) [0.3982, 0.3296, 0.3517]',
    ],
}
