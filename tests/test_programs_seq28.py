"""TF 1.x speech and audio programs (DeepSpeech, WaveNet, speech_commands) tideflow had not seen, reduced to standalone forms with small synthetic data
(API calls, graph structure and training loops kept; sizes and step counts shrunk; the
repository and path named in each test's first comment). Each prints what TF 1.15
(tensorflow-cpu 1.15.0) printed running the same program with the same seeds (measured),
compared line by line."""
# ruff: noqa: C408, F841, I001, RUF059, SIM115, UP004, UP031, UP032

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_deepspeech_model(capsys):
    # mozilla/DeepSpeech DeepSpeech.py (v0.6, TF 1.15): create_overlapping_windows, dense, LSTMBlockFusedCell, ctc_loss, beam search; LSTMBlockFusedCell's gradient names not printed: TF 1.15 runs it as one BlockLSTM op, tideflow as a loop
    tfv1 = tf.compat.v1
    class Config: pass
    Config.n_input = 4; Config.n_context = 1; Config.n_hidden = 6; Config.n_cell_dim = 6
    Config.n_hidden_1 = Config.n_hidden_2 = Config.n_hidden_5 = 6; Config.n_hidden_3 = Config.n_cell_dim; Config.n_hidden_6 = 5
    class FLAGS: relu_clip = 20.0; dropout_rate = 0.05; learning_rate = 0.01; beam_width = 4
    def variable_on_cpu(name, shape, initializer):
        with tf.device('/cpu:0'):
            var = tfv1.get_variable(name=name, shape=shape, initializer=initializer)
        return var
    def create_overlapping_windows(batch_x):
        batch_size = tf.shape(input=batch_x)[0]
        window_width = 2 * Config.n_context + 1
        num_channels = Config.n_input
        eye_filter = tf.constant(np.eye(window_width * num_channels)
                                   .reshape(window_width, num_channels, window_width * num_channels), tf.float32)
        batch_x = tf.nn.conv1d(input=batch_x, filters=eye_filter, stride=1, padding='SAME')
        batch_x = tf.reshape(batch_x, [batch_size, -1, window_width, num_channels])
        return batch_x
    def dense(name, x, units, dropout_rate=None, relu=True):
        with tfv1.variable_scope(name):
            bias = variable_on_cpu('bias', [units], tfv1.zeros_initializer())
            weights = variable_on_cpu('weights', [x.shape[-1], units], tfv1.keras.initializers.VarianceScaling(scale=1.0, mode="fan_avg", distribution="uniform"))
        output = tf.nn.bias_add(tf.matmul(x, weights), bias)
        if relu:
            output = tf.minimum(tf.nn.relu(output), FLAGS.relu_clip)
        if dropout_rate is not None:
            output = tf.nn.dropout(output, rate=dropout_rate)
        return output
    def rnn_impl_lstmblockfusedcell(x, seq_length, previous_state, reuse):
        with tfv1.variable_scope('cudnn_lstm/rnn/multi_rnn_cell/cell_0'):
            fw_cell = tf.contrib.rnn.LSTMBlockFusedCell(Config.n_cell_dim, forget_bias=0, reuse=reuse, name='cudnn_compatible_lstm_cell')
            output, output_state = fw_cell(inputs=x, dtype=tf.float32, sequence_length=seq_length, initial_state=previous_state)
        return output, output_state
    def create_model(batch_x, seq_length, dropout, reuse=False, batch_size=None, previous_state=None, overlap=True, rnn_impl=rnn_impl_lstmblockfusedcell):
        layers = {}
        if not batch_size:
            batch_size = tf.shape(input=batch_x)[0]
        if overlap:
            batch_x = create_overlapping_windows(batch_x)
        batch_x = tf.transpose(a=batch_x, perm=[1, 0, 2, 3])
        batch_x = tf.reshape(batch_x, [-1, Config.n_input + 2*Config.n_input*Config.n_context])
        layers['input_reshaped'] = batch_x
        layers['layer_1'] = layer_1 = dense('layer_1', batch_x, Config.n_hidden_1, dropout_rate=dropout[0])
        layers['layer_2'] = layer_2 = dense('layer_2', layer_1, Config.n_hidden_2, dropout_rate=dropout[1])
        layers['layer_3'] = layer_3 = dense('layer_3', layer_2, Config.n_hidden_3, dropout_rate=dropout[2])
        layer_3 = tf.reshape(layer_3, [-1, batch_size, Config.n_hidden_3])
        output, output_state = rnn_impl(layer_3, seq_length, previous_state, reuse)
        output = tf.reshape(output, [-1, Config.n_cell_dim])
        layers['rnn_output'] = output
        layers['rnn_output_state'] = output_state
        layers['layer_5'] = layer_5 = dense('layer_5', output, Config.n_hidden_5, dropout_rate=dropout[5])
        layers['layer_6'] = layer_6 = dense('layer_6', layer_5, Config.n_hidden_6, relu=False)
        layer_6 = tf.reshape(layer_6, [-1, batch_size, Config.n_hidden_6], name='raw_logits')
        layers['raw_logits'] = layer_6
        return layer_6, layers
    tfv1.set_random_seed(4568)
    batch_x = tfv1.placeholder(tf.float32, [None, None, Config.n_input], name='input_node')
    batch_seq_len = tfv1.placeholder(tf.int32, [None], name='input_lengths')
    batch_y = tfv1.sparse_placeholder(tf.int32, name='labels')
    batch_filenames = tfv1.placeholder(tf.string, [None])
    dropout_rates = [tfv1.placeholder(tf.float32, name='dropout_{}'.format(i)) for i in range(6)]
    logits, layers = create_model(batch_x, batch_seq_len, dropout_rates, reuse=False)
    print(logits, layers['rnn_output_state'])
    total_loss = tfv1.nn.ctc_loss(labels=batch_y, inputs=logits, sequence_length=batch_seq_len)
    non_finite_files = tf.gather(batch_filenames, tfv1.where(~tf.math.is_finite(total_loss)))
    avg_loss = tf.reduce_mean(input_tensor=total_loss)
    print(total_loss, non_finite_files, avg_loss)
    optimizer = tfv1.train.AdamOptimizer(learning_rate=FLAGS.learning_rate, beta1=0.9, beta2=0.999, epsilon=1e-8)
    gradients = optimizer.compute_gradients(avg_loss)
    for g, v in gradients:
        print(v.name, v.shape, g.name if "lstm" not in v.name else g.shape)
    tfv1.summary.scalar(name='step_loss', tensor=avg_loss, collections=['step_summaries'])
    for gradient, variable in gradients:
        if isinstance(gradient, tf.IndexedSlices):
            grad_values = gradient.values
        else:
            grad_values = gradient
        tfv1.summary.histogram(name=variable.name.replace(':', '_') + '/gradients', values=grad_values)
    global_step = tfv1.train.get_or_create_global_step()
    apply_gradient_op = optimizer.apply_gradients(gradients, global_step=global_step)
    step_summaries_op = tfv1.summary.merge_all('step_summaries')
    print(sorted(n for n in tfv1.get_default_graph().get_all_collection_keys()))
    print([v.op.name for v in tfv1.global_variables()])
    rng = np.random.RandomState(0)
    x = rng.randn(3, 7, Config.n_input).astype(np.float32)
    lens = np.array([7, 6, 5], np.int32)
    idx = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]], np.int64)
    vals = np.array([1, 2, 3, 1, 3, 2], np.int32)
    feed = {batch_x: x, batch_seq_len: lens, batch_y: (idx, vals, np.array([3, 3], np.int64)), batch_filenames: np.array([b'a.wav', b'b.wav', b'c.wav'])}
    for i, d in enumerate(dropout_rates):
        feed[d] = 0.0
    decoded, log_probs = tf.nn.ctc_beam_search_decoder(logits, batch_seq_len, beam_width=FLAGS.beam_width)
    greedy, _ = tf.nn.ctc_greedy_decoder(logits, batch_seq_len)
    dist = tf.edit_distance(tf.cast(decoded[0], tf.int32), batch_y)
    with tfv1.Session() as session:
        session.run(tfv1.global_variables_initializer())
        for step in range(6):
            _, l, nf, s, gs = session.run([apply_gradient_op, avg_loss, non_finite_files, step_summaries_op, global_step], feed)
            print('step', gs, '%.5f' % l, nf.shape, len(s))
        tl, d, lp, g, ed = session.run([total_loss, decoded[0], log_probs, greedy[0], dist], feed)
        print(np.round(tl, 4))
        print(d.indices.tolist(), d.values.tolist(), d.dense_shape.tolist())
        print(np.round(lp, 4))
        print(g.indices.tolist(), g.values.tolist(), g.dense_shape.tolist())
        print(np.round(ed, 4))
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["deepspeech_model"]


def test_deepspeech_feeding(capsys, tmp_path):
    # mozilla/DeepSpeech util/feeding.py (v0.6, TF 1.15): wav files -> decode_wav -> audio_spectrogram -> mfcc; from_generator, map, cache, window, flat_map, padded_batch, sparse batch + reshape
    import os, wave
    tfv1 = tf.compat.v1
    from tideflow.contrib.framework.python.ops import audio_ops as contrib_audio
    class Config: n_input = 5; audio_window_samples = 64; audio_step_samples = 32
    class FLAGS: audio_sample_rate = 8000
    d = str(tmp_path)
    rng = np.random.RandomState(3)
    files = []
    for i, n in enumerate([400, 300, 520, 256, 333]):
        fn = os.path.join(d, 's%d.wav' % i)
        w = wave.open(fn, 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
        w.writeframes((rng.randn(n) * 3000).astype('<i2').tobytes()); w.close()
        files.append((fn, 'ab c'[: (i % 4) + 1]))
    alphabet = {' ': 0, 'a': 1, 'b': 2, 'c': 3}
    def text_to_char_array(t):
        return np.asarray([alphabet[c] for c in t])
    def to_sparse_tuple(sequence):
        indices = np.asarray(list(zip([0]*len(sequence), range(len(sequence)))), dtype=np.int64)
        shape = np.asarray([1, len(sequence)], dtype=np.int64)
        return indices, sequence, shape
    def samples_to_mfccs(samples, sample_rate, train_phase=False):
        spectrogram = contrib_audio.audio_spectrogram(samples, window_size=Config.audio_window_samples, stride=Config.audio_step_samples, magnitude_squared=True)
        mfccs = contrib_audio.mfcc(spectrogram=spectrogram, sample_rate=sample_rate, dct_coefficient_count=Config.n_input, upper_frequency_limit=FLAGS.audio_sample_rate/2)
        mfccs = tf.reshape(mfccs, [-1, Config.n_input])
        return mfccs, tf.shape(input=mfccs)[0]
    def audiofile_to_features(wav_filename, train_phase=False):
        samples = tf.io.read_file(wav_filename)
        decoded = contrib_audio.decode_wav(samples, desired_channels=1)
        features, features_len = samples_to_mfccs(decoded.audio, decoded.sample_rate, train_phase=train_phase)
        return features, features_len
    def entry_to_features(wav_filename, transcript):
        features, features_len = audiofile_to_features(wav_filename)
        return wav_filename, features, features_len, tf.SparseTensor(*transcript)
    def sparse_reshape(sparse):
        shape = sparse.dense_shape
        return tf.sparse.reshape(sparse, [shape[0], shape[2]])
    def create_dataset(csvs, batch_size, cache_path='', train_phase=False):
        def generate_values():
            for wav_filename, transcript in csvs:
                transcript = to_sparse_tuple(text_to_char_array(transcript))
                yield wav_filename, transcript
        def batch_fn(wav_filenames, features, features_len, transcripts):
            features = tf.data.Dataset.zip((features, features_len))
            features = features.padded_batch(batch_size, padded_shapes=([None, Config.n_input], []))
            transcripts = transcripts.batch(batch_size).map(sparse_reshape)
            wav_filenames = wav_filenames.batch(batch_size)
            return tf.data.Dataset.zip((wav_filenames, features, transcripts))
        num_gpus = 1
        dataset = (tf.data.Dataset.from_generator(generate_values, output_types=(tf.string, (tf.int64, tf.int32, tf.int64)))
                                  .map(entry_to_features, num_parallel_calls=tf.data.experimental.AUTOTUNE)
                                  .cache(cache_path)
                                  .window(batch_size, drop_remainder=True)
                                  .flat_map(batch_fn)
                                  .prefetch(num_gpus))
        return dataset
    ds = create_dataset(files, 2, train_phase=True)
    print(ds.output_types)
    print(ds.output_shapes)
    print(tf.contrib.framework.nest.map_structure(lambda c: c.__name__, ds.output_classes))
    iterator = tfv1.data.Iterator.from_structure(tfv1.data.get_output_types(ds), tfv1.data.get_output_shapes(ds), output_classes=tfv1.data.get_output_classes(ds))
    init_op = iterator.make_initializer(ds)
    batch_filenames, (batch_x, batch_seq_len), batch_y = iterator.get_next()
    print(batch_x, batch_seq_len, batch_y)
    with tfv1.Session() as s:
        for epoch in range(2):
            s.run(init_op)
            while True:
                try:
                    fn, x, l, y = s.run([batch_filenames, batch_x, batch_seq_len, batch_y])
                except tf.errors.OutOfRangeError:
                    print('end of epoch', epoch)
                    break
                print([os.path.basename(f.decode()) for f in fn], x.shape, x.dtype, l.tolist(), np.round(x[:, :2, :3], 3).tolist())
                print(y.indices.tolist(), y.values.tolist(), y.dense_shape.tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["deepspeech_feeding"]


def test_wavenet(capsys):
    # ibab/tensorflow-wavenet wavenet/ops.py + wavenet/model.py + train.py (+ audio_reader's PaddingFIFOQueue), sizes shrunk
    def time_to_batch(value, dilation, name=None):
        with tf.name_scope('time_to_batch'):
            shape = tf.shape(value)
            pad_elements = dilation - 1 - (shape[1] + dilation - 1) % dilation
            padded = tf.pad(value, [[0, 0], [0, pad_elements], [0, 0]])
            reshaped = tf.reshape(padded, [-1, dilation, shape[2]])
            transposed = tf.transpose(reshaped, perm=[1, 0, 2])
            return tf.reshape(transposed, [shape[0] * dilation, -1, shape[2]])
    def batch_to_time(value, dilation, name=None):
        with tf.name_scope('batch_to_time'):
            shape = tf.shape(value)
            prepared = tf.reshape(value, [dilation, -1, shape[2]])
            transposed = tf.transpose(prepared, perm=[1, 0, 2])
            return tf.reshape(transposed, [tf.div(shape[0], dilation), -1, shape[2]])
    def causal_conv(value, filter_, dilation, name='causal_conv'):
        with tf.name_scope(name):
            filter_width = tf.shape(filter_)[0]
            if dilation > 1:
                transformed = time_to_batch(value, dilation)
                conv = tf.nn.conv1d(transformed, filter_, stride=1, padding='VALID')
                restored = batch_to_time(conv, dilation)
            else:
                restored = tf.nn.conv1d(value, filter_, stride=1, padding='VALID')
            out_width = tf.shape(value)[1] - (filter_width - 1) * dilation
            result = tf.slice(restored, [0, 0, 0], [-1, out_width, -1])
            return result
    def mu_law_encode(audio, quantization_channels):
        with tf.name_scope('encode'):
            mu = tf.to_float(quantization_channels - 1)
            safe_audio_abs = tf.minimum(tf.abs(audio), 1.0)
            magnitude = tf.log1p(mu * safe_audio_abs) / tf.log1p(mu)
            signal = tf.sign(audio) * magnitude
            return tf.to_int32((signal + 1) / 2 * mu + 0.5)
    def mu_law_decode(output, quantization_channels):
        with tf.name_scope('decode'):
            mu = quantization_channels - 1
            signal = 2 * (tf.to_float(output) / mu) - 1
            magnitude = (1 / mu) * ((1 + mu)**abs(signal) - 1)
            return tf.sign(signal) * magnitude
    def create_variable(name, shape):
        initializer = tf.contrib.layers.xavier_initializer_conv2d()
        variable = tf.Variable(initializer(shape=shape), name=name)
        return variable
    def create_bias_variable(name, shape):
        initializer = tf.constant_initializer(value=0.0, dtype=tf.float32)
        return tf.Variable(initializer(shape=shape), name)
    class WaveNetModel(object):
        def __init__(self, batch_size, dilations, filter_width, residual_channels, dilation_channels, skip_channels, quantization_channels=2**8, use_biases=False, scalar_input=False, initial_filter_width=32, histograms=False):
            self.batch_size = batch_size; self.dilations = dilations; self.filter_width = filter_width
            self.residual_channels = residual_channels; self.dilation_channels = dilation_channels
            self.quantization_channels = quantization_channels; self.use_biases = use_biases
            self.skip_channels = skip_channels; self.scalar_input = scalar_input
            self.initial_filter_width = initial_filter_width; self.histograms = histograms
            self.receptive_field = WaveNetModel.calculate_receptive_field(self.filter_width, self.dilations, self.scalar_input, self.initial_filter_width)
            self.variables = self._create_variables()
        @staticmethod
        def calculate_receptive_field(filter_width, dilations, scalar_input, initial_filter_width):
            receptive_field = (filter_width - 1) * sum(dilations) + 1
            if scalar_input:
                receptive_field += initial_filter_width - 1
            else:
                receptive_field += filter_width - 1
            return receptive_field
        def _create_variables(self):
            var = dict()
            with tf.variable_scope('wavenet'):
                with tf.variable_scope('causal_layer'):
                    layer = dict()
                    if self.scalar_input:
                        initial_channels = 1; initial_filter_width = self.initial_filter_width
                    else:
                        initial_channels = self.quantization_channels; initial_filter_width = self.filter_width
                    layer['filter'] = create_variable('filter', [initial_filter_width, initial_channels, self.residual_channels])
                    var['causal_layer'] = layer
                var['dilated_stack'] = list()
                with tf.variable_scope('dilated_stack'):
                    for i, dilation in enumerate(self.dilations):
                        with tf.variable_scope('layer{}'.format(i)):
                            current = dict()
                            current['filter'] = create_variable('filter', [self.filter_width, self.residual_channels, self.dilation_channels])
                            current['gate'] = create_variable('gate', [self.filter_width, self.residual_channels, self.dilation_channels])
                            current['dense'] = create_variable('dense', [1, self.dilation_channels, self.residual_channels])
                            current['skip'] = create_variable('skip', [1, self.dilation_channels, self.skip_channels])
                            if self.use_biases:
                                current['filter_bias'] = create_bias_variable('filter_bias', [self.dilation_channels])
                                current['gate_bias'] = create_bias_variable('gate_bias', [self.dilation_channels])
                                current['dense_bias'] = create_bias_variable('dense_bias', [self.residual_channels])
                                current['skip_bias'] = create_bias_variable('slip_bias', [self.skip_channels])
                            var['dilated_stack'].append(current)
                with tf.variable_scope('postprocessing'):
                    current = dict()
                    current['postprocess1'] = create_variable('postprocess1', [1, self.skip_channels, self.skip_channels])
                    current['postprocess2'] = create_variable('postprocess2', [1, self.skip_channels, self.quantization_channels])
                    if self.use_biases:
                        current['postprocess1_bias'] = create_bias_variable('postprocess1_bias', [self.skip_channels])
                        current['postprocess2_bias'] = create_bias_variable('postprocess2_bias', [self.quantization_channels])
                    var['postprocessing'] = current
            return var
        def _create_causal_layer(self, input_batch):
            with tf.name_scope('causal_layer'):
                weights_filter = self.variables['causal_layer']['filter']
                return causal_conv(input_batch, weights_filter, 1)
        def _create_dilation_layer(self, input_batch, layer_index, dilation, output_width):
            variables = self.variables['dilated_stack'][layer_index]
            conv_filter = causal_conv(input_batch, variables['filter'], dilation)
            conv_gate = causal_conv(input_batch, variables['gate'], dilation)
            if self.use_biases:
                conv_filter = tf.add(conv_filter, variables['filter_bias'])
                conv_gate = tf.add(conv_gate, variables['gate_bias'])
            out = tf.tanh(conv_filter) * tf.sigmoid(conv_gate)
            transformed = tf.nn.conv1d(out, variables['dense'], stride=1, padding="SAME", name="dense")
            skip_cut = tf.shape(out)[1] - output_width
            out_skip = tf.slice(out, [0, skip_cut, 0], [-1, -1, -1])
            skip_contribution = tf.nn.conv1d(out_skip, variables['skip'], stride=1, padding="SAME", name="skip")
            if self.use_biases:
                transformed = transformed + variables['dense_bias']
                skip_contribution = skip_contribution + variables['skip_bias']
            if self.histograms:
                layer = 'layer{}'.format(layer_index)
                tf.summary.histogram(layer + '_filter', variables['filter'])
                tf.summary.histogram(layer + '_gate', variables['gate'])
            input_cut = tf.shape(input_batch)[1] - tf.shape(transformed)[1]
            input_batch = tf.slice(input_batch, [0, input_cut, 0], [-1, -1, -1])
            return skip_contribution, input_batch + transformed
        def _create_network(self, input_batch):
            outputs = []
            current_layer = input_batch
            current_layer = self._create_causal_layer(current_layer)
            output_width = tf.shape(input_batch)[1] - self.receptive_field + 1
            with tf.name_scope('dilated_stack'):
                for layer_index, dilation in enumerate(self.dilations):
                    with tf.name_scope('layer{}'.format(layer_index)):
                        output, current_layer = self._create_dilation_layer(current_layer, layer_index, dilation, output_width)
                        outputs.append(output)
            with tf.name_scope('postprocessing'):
                w1 = self.variables['postprocessing']['postprocess1']
                w2 = self.variables['postprocessing']['postprocess2']
                if self.use_biases:
                    b1 = self.variables['postprocessing']['postprocess1_bias']
                    b2 = self.variables['postprocessing']['postprocess2_bias']
                total = sum(outputs)
                transformed1 = tf.nn.relu(total)
                conv1 = tf.nn.conv1d(transformed1, w1, stride=1, padding="SAME")
                if self.use_biases:
                    conv1 = tf.add(conv1, b1)
                transformed2 = tf.nn.relu(conv1)
                conv2 = tf.nn.conv1d(transformed2, w2, stride=1, padding="SAME")
                if self.use_biases:
                    conv2 = tf.add(conv2, b2)
            return conv2
        def _one_hot(self, input_batch):
            with tf.name_scope('one_hot_encode'):
                encoded = tf.one_hot(input_batch, depth=self.quantization_channels, dtype=tf.float32)
                shape = [self.batch_size, -1, self.quantization_channels]
                encoded = tf.reshape(encoded, shape)
            return encoded
        def predict_proba(self, waveform, name='wavenet'):
            with tf.name_scope(name):
                encoded = self._one_hot(waveform)
                raw_output = self._create_network(encoded)
                out = tf.reshape(raw_output, [-1, self.quantization_channels])
                proba = tf.cast(tf.nn.softmax(tf.cast(out, tf.float64)), tf.float32)
                last = tf.slice(proba, [tf.shape(proba)[0] - 1, 0], [1, self.quantization_channels])
                return tf.reshape(last, [-1])
        def loss(self, input_batch, l2_regularization_strength=None, name='wavenet'):
            with tf.name_scope(name):
                encoded_input = mu_law_encode(input_batch, self.quantization_channels)
                encoded = self._one_hot(encoded_input)
                if self.scalar_input:
                    network_input = tf.reshape(tf.cast(input_batch, tf.float32), [self.batch_size, -1, 1])
                else:
                    network_input = encoded
                network_input_width = tf.shape(network_input)[1] - 1
                network_input = tf.slice(network_input, [0, 0, 0], [-1, network_input_width, -1])
                raw_output = self._create_network(network_input)
                with tf.name_scope('loss'):
                    target_output = tf.slice(tf.reshape(encoded, [self.batch_size, -1, self.quantization_channels]), [0, self.receptive_field, 0], [-1, -1, -1])
                    target_output = tf.reshape(target_output, [-1, self.quantization_channels])
                    prediction = tf.reshape(raw_output, [-1, self.quantization_channels])
                    loss = tf.nn.softmax_cross_entropy_with_logits(logits=prediction, labels=target_output)
                    reduced_loss = tf.reduce_mean(loss)
                    tf.summary.scalar('loss', reduced_loss)
                    if l2_regularization_strength is None:
                        return reduced_loss
                    else:
                        l2_loss = tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if not('bias' in v.name)])
                        total_loss = (reduced_loss + l2_regularization_strength * l2_loss)
                        tf.summary.scalar('l2_loss', l2_loss)
                        tf.summary.scalar('total_loss', total_loss)
                        return total_loss
    tf.set_random_seed(1234)
    sample_placeholder = tf.placeholder(dtype=tf.float32, shape=None)
    queue = tf.PaddingFIFOQueue(8, ['float32'], shapes=[(None, 1)])
    enqueue = queue.enqueue([sample_placeholder])
    audio_batch = queue.dequeue_many(1)
    net = WaveNetModel(batch_size=1, dilations=[1, 2, 4, 1, 2], filter_width=2, residual_channels=4, dilation_channels=4, skip_channels=6, quantization_channels=16, use_biases=True, histograms=True)
    print('receptive field', net.receptive_field)
    loss = net.loss(input_batch=audio_batch, l2_regularization_strength=0.01)
    print(loss, audio_batch)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01, epsilon=1e-4)
    trainable = tf.trainable_variables()
    optim = optimizer.minimize(loss, var_list=trainable)
    summaries = tf.summary.merge_all()
    print([v.name for v in trainable])
    print(len(tf.get_collection(tf.GraphKeys.SUMMARIES)))
    saver = tf.train.Saver(var_list=tf.trainable_variables(), max_to_keep=5)
    gen_in = tf.placeholder(tf.int32)
    next_sample = net.predict_proba(gen_in)
    decode = mu_law_decode(tf.placeholder_with_default(tf.constant([0, 3, 7, 8, 15]), None), 16)
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(8):
            audio = np.sin(np.arange(40 + step) * 0.3 + step)[:, None] * 0.8 + rng.randn(40 + step, 1) * 0.05
            sess.run(enqueue, {sample_placeholder: audio.astype(np.float32)})
            s, l, _ = sess.run([summaries, loss, optim])
            print('step {:d} - loss = {:.5f}'.format(step, l))
        waveform = [8] * net.receptive_field
        for i in range(5):
            p = sess.run(next_sample, {gen_in: waveform[-net.receptive_field:]})
            sample = np.argmax(p)
            waveform.append(sample)
            print(i, sample, '%.5f' % p[sample])
        print(np.round(sess.run(decode), 5))
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["wavenet"]


def test_assert_like_rnncell_is_tf_1_15s_check():
    # Rayhane-mamah/Tacotron-2's CustomDecoder calls rnn_cell_impl.assert_like_rnncell (TF 1.15's
    # message, measured: each missing part named, in this order)
    from tideflow.python.ops import rnn_cell_impl

    class NotCell(object):
        def __repr__(self):
            return "NotCell()"

    class Half(object):
        output_size = 3

        @property
        def state_size(self):
            raise AttributeError("no")

        def zero_state(self, b, d):
            return None

        def __repr__(self):
            return "Half()"

    with pytest.raises(TypeError) as e:
        rnn_cell_impl.assert_like_rnncell("cell", NotCell())
    assert str(e.value) == (
        "The argument 'cell' (NotCell()) is not an RNNCell: 'output_size' property is missing, "
        "'state_size' property is missing, either 'zero_state' or 'get_initial_state' method is "
        "required, is not callable.")
    with pytest.raises(TypeError) as e:
        rnn_cell_impl.assert_like_rnncell("cell", Half())
    assert str(e.value) == ("The argument 'cell' (Half()) is not an RNNCell: 'state_size' "
                            "property is missing, is not callable.")
    assert rnn_cell_impl.assert_like_rnncell("cell", tf.nn.rnn_cell.GRUCell(2)) is None
    assert rnn_cell_impl.ASSERT_LIKE_RNNCELL_ERROR_REGEXP == "is not an RNNCell"


# What TF 1.15 (tensorflow-cpu 1.15.0) printed running each program (measured).
_TF115_PRINTED = {

    "deepspeech_model": [
        "Tensor(\"raw_logits:0\", shape=(?, ?, 5), dtype=float32) LSTMStateTuple(c=<tf.Tensor 'cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/GatherNd:0' shape=(?, 6) dtype=float32>, h=<tf.Tensor 'cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/GatherNd_1:0' shape=(?, 6) dtype=float32>)",
        "Tensor(\"CTCLoss:0\", shape=(?,), dtype=float32) Tensor(\"GatherV2:0\", shape=(?, 1), dtype=string) Tensor(\"Mean:0\", shape=(), dtype=float32)",
        "layer_1/bias:0 (6,) gradients/BiasAdd_grad/tuple/control_dependency_1:0",
        "layer_1/weights:0 (12, 6) gradients/MatMul_grad/tuple/control_dependency_1:0",
        "layer_2/bias:0 (6,) gradients/BiasAdd_1_grad/tuple/control_dependency_1:0",
        "layer_2/weights:0 (6, 6) gradients/MatMul_1_grad/tuple/control_dependency_1:0",
        "layer_3/bias:0 (6,) gradients/BiasAdd_2_grad/tuple/control_dependency_1:0",
        "layer_3/weights:0 (6, 6) gradients/MatMul_2_grad/tuple/control_dependency_1:0",
        "cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/kernel:0 (12, 24) (12, 24)",
        "cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/bias:0 (24,) (24,)",
        "layer_5/bias:0 (6,) gradients/BiasAdd_3_grad/tuple/control_dependency_1:0",
        "layer_5/weights:0 (6, 6) gradients/MatMul_3_grad/tuple/control_dependency_1:0",
        "layer_6/bias:0 (5,) gradients/BiasAdd_4_grad/tuple/control_dependency_1:0",
        "layer_6/weights:0 (6, 5) gradients/MatMul_4_grad/tuple/control_dependency_1:0",
        "['global_step', 'step_summaries', 'summaries', 'train_op', 'trainable_variables', 'update_ops', 'variables']",
        "['layer_1/bias', 'layer_1/weights', 'layer_2/bias', 'layer_2/weights', 'layer_3/bias', 'layer_3/weights', 'cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/kernel', 'cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/bias', 'layer_5/bias', 'layer_5/weights', 'layer_6/bias', 'layer_6/weights', 'global_step', 'beta1_power', 'beta2_power', 'layer_1/bias/Adam', 'layer_1/bias/Adam_1', 'layer_1/weights/Adam', 'layer_1/weights/Adam_1', 'layer_2/bias/Adam', 'layer_2/bias/Adam_1', 'layer_2/weights/Adam', 'layer_2/weights/Adam_1', 'layer_3/bias/Adam', 'layer_3/bias/Adam_1', 'layer_3/weights/Adam', 'layer_3/weights/Adam_1', 'cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/kernel/Adam', 'cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/kernel/Adam_1', 'cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/bias/Adam', 'cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/bias/Adam_1', 'layer_5/bias/Adam', 'layer_5/bias/Adam_1', 'layer_5/weights/Adam', 'layer_5/weights/Adam_1', 'layer_6/bias/Adam', 'layer_6/bias/Adam_1', 'layer_6/weights/Adam', 'layer_6/weights/Adam_1']",
        "step 1 5.65554 (0, 1) 18",
        "step 2 5.57111 (0, 1) 18",
        "step 3 5.48266 (0, 1) 18",
        "step 4 5.38707 (0, 1) 18",
        "step 5 5.28356 (0, 1) 18",
        "step 6 5.17102 (0, 1) 18",
        "[5.4467 5.507  4.1929]",
        "[[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]] [0, 2, 2, 0, 2, 0] [3, 2]",
        "[[-5.6787]",
        " [-4.9278]",
        " [-4.061 ]]",
        "[] [] [3, 0]",
        "[0.5 1.  1. ]",
    ],

    "deepspeech_feeding": [
        "(tf.string, (tf.float32, tf.int32), tf.int32)",
        "(TensorShape(None), (TensorShape([Dimension(None), Dimension(None), Dimension(5)]), TensorShape([Dimension(None)])), TensorShape([Dimension(None), Dimension(None)]))",
        "('Tensor', ('Tensor', 'Tensor'), 'SparseTensor')",
        "Tensor(\"IteratorGetNext:1\", shape=(?, ?, 5), dtype=float32) Tensor(\"IteratorGetNext:2\", shape=(?,), dtype=int32) SparseTensor(indices=Tensor(\"DeserializeSparse:0\", shape=(?, 2), dtype=int64), values=Tensor(\"DeserializeSparse:1\", shape=(?,), dtype=int32), dense_shape=Tensor(\"DeserializeSparse:2\", shape=(2,), dtype=int64))",
        "['s0.wav', 's1.wav'] (2, 11, 5) float32 [11, 8] [[[-34.92900085449219, -23.94099998474121, -15.913999557495117], [-35.000999450683594, -24.58300018310547, -15.307999610900879]], [[-35.96099853515625, -24.101999282836914, -15.932999610900879], [-37.029998779296875, -24.267000198364258, -16.41900062561035]]]",
        "[[0, 0], [1, 0], [1, 1]] [1, 1, 2] [2, 2]",
        "['s2.wav', 's3.wav'] (2, 15, 5) float32 [15, 7] [[[-36.91600036621094, -25.14699935913086, -14.895000457763672], [-36.92599868774414, -24.98900032043457, -16.334999084472656]], [[-35.18899917602539, -25.040000915527344, -16.19300079345703], [-34.39099884033203, -24.089000701904297, -15.616000175476074]]]",
        "[[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]] [1, 2, 0, 1, 2, 0, 3] [2, 4]",
        "end of epoch 0",
        "['s0.wav', 's1.wav'] (2, 11, 5) float32 [11, 8] [[[-34.92900085449219, -23.94099998474121, -15.913999557495117], [-35.000999450683594, -24.58300018310547, -15.307999610900879]], [[-35.96099853515625, -24.101999282836914, -15.932999610900879], [-37.029998779296875, -24.267000198364258, -16.41900062561035]]]",
        "[[0, 0], [1, 0], [1, 1]] [1, 1, 2] [2, 2]",
        "['s2.wav', 's3.wav'] (2, 15, 5) float32 [15, 7] [[[-36.91600036621094, -25.14699935913086, -14.895000457763672], [-36.92599868774414, -24.98900032043457, -16.334999084472656]], [[-35.18899917602539, -25.040000915527344, -16.19300079345703], [-34.39099884033203, -24.089000701904297, -15.616000175476074]]]",
        "[[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]] [1, 2, 0, 1, 2, 0, 3] [2, 4]",
        "end of epoch 1",
    ],

    "wavenet": [
        "receptive field 12",
        "Tensor(\"wavenet_1/loss/add:0\", shape=(), dtype=float32) Tensor(\"padding_fifo_queue_DequeueMany:0\", shape=(1, ?, 1), dtype=float32)",
        "['wavenet/causal_layer/filter:0', 'wavenet/dilated_stack/layer0/filter:0', 'wavenet/dilated_stack/layer0/gate:0', 'wavenet/dilated_stack/layer0/dense:0', 'wavenet/dilated_stack/layer0/skip:0', 'wavenet/dilated_stack/layer0/Variable:0', 'wavenet/dilated_stack/layer0/Variable_1:0', 'wavenet/dilated_stack/layer0/Variable_2:0', 'wavenet/dilated_stack/layer0/Variable_3:0', 'wavenet/dilated_stack/layer1/filter:0', 'wavenet/dilated_stack/layer1/gate:0', 'wavenet/dilated_stack/layer1/dense:0', 'wavenet/dilated_stack/layer1/skip:0', 'wavenet/dilated_stack/layer1/Variable:0', 'wavenet/dilated_stack/layer1/Variable_1:0', 'wavenet/dilated_stack/layer1/Variable_2:0', 'wavenet/dilated_stack/layer1/Variable_3:0', 'wavenet/dilated_stack/layer2/filter:0', 'wavenet/dilated_stack/layer2/gate:0', 'wavenet/dilated_stack/layer2/dense:0', 'wavenet/dilated_stack/layer2/skip:0', 'wavenet/dilated_stack/layer2/Variable:0', 'wavenet/dilated_stack/layer2/Variable_1:0', 'wavenet/dilated_stack/layer2/Variable_2:0', 'wavenet/dilated_stack/layer2/Variable_3:0', 'wavenet/dilated_stack/layer3/filter:0', 'wavenet/dilated_stack/layer3/gate:0', 'wavenet/dilated_stack/layer3/dense:0', 'wavenet/dilated_stack/layer3/skip:0', 'wavenet/dilated_stack/layer3/Variable:0', 'wavenet/dilated_stack/layer3/Variable_1:0', 'wavenet/dilated_stack/layer3/Variable_2:0', 'wavenet/dilated_stack/layer3/Variable_3:0', 'wavenet/dilated_stack/layer4/filter:0', 'wavenet/dilated_stack/layer4/gate:0', 'wavenet/dilated_stack/layer4/dense:0', 'wavenet/dilated_stack/layer4/skip:0', 'wavenet/dilated_stack/layer4/Variable:0', 'wavenet/dilated_stack/layer4/Variable_1:0', 'wavenet/dilated_stack/layer4/Variable_2:0', 'wavenet/dilated_stack/layer4/Variable_3:0', 'wavenet/postprocessing/postprocess1:0', 'wavenet/postprocessing/postprocess2:0', 'wavenet/postprocessing/Variable:0', 'wavenet/postprocessing/Variable_1:0']",
        "13",
        "step 0 - loss = 3.33745",
        "step 1 - loss = 3.30098",
        "step 2 - loss = 3.18852",
        "step 3 - loss = 3.19635",
        "step 4 - loss = 3.13691",
        "step 5 - loss = 3.11975",
        "step 6 - loss = 3.08609",
        "step 7 - loss = 3.01154",
        "0 1 0.11449",
        "1 1 0.11401",
        "2 1 0.11342",
        "3 1 0.10825",
        "4 1 0.10583",
        "[-1.      -0.2852  -0.01353  0.01354  1.     ]",
    ],

}
