"""TF 1.x attention sequence-to-sequence programs (two Tacotrons, JayParks/tf-seq2seq) tideflow had not seen, reduced to standalone forms with small synthetic data
(API calls, graph structure and training loops kept; sizes and step counts shrunk; the
repository and path named in each test's first comment). Each prints what TF 1.15
(tensorflow-cpu 1.15.0) printed running the same program with the same seeds (measured),
compared line by line."""
# ruff: noqa: C408, F841, I001, RUF012, RUF059, SIM117, SIM210, UP004, UP008, UP031, UP032, UP039

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_keithito_tacotron(capsys):
    # keithito/tacotron models/tacotron.py + helpers.py + rnn_wrappers.py + modules.py (+ train.py's loop), sizes shrunk (the 128s are D)
    GRUCell = tf.contrib.rnn.GRUCell; MultiRNNCell = tf.contrib.rnn.MultiRNNCell
    OutputProjectionWrapper = tf.contrib.rnn.OutputProjectionWrapper; ResidualWrapper = tf.contrib.rnn.ResidualWrapper
    RNNCell = tf.contrib.rnn.RNNCell
    BasicDecoder = tf.contrib.seq2seq.BasicDecoder; BahdanauAttention = tf.contrib.seq2seq.BahdanauAttention
    AttentionWrapper = tf.contrib.seq2seq.AttentionWrapper; Helper = tf.contrib.seq2seq.Helper
    D = 4
    symbols = list('_~abcdefg')
    class hp:
        embed_depth = 6; prenet_depth1 = 6; prenet_depth2 = 4; encoder_depth = 2 * D; attention_depth = 5; decoder_depth = 6
        num_mels = 3; outputs_per_step = 2; num_freq = 7; max_iters = 6; sample_rate = 20000
        decay_learning_rate = True; initial_learning_rate = 0.002; adam_beta1 = 0.9; adam_beta2 = 0.999
    def log(msg):
        print(msg)
    class TacoTestHelper(Helper):
      def __init__(self, batch_size, output_dim, r):
        with tf.name_scope('TacoTestHelper'):
          self._batch_size = batch_size
          self._output_dim = output_dim
          self._end_token = tf.tile([0.0], [output_dim * r])
      @property
      def batch_size(self):
        return self._batch_size
      @property
      def sample_ids_shape(self):
        return tf.TensorShape([])
      @property
      def sample_ids_dtype(self):
        return np.int32
      def initialize(self, name=None):
        return (tf.tile([False], [self._batch_size]), _go_frames(self._batch_size, self._output_dim))
      def sample(self, time, outputs, state, name=None):
        return tf.tile([0], [self._batch_size])
      def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with tf.name_scope('TacoTestHelper'):
          finished = tf.reduce_all(tf.equal(outputs, self._end_token), axis=1)
          next_inputs = outputs[:, -self._output_dim:]
          return (finished, next_inputs, state)
    class TacoTrainingHelper(Helper):
      def __init__(self, inputs, targets, output_dim, r):
        with tf.name_scope('TacoTrainingHelper'):
          self._batch_size = tf.shape(inputs)[0]
          self._output_dim = output_dim
          self._targets = targets[:, r-1::r, :]
          num_steps = tf.shape(self._targets)[1]
          self._lengths = tf.tile([num_steps], [self._batch_size])
      @property
      def batch_size(self):
        return self._batch_size
      @property
      def sample_ids_shape(self):
        return tf.TensorShape([])
      @property
      def sample_ids_dtype(self):
        return np.int32
      def initialize(self, name=None):
        return (tf.tile([False], [self._batch_size]), _go_frames(self._batch_size, self._output_dim))
      def sample(self, time, outputs, state, name=None):
        return tf.tile([0], [self._batch_size])
      def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with tf.name_scope(name or 'TacoTrainingHelper'):
          finished = (time + 1 >= self._lengths)
          next_inputs = self._targets[:, time, :]
          return (finished, next_inputs, state)
    def _go_frames(batch_size, output_dim):
      return tf.tile([[0.0]], [batch_size, output_dim])
    def prenet(inputs, is_training, layer_sizes, scope=None):
      x = inputs
      drop_rate = 0.5 if is_training else 0.0
      with tf.variable_scope(scope or 'prenet'):
        for i, size in enumerate(layer_sizes):
          dense = tf.layers.dense(x, units=size, activation=tf.nn.relu, name='dense_%d' % (i+1))
          x = tf.layers.dropout(dense, rate=drop_rate, training=is_training, name='dropout_%d' % (i+1))
      return x
    def encoder_cbhg(inputs, input_lengths, is_training, depth):
      input_channels = inputs.get_shape()[2]
      return cbhg(inputs, input_lengths, is_training, scope='encoder_cbhg', K=4, projections=[D, input_channels], depth=depth)
    def post_cbhg(inputs, input_dim, is_training, depth):
      return cbhg(inputs, None, is_training, scope='post_cbhg', K=3, projections=[2 * D, input_dim], depth=depth)
    def cbhg(inputs, input_lengths, is_training, scope, K, projections, depth):
      with tf.variable_scope(scope):
        with tf.variable_scope('conv_bank'):
          conv_outputs = tf.concat([conv1d(inputs, k, D, tf.nn.relu, is_training, 'conv1d_%d' % k) for k in range(1, K+1)], axis=-1)
        maxpool_output = tf.layers.max_pooling1d(conv_outputs, pool_size=2, strides=1, padding='same')
        proj1_output = conv1d(maxpool_output, 3, projections[0], tf.nn.relu, is_training, 'proj_1')
        proj2_output = conv1d(proj1_output, 3, projections[1], None, is_training, 'proj_2')
        highway_input = proj2_output + inputs
        half_depth = depth // 2
        assert half_depth*2 == depth, 'encoder and postnet depths must be even.'
        if highway_input.shape[2] != half_depth:
          highway_input = tf.layers.dense(highway_input, half_depth)
        for i in range(4):
          highway_input = highwaynet(highway_input, 'highway_%d' % (i+1), half_depth)
        rnn_input = highway_input
        outputs, states = tf.nn.bidirectional_dynamic_rnn(GRUCell(half_depth), GRUCell(half_depth), rnn_input, sequence_length=input_lengths, dtype=tf.float32)
        return tf.concat(outputs, axis=2)
    def highwaynet(inputs, scope, depth):
      with tf.variable_scope(scope):
        H = tf.layers.dense(inputs, units=depth, activation=tf.nn.relu, name='H')
        T = tf.layers.dense(inputs, units=depth, activation=tf.nn.sigmoid, name='T', bias_initializer=tf.constant_initializer(-1.0))
        return H * T + inputs * (1.0 - T)
    def conv1d(inputs, kernel_size, channels, activation, is_training, scope):
      with tf.variable_scope(scope):
        conv1d_output = tf.layers.conv1d(inputs, filters=channels, kernel_size=kernel_size, activation=activation, padding='same')
        return tf.layers.batch_normalization(conv1d_output, training=is_training)
    class DecoderPrenetWrapper(RNNCell):
      def __init__(self, cell, is_training, layer_sizes):
        super(DecoderPrenetWrapper, self).__init__()
        self._cell = cell
        self._is_training = is_training
        self._layer_sizes = layer_sizes
      @property
      def state_size(self):
        return self._cell.state_size
      @property
      def output_size(self):
        return self._cell.output_size
      def call(self, inputs, state):
        prenet_out = prenet(inputs, self._is_training, self._layer_sizes, scope='decoder_prenet')
        return self._cell(prenet_out, state)
      def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)
    class ConcatOutputAndAttentionWrapper(RNNCell):
      def __init__(self, cell):
        super(ConcatOutputAndAttentionWrapper, self).__init__()
        self._cell = cell
      @property
      def state_size(self):
        return self._cell.state_size
      @property
      def output_size(self):
        return self._cell.output_size + self._cell.state_size.attention
      def call(self, inputs, state):
        output, res_state = self._cell(inputs, state)
        return tf.concat([output, res_state.attention], axis=-1), res_state
      def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)
    class Tacotron():
      def __init__(self, hparams):
        self._hparams = hparams
      def initialize(self, inputs, input_lengths, mel_targets=None, linear_targets=None):
        with tf.variable_scope('inference') as scope:
          is_training = linear_targets is not None
          batch_size = tf.shape(inputs)[0]
          hp = self._hparams
          embedding_table = tf.get_variable('embedding', [len(symbols), hp.embed_depth], dtype=tf.float32, initializer=tf.truncated_normal_initializer(stddev=0.5))
          embedded_inputs = tf.nn.embedding_lookup(embedding_table, inputs)
          prenet_layer_sizes = [hp.prenet_depth1, hp.prenet_depth2]
          prenet_outputs = prenet(embedded_inputs, is_training, prenet_layer_sizes)
          encoder_outputs = encoder_cbhg(prenet_outputs, input_lengths, is_training, hp.encoder_depth)
          attention_cell = AttentionWrapper(DecoderPrenetWrapper(GRUCell(hp.attention_depth), is_training, prenet_layer_sizes), BahdanauAttention(hp.attention_depth, encoder_outputs), alignment_history=True, output_attention=False)
          concat_cell = ConcatOutputAndAttentionWrapper(attention_cell)
          decoder_cell = MultiRNNCell([OutputProjectionWrapper(concat_cell, hp.decoder_depth), ResidualWrapper(GRUCell(hp.decoder_depth)), ResidualWrapper(GRUCell(hp.decoder_depth))], state_is_tuple=True)
          output_cell = OutputProjectionWrapper(decoder_cell, hp.num_mels * hp.outputs_per_step)
          decoder_init_state = output_cell.zero_state(batch_size=batch_size, dtype=tf.float32)
          if is_training:
            helper = TacoTrainingHelper(inputs, mel_targets, hp.num_mels, hp.outputs_per_step)
          else:
            helper = TacoTestHelper(batch_size, hp.num_mels, hp.outputs_per_step)
          (decoder_outputs, _), final_decoder_state, _ = tf.contrib.seq2seq.dynamic_decode(BasicDecoder(output_cell, helper, decoder_init_state), maximum_iterations=hp.max_iters)
          mel_outputs = tf.reshape(decoder_outputs, [batch_size, -1, hp.num_mels])
          post_outputs = post_cbhg(mel_outputs, hp.num_mels, is_training, hp.encoder_depth)
          linear_outputs = tf.layers.dense(post_outputs, hp.num_freq)
          alignments = tf.transpose(final_decoder_state[0].alignment_history.stack(), [1, 2, 0])
          self.inputs = inputs; self.input_lengths = input_lengths; self.mel_outputs = mel_outputs
          self.linear_outputs = linear_outputs; self.alignments = alignments
          self.mel_targets = mel_targets; self.linear_targets = linear_targets
          log('Initialized Tacotron model. Dimensions: ')
          log('  embedding:               %d' % embedded_inputs.shape[-1])
          log('  prenet out:              %d' % prenet_outputs.shape[-1])
          log('  encoder out:             %d' % encoder_outputs.shape[-1])
          log('  attention out:           %d' % attention_cell.output_size)
          log('  concat attn & out:       %d' % concat_cell.output_size)
          log('  decoder cell out:        %d' % decoder_cell.output_size)
          log('  decoder out (%d frames):  %d' % (hp.outputs_per_step, decoder_outputs.shape[-1]))
          log('  decoder out (1 frame):   %d' % mel_outputs.shape[-1])
          log('  postnet out:             %d' % post_outputs.shape[-1])
          log('  linear out:              %d' % linear_outputs.shape[-1])
      def add_loss(self):
        with tf.variable_scope('loss') as scope:
          hp = self._hparams
          self.mel_loss = tf.reduce_mean(tf.abs(self.mel_targets - self.mel_outputs))
          l1 = tf.abs(self.linear_targets - self.linear_outputs)
          n_priority_freq = int(3000 / (hp.sample_rate * 0.5) * hp.num_freq)
          self.linear_loss = 0.5 * tf.reduce_mean(l1) + 0.5 * tf.reduce_mean(l1[:,:,0:n_priority_freq])
          self.loss = self.mel_loss + self.linear_loss
      def add_optimizer(self, global_step):
        with tf.variable_scope('optimizer') as scope:
          hp = self._hparams
          if hp.decay_learning_rate:
            self.learning_rate = _learning_rate_decay(hp.initial_learning_rate, global_step)
          else:
            self.learning_rate = tf.convert_to_tensor(hp.initial_learning_rate)
          optimizer = tf.train.AdamOptimizer(self.learning_rate, hp.adam_beta1, hp.adam_beta2)
          gradients, variables = zip(*optimizer.compute_gradients(self.loss))
          self.gradients = gradients
          clipped_gradients, _ = tf.clip_by_global_norm(gradients, 1.0)
          with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            self.optimize = optimizer.apply_gradients(zip(clipped_gradients, variables), global_step=global_step)
    def _learning_rate_decay(init_lr, global_step):
      warmup_steps = 4000.0
      step = tf.cast(global_step + 1, dtype=tf.float32)
      return init_lr * warmup_steps**0.5 * tf.minimum(step * warmup_steps**-1.5, step**-0.5)
    tf.set_random_seed(7)
    inputs = tf.placeholder(tf.int32, [None, None], 'inputs')
    input_lengths = tf.placeholder(tf.int32, [None], 'input_lengths')
    mel_targets = tf.placeholder(tf.float32, [None, None, hp.num_mels], 'mel_targets')
    linear_targets = tf.placeholder(tf.float32, [None, None, hp.num_freq], 'linear_targets')
    global_step = tf.Variable(0, name='global_step', trainable=False)
    with tf.variable_scope('model') as scope:
      model = Tacotron(hp)
      model.initialize(inputs, input_lengths, mel_targets, linear_targets)
      model.add_loss()
      model.add_optimizer(global_step)
    print(len(tf.trainable_variables()), len(tf.global_variables()), len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)))
    print(model.alignments, model.linear_outputs)
    rng = np.random.RandomState(1)
    feed = {inputs: np.array([[2, 3, 4, 5, 1], [6, 7, 8, 1, 0]]), input_lengths: [5, 4],
            mel_targets: rng.rand(2, 8, hp.num_mels).astype(np.float32), linear_targets: rng.rand(2, 8, hp.num_freq).astype(np.float32)}
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      for i in range(3):
        step, loss, opt = sess.run([global_step, model.loss, model.optimize], feed_dict=feed)
        print('Step %-7d [loss=%.05f]' % (step, loss))
      a = sess.run(model.alignments, feed)
      print(a.shape, np.round(a[0, :, :2], 4).tolist())
    with tf.variable_scope('model', reuse=True):
      with tf.Graph().as_default():
        tf.set_random_seed(8)
        inputs = tf.placeholder(tf.int32, [1, None], 'inputs')
        input_lengths = tf.placeholder(tf.int32, [1], 'input_lengths')
        with tf.variable_scope('model') as scope:
          m = Tacotron(hp)
          m.initialize(inputs, input_lengths)
          wav_output = m.linear_outputs[0]
        with tf.Session() as sess:
          sess.run(tf.global_variables_initializer())
          w, al = sess.run([wav_output, m.alignments], {inputs: [[2, 3, 4]], input_lengths: [3]})
          print(w.shape, al.shape, np.round(w[:2], 4).tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["keithito_tacotron"]


def test_rayhane_tacotron2(capsys):
    # Rayhane-mamah/Tacotron-2 tacotron/models/attention.py (LocationSensitiveAttention, _compute_attention) + custom_decoder.py (CustomDecoder) + Architecture_wrappers.py (TacotronDecoderCell) + helpers.py (TacoTrainingHelper) + tacotron.py's losses, zoneout LSTMs replaced by LSTMCells, sizes shrunk
    import collections
    from tideflow.contrib.seq2seq.python.ops.attention_wrapper import BahdanauAttention
    from tideflow.contrib.seq2seq.python.ops import decoder
    from tideflow.contrib.seq2seq.python.ops import helper as helper_py
    from tideflow.python.framework import ops
    from tideflow.python.framework import tensor_shape
    from tideflow.python.layers import base as layers_base
    from tideflow.python.ops import rnn_cell_impl
    from tideflow.python.util import nest
    from tideflow.python.ops import array_ops
    from tideflow.python.ops import math_ops
    from tideflow.python.ops import check_ops
    from tideflow.python.ops import tensor_array_ops
    from tideflow.python.ops import variable_scope
    RNNCell = tf.contrib.rnn.RNNCell
    _zero_state_tensors = rnn_cell_impl._zero_state_tensors
    class hparams:
        attention_filters = 3; attention_kernel = (5, ); attention_dim = 4; synthesis_constraint = False; attention_win_size = 3
        synthesis_constraint_type = 'window'; num_mels = 3; outputs_per_step = 2; prenet_layers = [4, 4]; decoder_lstm_units = 5
    def _compute_attention(attention_mechanism, cell_output, attention_state, attention_layer, prev_max_attentions):
        alignments, next_attention_state, max_attentions = attention_mechanism(cell_output, state=attention_state, prev_max_attentions=prev_max_attentions)
        expanded_alignments = array_ops.expand_dims(alignments, 1)
        context = math_ops.matmul(expanded_alignments, attention_mechanism.values)
        context = array_ops.squeeze(context, [1])
        if attention_layer is not None:
            attention = attention_layer(array_ops.concat([cell_output, context], 1))
        else:
            attention = context
        return attention, alignments, next_attention_state, max_attentions
    def _location_sensitive_score(W_query, W_fil, W_keys):
        dtype = W_query.dtype
        num_units = W_keys.shape[-1].value or array_ops.shape(W_keys)[-1]
        v_a = tf.get_variable('attention_variable_projection', shape=[num_units], dtype=dtype, initializer=tf.contrib.layers.xavier_initializer())
        b_a = tf.get_variable('attention_bias', shape=[num_units], dtype=dtype, initializer=tf.zeros_initializer())
        return tf.reduce_sum(v_a * tf.tanh(W_keys + W_query + W_fil + b_a), [2])
    def _smoothing_normalization(e):
        return tf.nn.sigmoid(e) / tf.reduce_sum(tf.nn.sigmoid(e), axis=-1, keepdims=True)
    class LocationSensitiveAttention(BahdanauAttention):
        def __init__(self, num_units, memory, hparams, is_training, mask_encoder=True, memory_sequence_length=None, smoothing=False, cumulate_weights=True, name='LocationSensitiveAttention'):
            normalization_function = _smoothing_normalization if (smoothing == True) else None
            memory_length = memory_sequence_length if (mask_encoder==True) else None
            super(LocationSensitiveAttention, self).__init__(num_units=num_units, memory=memory, memory_sequence_length=memory_length, probability_fn=normalization_function, name=name)
            self.location_convolution = tf.layers.Conv1D(filters=hparams.attention_filters, kernel_size=hparams.attention_kernel, padding='same', use_bias=True, bias_initializer=tf.zeros_initializer(), name='location_features_convolution')
            self.location_layer = tf.layers.Dense(units=num_units, use_bias=False, dtype=tf.float32, name='location_features_layer')
            self._cumulate = cumulate_weights
            self.synthesis_constraint = hparams.synthesis_constraint and not is_training
            self.attention_win_size = tf.convert_to_tensor(hparams.attention_win_size, dtype=tf.int32)
            self.constraint_type = hparams.synthesis_constraint_type
        def __call__(self, query, state, prev_max_attentions):
            previous_alignments = state
            with variable_scope.variable_scope(None, "Location_Sensitive_Attention", [query]):
                processed_query = self.query_layer(query) if self.query_layer else query
                processed_query = tf.expand_dims(processed_query, 1)
                expanded_alignments = tf.expand_dims(previous_alignments, axis=2)
                f = self.location_convolution(expanded_alignments)
                processed_location_features = self.location_layer(f)
                energy = _location_sensitive_score(processed_query, processed_location_features, self.keys)
            if self.synthesis_constraint:
                Tx = tf.shape(energy)[-1]
                key_masks = tf.sequence_mask(prev_max_attentions - (self.attention_win_size // 2 + (self.attention_win_size % 2 != 0)), Tx)
                reverse_masks = tf.sequence_mask(Tx - (self.attention_win_size // 2) - prev_max_attentions, Tx)[:, ::-1]
                masks = tf.logical_or(key_masks, reverse_masks)
                paddings = tf.ones_like(energy) * (-2 ** 32 + 1)
                energy = tf.where(tf.equal(masks, False), energy, paddings)
            alignments = self._probability_fn(energy, previous_alignments)
            max_attentions = tf.argmax(alignments, -1, output_type=tf.int32)
            if self._cumulate:
                next_state = alignments + previous_alignments
            else:
                next_state = alignments
            return alignments, next_state, max_attentions
    class TacotronDecoderCellState(collections.namedtuple("TacotronDecoderCellState", ("cell_state", "attention", "time", "alignments", "alignment_history", "max_attentions"))):
        def replace(self, **kwargs):
            return super(TacotronDecoderCellState, self)._replace(**kwargs)
    class TacotronDecoderCell(RNNCell):
        def __init__(self, prenet, attention_mechanism, rnn_cell, frame_projection, stop_projection):
            super(TacotronDecoderCell, self).__init__()
            self._prenet = prenet
            self._attention_mechanism = attention_mechanism
            self._cell = rnn_cell
            self._frame_projection = frame_projection
            self._stop_projection = stop_projection
            self._attention_layer_size = self._attention_mechanism.values.get_shape()[-1].value
        def _batch_size_checks(self, batch_size, error_message):
            return [check_ops.assert_equal(batch_size, self._attention_mechanism.batch_size, message=error_message)]
        @property
        def output_size(self):
            return self._frame_projection.shape
        @property
        def state_size(self):
            return TacotronDecoderCellState(cell_state=self._cell.state_size, time=tensor_shape.TensorShape([]), attention=self._attention_layer_size,
                alignments=self._attention_mechanism.alignments_size, alignment_history=(), max_attentions=())
        def zero_state(self, batch_size, dtype):
            with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
                cell_state = self._cell.zero_state(batch_size, dtype)
                error_message = ("When calling zero_state of TacotronDecoderCell %s: " % self._base_name + "Non-matching batch sizes between the memory (encoder output) and the requested batch size.")
                with ops.control_dependencies(self._batch_size_checks(batch_size, error_message)):
                    cell_state = nest.map_structure(lambda s: array_ops.identity(s, name="checked_cell_state"), cell_state)
                return TacotronDecoderCellState(cell_state=cell_state, time=array_ops.zeros([], dtype=tf.int32), attention=_zero_state_tensors(self._attention_layer_size, batch_size, dtype),
                    alignments=self._attention_mechanism.initial_alignments(batch_size, dtype), alignment_history=tensor_array_ops.TensorArray(dtype=dtype, size=0, dynamic_size=True),
                    max_attentions=tf.zeros((batch_size, ), dtype=tf.int32))
        def __call__(self, inputs, state):
            prenet_output = self._prenet(inputs)
            LSTM_input = tf.concat([prenet_output, state.attention], axis=-1)
            LSTM_output, next_cell_state = self._cell(LSTM_input, state.cell_state)
            previous_alignments = state.alignments
            previous_alignment_history = state.alignment_history
            context_vector, alignments, cumulated_alignments, max_attentions = _compute_attention(self._attention_mechanism, LSTM_output, previous_alignments, attention_layer=None, prev_max_attentions=state.max_attentions)
            projections_input = tf.concat([LSTM_output, context_vector], axis=-1)
            cell_outputs = self._frame_projection(projections_input)
            stop_tokens = self._stop_projection(projections_input)
            alignment_history = previous_alignment_history.write(state.time, alignments)
            next_state = TacotronDecoderCellState(time=state.time + 1, cell_state=next_cell_state, attention=context_vector, alignments=cumulated_alignments, alignment_history=alignment_history, max_attentions=max_attentions)
            return (cell_outputs, stop_tokens), next_state
    class CustomDecoderOutput(collections.namedtuple("CustomDecoderOutput", ("rnn_output", "token_output", "sample_id"))):
        pass
    class CustomDecoder(decoder.Decoder):
        def __init__(self, cell, helper, initial_state, output_layer=None):
            rnn_cell_impl.assert_like_rnncell(type(cell), cell)
            if not isinstance(helper, helper_py.Helper):
                raise TypeError("helper must be a Helper, received: %s" % type(helper))
            if (output_layer is not None and not isinstance(output_layer, layers_base.Layer)):
                raise TypeError("output_layer must be a Layer, received: %s" % type(output_layer))
            self._cell = cell
            self._helper = helper
            self._initial_state = initial_state
            self._output_layer = output_layer
        @property
        def batch_size(self):
            return self._helper.batch_size
        def _rnn_output_size(self):
            size = self._cell.output_size
            if self._output_layer is None:
                return size
            output_shape_with_unknown_batch = nest.map_structure(lambda s: tensor_shape.TensorShape([None]).concatenate(s), size)
            layer_output_shape = self._output_layer._compute_output_shape(output_shape_with_unknown_batch)
            return nest.map_structure(lambda s: s[1:], layer_output_shape)
        @property
        def output_size(self):
            return CustomDecoderOutput(rnn_output=self._rnn_output_size(), token_output=self._helper.token_output_size, sample_id=self._helper.sample_ids_shape)
        @property
        def output_dtype(self):
            dtype = nest.flatten(self._initial_state)[0].dtype
            return CustomDecoderOutput(nest.map_structure(lambda _: dtype, self._rnn_output_size()), tf.float32, self._helper.sample_ids_dtype)
        def initialize(self, name=None):
            return self._helper.initialize() + (self._initial_state,)
        def step(self, time, inputs, state, name=None):
            with ops.name_scope(name, "CustomDecoderStep", (time, inputs, state)):
                (cell_outputs, stop_token), cell_state = self._cell(inputs, state)
                if self._output_layer is not None:
                    cell_outputs = self._output_layer(cell_outputs)
                sample_ids = self._helper.sample(time=time, outputs=cell_outputs, state=cell_state)
                (finished, next_inputs, next_state) = self._helper.next_inputs(time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids, stop_token_prediction=stop_token)
            outputs = CustomDecoderOutput(cell_outputs, stop_token, sample_ids)
            return (outputs, next_state, next_inputs, finished)
    class TacoTrainingHelper(helper_py.Helper):
        def __init__(self, batch_size, targets, hparams, gta, evaluating, global_step):
            with tf.name_scope('TacoTrainingHelper'):
                self._batch_size = batch_size
                self._output_dim = hparams.num_mels
                self._reduction_factor = hparams.outputs_per_step
                self._ratio = tf.convert_to_tensor(1.)
                self.gta = gta; self.eval = evaluating; self.global_step = global_step
                r = self._reduction_factor
                self._targets = targets[:, r-1::r, :]
                self._lengths = tf.tile([tf.shape(self._targets)[1]], [self._batch_size])
        @property
        def batch_size(self):
            return self._batch_size
        @property
        def token_output_size(self):
            return self._reduction_factor
        @property
        def sample_ids_shape(self):
            return tf.TensorShape([])
        @property
        def sample_ids_dtype(self):
            return np.int32
        def initialize(self, name=None):
            return (tf.tile([False], [self._batch_size]), _go_frames(self._batch_size, self._output_dim))
        def sample(self, time, outputs, state, name=None):
            return tf.tile([0], [self._batch_size])
        def next_inputs(self, time, outputs, state, sample_ids, stop_token_prediction, name=None):
            with tf.name_scope(name or 'TacoTrainingHelper'):
                finished = (time + 1 >= self._lengths)
                next_inputs = tf.cond(tf.less(tf.random_uniform([], minval=0, maxval=1, dtype=tf.float32), self._ratio), lambda: self._targets[:, time, :], lambda: outputs[:,-self._output_dim:])
                next_state = state
                return (finished, next_inputs, next_state)
    def _go_frames(batch_size, output_dim):
        return tf.tile([[0.0]], [batch_size, output_dim])
    tf.set_random_seed(21)
    enc = tf.placeholder(tf.float32, [None, None, 6]); enc_len = tf.placeholder(tf.int32, [None])
    mel_targets = tf.placeholder(tf.float32, [None, None, hparams.num_mels]); stop_token_targets = tf.placeholder(tf.float32, [None, None])
    batch_size = tf.shape(enc)[0]
    global_step = tf.Variable(0, trainable=False)
    with tf.variable_scope('inference'):
        attention_mechanism = LocationSensitiveAttention(hparams.attention_dim, enc, hparams=hparams, is_training=True, mask_encoder=True, memory_sequence_length=enc_len, smoothing=False, cumulate_weights=True)
        def prenet(x):
            for i, size in enumerate(hparams.prenet_layers):
                x = tf.layers.dropout(tf.layers.dense(x, size, activation=tf.nn.relu, name='decoder_prenet/dense_{}'.format(i + 1), reuse=tf.AUTO_REUSE), rate=0.0, training=True)
            return x
        class FrameProjection:
            def __init__(self, shape, scope='Linear_projection'):
                self.shape = shape; self.scope = scope
                self.dense = tf.layers.Dense(units=shape, activation=None, name='projection_{}'.format(scope))
            def __call__(self, inputs):
                with tf.variable_scope(self.scope):
                    return self.dense(inputs)
        class StopProjection:
            def __init__(self, is_training, shape=1, scope='stop_token_projection'):
                self.is_training = is_training; self.shape = shape; self.scope = scope
            def __call__(self, inputs):
                with tf.variable_scope(self.scope):
                    output = tf.layers.dense(inputs, units=self.shape, activation=None, name='projection_{}'.format(self.scope), reuse=tf.AUTO_REUSE)
                    return output
        decoder_lstm = tf.contrib.rnn.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(hparams.decoder_lstm_units, name='decoder_LSTM_{}'.format(i+1)) for i in range(2)], state_is_tuple=True)
        frame_projection = FrameProjection(hparams.num_mels * hparams.outputs_per_step)
        stop_projection = StopProjection(True, shape=hparams.outputs_per_step)
        decoder_cell = TacotronDecoderCell(prenet, attention_mechanism, decoder_lstm, frame_projection, stop_projection)
        helper = TacoTrainingHelper(batch_size, mel_targets, hparams, False, False, global_step)
        decoder_init_state = decoder_cell.zero_state(batch_size=batch_size, dtype=tf.float32)
        (frames_prediction, stop_token_prediction, _), final_decoder_state, _ = tf.contrib.seq2seq.dynamic_decode(CustomDecoder(decoder_cell, helper, decoder_init_state), impute_finished=False, maximum_iterations=10, swap_memory=False)
        decoder_output = tf.reshape(frames_prediction, [batch_size, -1, hparams.num_mels])
        stop_token_prediction = tf.reshape(stop_token_prediction, [batch_size, -1])
        alignments = tf.transpose(final_decoder_state.alignment_history.stack(), [1, 2, 0])
    print(decoder_output, stop_token_prediction, alignments, final_decoder_state.max_attentions)
    before = tf.losses.mean_squared_error(mel_targets, decoder_output)
    stop_token_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=stop_token_targets, logits=stop_token_prediction))
    all_vars = tf.trainable_variables()
    regularization = tf.add_n([tf.nn.l2_loss(v) for v in all_vars if not('bias' in v.name or 'Bias' in v.name or '_projection' in v.name or 'inputs_embedding' in v.name or 'RNN' in v.name or 'LSTM' in v.name)]) * 1e-6
    loss = before + stop_token_loss + regularization
    print([v.name for v in all_vars])
    def _learning_rate_decay(init_lr, global_step):
        lr = tf.train.exponential_decay(init_lr, global_step - 2, 5, 0.5, name='lr_exponential_decay')
        return tf.minimum(tf.maximum(lr, 1e-5), init_lr)
    learning_rate = _learning_rate_decay(1e-2, global_step)
    optimizer = tf.train.AdamOptimizer(learning_rate, 0.9, 0.999, 1e-6)
    gradients, variables = zip(*optimizer.compute_gradients(loss))
    clipped_gradients, _ = tf.clip_by_global_norm(gradients, 1.)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        optimize = optimizer.apply_gradients(zip(clipped_gradients, variables), global_step=global_step)
    rng = np.random.RandomState(3)
    feed = {enc: rng.randn(2, 5, 6).astype(np.float32), enc_len: [5, 3], mel_targets: rng.rand(2, 8, 3).astype(np.float32), stop_token_targets: np.array([[0] * 6 + [1] * 2, [0] * 4 + [1] * 4], np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(6):
            step, l, b, s, lr, _ = sess.run([global_step, loss, before, stop_token_loss, learning_rate, optimize], feed)
            print('Step {:5d} [loss={:.5f}, before={:.5f}, stop={:.5f}, lr={:.5f}]'.format(step, l, b, s, lr))
        al, ma = sess.run([alignments, final_decoder_state.max_attentions], feed)
        print(al.shape, np.round(al[1, :, -1], 4).tolist(), ma.tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["rayhane_tacotron2"]


def test_jayparks_seq2seq(capsys, tmp_path):
    # JayParks/tf-seq2seq seq2seq_model.py (Seq2SeqModel: multi-layer residual encoder, Bahdanau attention with cell_input_fn input feeding, attention_layer_size, alignment over a MultiRNNCell's top layer, output projection Dense, sequence_loss, BeamSearchDecoder decode with tile_batch), sizes shrunk, random data
    import math, os
    seq2seq = tf.contrib.seq2seq
    from_nn = tf.nn
    LSTMCell = tf.contrib.rnn.LSTMCell; GRUCell = tf.contrib.rnn.GRUCell; MultiRNNCell = tf.contrib.rnn.MultiRNNCell
    DropoutWrapper = tf.contrib.rnn.DropoutWrapper; ResidualWrapper = tf.contrib.rnn.ResidualWrapper
    Dense = tf.layers.Dense
    class Seq2SeqModel(object):
        def __init__(self, config, mode):
            assert mode.lower() in ['train', 'decode']
            self.config = config
            self.mode = mode.lower()
            self.cell_type = config['cell_type']; self.hidden_units = config['hidden_units']; self.depth = config['depth']
            self.attention_type = config['attention_type']; self.embedding_size = config['embedding_size']
            self.num_encoder_symbols = config['num_encoder_symbols']; self.num_decoder_symbols = config['num_decoder_symbols']
            self.use_residual = config['use_residual']; self.attn_input_feeding = config['attn_input_feeding']; self.use_dropout = config['use_dropout']
            self.keep_prob = 1.0 - config['dropout_rate']
            self.optimizer = config['optimizer']; self.learning_rate = config['learning_rate']; self.max_gradient_norm = config['max_gradient_norm']
            self.global_step = tf.Variable(0, trainable=False, name='global_step')
            self.global_epoch_step = tf.Variable(0, trainable=False, name='global_epoch_step')
            self.global_epoch_step_op = tf.assign(self.global_epoch_step, self.global_epoch_step+1)
            self.dtype = tf.float32
            self.keep_prob_placeholder = tf.placeholder(self.dtype, shape=[], name='keep_prob')
            self.use_beamsearch_decode = False
            if self.mode == 'decode':
                self.beam_width = config['beam_width']
                self.use_beamsearch_decode = True if self.beam_width > 1 else False
                self.max_decode_step = config['max_decode_step']
            self.build_model()
        def build_model(self):
            print("building model..")
            self.init_placeholders()
            self.build_encoder()
            self.build_decoder()
            self.summary_op = tf.summary.merge_all()
        def init_placeholders(self):
            self.encoder_inputs = tf.placeholder(dtype=tf.int32, shape=(None, None), name='encoder_inputs')
            self.encoder_inputs_length = tf.placeholder(dtype=tf.int32, shape=(None,), name='encoder_inputs_length')
            self.batch_size = tf.shape(self.encoder_inputs)[0]
            if self.mode == 'train':
                self.decoder_inputs = tf.placeholder(dtype=tf.int32, shape=(None, None), name='decoder_inputs')
                self.decoder_inputs_length = tf.placeholder(dtype=tf.int32, shape=(None,), name='decoder_inputs_length')
                decoder_start_token = tf.ones(shape=[self.batch_size, 1], dtype=tf.int32) * 1
                decoder_end_token = tf.ones(shape=[self.batch_size, 1], dtype=tf.int32) * 2
                self.decoder_inputs_train = tf.concat([decoder_start_token, self.decoder_inputs], axis=1)
                self.decoder_inputs_length_train = self.decoder_inputs_length + 1
                self.decoder_targets_train = tf.concat([self.decoder_inputs, decoder_end_token], axis=1)
        def build_encoder(self):
            print("building encoder..")
            with tf.variable_scope('encoder'):
                self.encoder_cell = self.build_encoder_cell()
                initializer = tf.random_uniform_initializer(-math.sqrt(3), math.sqrt(3), dtype=self.dtype)
                self.encoder_embeddings = tf.get_variable(name='embedding', shape=[self.num_encoder_symbols, self.embedding_size], initializer=initializer, dtype=self.dtype)
                self.encoder_inputs_embedded = tf.nn.embedding_lookup(params=self.encoder_embeddings, ids=self.encoder_inputs)
                input_layer = Dense(self.hidden_units, dtype=self.dtype, name='input_projection')
                self.encoder_inputs_embedded = input_layer(self.encoder_inputs_embedded)
                self.encoder_outputs, self.encoder_last_state = tf.nn.dynamic_rnn(cell=self.encoder_cell, inputs=self.encoder_inputs_embedded, sequence_length=self.encoder_inputs_length, dtype=self.dtype, time_major=False)
        def build_decoder(self):
            print("building decoder and attention..")
            with tf.variable_scope('decoder'):
                self.decoder_cell, self.decoder_initial_state = self.build_decoder_cell()
                initializer = tf.random_uniform_initializer(-math.sqrt(3), math.sqrt(3), dtype=self.dtype)
                self.decoder_embeddings = tf.get_variable(name='embedding', shape=[self.num_decoder_symbols, self.embedding_size], initializer=initializer, dtype=self.dtype)
                input_layer = Dense(self.hidden_units, dtype=self.dtype, name='input_projection')
                output_layer = Dense(self.num_decoder_symbols, name='output_projection')
                if self.mode == 'train':
                    self.decoder_inputs_embedded = tf.nn.embedding_lookup(params=self.decoder_embeddings, ids=self.decoder_inputs_train)
                    self.decoder_inputs_embedded = input_layer(self.decoder_inputs_embedded)
                    training_helper = seq2seq.TrainingHelper(inputs=self.decoder_inputs_embedded, sequence_length=self.decoder_inputs_length_train, time_major=False, name='training_helper')
                    training_decoder = seq2seq.BasicDecoder(cell=self.decoder_cell, helper=training_helper, initial_state=self.decoder_initial_state, output_layer=output_layer)
                    max_decoder_length = tf.reduce_max(self.decoder_inputs_length_train)
                    (self.decoder_outputs_train, self.decoder_last_state_train, self.decoder_outputs_length_train) = (seq2seq.dynamic_decode(decoder=training_decoder, output_time_major=False, impute_finished=True, maximum_iterations=max_decoder_length))
                    self.decoder_logits_train = tf.identity(self.decoder_outputs_train.rnn_output)
                    self.decoder_pred_train = tf.argmax(self.decoder_logits_train, axis=-1, name='decoder_pred_train')
                    masks = tf.sequence_mask(lengths=self.decoder_inputs_length_train, maxlen=max_decoder_length, dtype=self.dtype, name='masks')
                    self.loss = seq2seq.sequence_loss(logits=self.decoder_logits_train, targets=self.decoder_targets_train, weights=masks, average_across_timesteps=True, average_across_batch=True)
                    tf.summary.scalar('loss', self.loss)
                    self.init_optimizer()
                elif self.mode == 'decode':
                    start_tokens = tf.ones([self.batch_size,], tf.int32) * 1
                    end_token = 2
                    def embed_and_input_proj(inputs):
                        return input_layer(tf.nn.embedding_lookup(self.decoder_embeddings, inputs))
                    if not self.use_beamsearch_decode:
                        decoding_helper = seq2seq.GreedyEmbeddingHelper(start_tokens=start_tokens, end_token=end_token, embedding=embed_and_input_proj)
                        inference_decoder = seq2seq.BasicDecoder(cell=self.decoder_cell, helper=decoding_helper, initial_state=self.decoder_initial_state, output_layer=output_layer)
                    else:
                        inference_decoder = seq2seq.BeamSearchDecoder(cell=self.decoder_cell, embedding=embed_and_input_proj, start_tokens=start_tokens, end_token=end_token, initial_state=self.decoder_initial_state, beam_width=self.beam_width, output_layer=output_layer)
                    (self.decoder_outputs_decode, self.decoder_last_state_decode, self.decoder_outputs_length_decode) = (seq2seq.dynamic_decode(decoder=inference_decoder, output_time_major=False, maximum_iterations=self.max_decode_step))
                    if not self.use_beamsearch_decode:
                        self.decoder_pred_decode = tf.expand_dims(self.decoder_outputs_decode.sample_id, -1)
                    else:
                        self.decoder_pred_decode = self.decoder_outputs_decode.predicted_ids
        def build_single_cell(self):
            cell_type = LSTMCell
            if (self.cell_type.lower() == 'gru'):
                cell_type = GRUCell
            cell = cell_type(self.hidden_units)
            if self.use_dropout:
                cell = DropoutWrapper(cell, dtype=self.dtype, output_keep_prob=self.keep_prob_placeholder,)
            if self.use_residual:
                cell = ResidualWrapper(cell)
            return cell
        def build_encoder_cell(self):
            return MultiRNNCell([self.build_single_cell() for i in range(self.depth)])
        def build_decoder_cell(self):
            encoder_outputs = self.encoder_outputs
            encoder_last_state = self.encoder_last_state
            encoder_inputs_length = self.encoder_inputs_length
            if self.use_beamsearch_decode:
                print("use beamsearch decoding..")
                encoder_outputs = seq2seq.tile_batch(self.encoder_outputs, multiplier=self.beam_width)
                encoder_last_state = tf.contrib.framework.nest.map_structure(lambda s: seq2seq.tile_batch(s, self.beam_width), self.encoder_last_state)
                encoder_inputs_length = seq2seq.tile_batch(self.encoder_inputs_length, multiplier=self.beam_width)
            self.attention_mechanism = seq2seq.BahdanauAttention(num_units=self.hidden_units, memory=encoder_outputs, memory_sequence_length=encoder_inputs_length,)
            if self.attention_type.lower() == 'luong':
                self.attention_mechanism = seq2seq.LuongAttention(num_units=self.hidden_units, memory=encoder_outputs, memory_sequence_length=encoder_inputs_length,)
            self.decoder_cell_list = [self.build_single_cell() for i in range(self.depth)]
            decoder_initial_state = encoder_last_state
            def attn_decoder_input_fn(inputs, attention):
                if not self.attn_input_feeding:
                    return inputs
                _input_layer = Dense(self.hidden_units, dtype=self.dtype, name='attn_input_feeding')
                return _input_layer(tf.concat([inputs, attention], -1))
            self.decoder_cell_list[-1] = seq2seq.AttentionWrapper(cell=self.decoder_cell_list[-1], attention_mechanism=self.attention_mechanism, attention_layer_size=self.hidden_units, cell_input_fn=attn_decoder_input_fn, initial_cell_state=encoder_last_state[-1], alignment_history=False, name='Attention_Wrapper')
            batch_size = self.batch_size if not self.use_beamsearch_decode else self.batch_size * self.beam_width
            initial_state = [state for state in encoder_last_state]
            initial_state[-1] = self.decoder_cell_list[-1].zero_state(batch_size=batch_size, dtype=self.dtype)
            decoder_initial_state = tuple(initial_state)
            return MultiRNNCell(self.decoder_cell_list), decoder_initial_state
        def init_optimizer(self):
            print("setting optimizer..")
            trainable_params = tf.trainable_variables()
            if self.optimizer.lower() == 'adadelta':
                self.opt = tf.train.AdadeltaOptimizer(learning_rate=self.learning_rate)
            elif self.optimizer.lower() == 'adam':
                self.opt = tf.train.AdamOptimizer(learning_rate=self.learning_rate)
            elif self.optimizer.lower() == 'rmsprop':
                self.opt = tf.train.RMSPropOptimizer(learning_rate=self.learning_rate)
            else:
                self.opt = tf.train.GradientDescentOptimizer(learning_rate=self.learning_rate)
            gradients = tf.gradients(self.loss, trainable_params)
            clip_gradients, _ = tf.clip_by_global_norm(gradients, self.max_gradient_norm)
            self.updates = self.opt.apply_gradients(zip(clip_gradients, trainable_params), global_step=self.global_step)
        def check_feeds(self, encoder_inputs, encoder_inputs_length, decoder_inputs, decoder_inputs_length, decode):
            input_batch_size = encoder_inputs.shape[0]
            if input_batch_size != encoder_inputs_length.shape[0]:
                raise ValueError("Encoder inputs and their lengths must be equal in their batch_size, %d != %d" % (input_batch_size, encoder_inputs_length.shape[0]))
            input_feed = {}
            input_feed[self.encoder_inputs.name] = encoder_inputs
            input_feed[self.encoder_inputs_length.name] = encoder_inputs_length
            if not decode:
                input_feed[self.decoder_inputs.name] = decoder_inputs
                input_feed[self.decoder_inputs_length.name] = decoder_inputs_length
            return input_feed
        def train(self, sess, encoder_inputs, encoder_inputs_length, decoder_inputs, decoder_inputs_length):
            input_feed = self.check_feeds(encoder_inputs, encoder_inputs_length, decoder_inputs, decoder_inputs_length, False)
            input_feed[self.keep_prob_placeholder.name] = self.keep_prob
            output_feed = [self.updates, self.loss, self.summary_op]
            outputs = sess.run(output_feed, input_feed)
            return outputs[1], outputs[2]
        def predict(self, sess, encoder_inputs, encoder_inputs_length):
            input_feed = self.check_feeds(encoder_inputs, encoder_inputs_length, decoder_inputs=None, decoder_inputs_length=None, decode=True)
            input_feed[self.keep_prob_placeholder.name] = 1.0
            output_feed = [self.decoder_pred_decode]
            outputs = sess.run(output_feed, input_feed)
            return outputs[0]
    config = dict(cell_type='lstm', hidden_units=6, depth=2, attention_type='bahdanau', embedding_size=5, num_encoder_symbols=12, num_decoder_symbols=10,
                  use_residual=True, attn_input_feeding=True, use_dropout=True, dropout_rate=0.0, optimizer='adam', learning_rate=0.01, max_gradient_norm=1.0, beam_width=3, max_decode_step=6)
    rng = np.random.RandomState(2)
    ei = rng.randint(3, 12, size=(3, 5)).astype(np.int32); el = np.array([5, 3, 4], np.int32)
    di = rng.randint(3, 10, size=(3, 4)).astype(np.int32); dl = np.array([4, 2, 3], np.int32)

    ckdir = str(tmp_path)
    with tf.Graph().as_default():
        tf.set_random_seed(5)
        model = Seq2SeqModel(config, 'train')
        print(model.loss, model.decoder_logits_train, len(tf.trainable_variables()))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(5):
                l, s = model.train(sess, ei, el, di, dl)
                print('step %d loss %.5f' % (i, l))
            saver.save(sess, os.path.join(ckdir, 'translate.ckpt'))
    for mode_cfg in [dict(beam_width=3), dict(beam_width=1)]:
        with tf.Graph().as_default():
            cfg = dict(config, **mode_cfg)
            model = Seq2SeqModel(cfg, 'decode')
            saver = tf.train.Saver()
            with tf.Session() as sess:
                saver.restore(sess, os.path.join(ckdir, 'translate.ckpt'))
                p = model.predict(sess, ei, el)
                print(p.shape, p[:, :, 0].tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["jayparks_seq2seq"]



# What TF 1.15 (tensorflow-cpu 1.15.0) printed running each program (measured).
_TF115_PRINTED = {

    "keithito_tacotron": [
        "Initialized Tacotron model. Dimensions: ",
        "  embedding:               6",
        "  prenet out:              4",
        "  encoder out:             8",
        "  attention out:           5",
        "  concat attn & out:       13",
        "  decoder cell out:        6",
        "  decoder out (2 frames):  6",
        "  decoder out (1 frame):   3",
        "  postnet out:             8",
        "  linear out:              7",
        "124 397 22",
        "Tensor(\"model/inference/transpose:0\", shape=(?, ?, ?), dtype=float32) Tensor(\"model/inference/dense/BiasAdd:0\", shape=(?, ?, 7), dtype=float32)",
        "Step 1       [loss=0.93843]",
        "Step 2       [loss=0.96204]",
        "Step 3       [loss=0.89838]",
        "(2, 5, 4) [[0.2231999933719635, 0.2231999933719635], [0.1907999962568283, 0.1907999962568283], [0.1882999986410141, 0.1882999986410141], [0.19760000705718994, 0.19760000705718994], [0.20010000467300415, 0.20010000467300415]]",
        "Initialized Tacotron model. Dimensions: ",
        "  embedding:               6",
        "  prenet out:              4",
        "  encoder out:             8",
        "  attention out:           5",
        "  concat attn & out:       13",
        "  decoder cell out:        6",
        "  decoder out (2 frames):  6",
        "  decoder out (1 frame):   3",
        "  postnet out:             8",
        "  linear out:              7",
        "(12, 7) (1, 3, 6) [[0.0032999999821186066, 0.0020000000949949026, 9.999999747378752e-05, 0.0008999999845400453, -0.000699999975040555, -0.003100000089034438, -0.00419999985024333], [0.003800000064074993, 0.0015999999595806003, 0.0010000000474974513, 0.002400000113993883, -0.0005000000237487257, -0.003100000089034438, -0.004600000102072954]]",
    ],

    "rayhane_tacotron2": [
        "Tensor(\"inference/Reshape:0\", shape=(?, ?, 3), dtype=float32) Tensor(\"inference/Reshape_1:0\", shape=(?, ?), dtype=float32) Tensor(\"inference/transpose:0\", shape=(?, ?, ?), dtype=float32) Tensor(\"inference/decoder/while/Exit_13:0\", shape=(?,), dtype=int32)",
        "['inference/memory_layer/kernel:0', 'inference/decoder/decoder_prenet/dense_1/kernel:0', 'inference/decoder/decoder_prenet/dense_1/bias:0', 'inference/decoder/decoder_prenet/dense_2/kernel:0', 'inference/decoder/decoder_prenet/dense_2/bias:0', 'inference/decoder/multi_rnn_cell/cell_0/decoder_LSTM_1/kernel:0', 'inference/decoder/multi_rnn_cell/cell_0/decoder_LSTM_1/bias:0', 'inference/decoder/multi_rnn_cell/cell_1/decoder_LSTM_2/kernel:0', 'inference/decoder/multi_rnn_cell/cell_1/decoder_LSTM_2/bias:0', 'inference/decoder/Location_Sensitive_Attention/query_layer/kernel:0', 'inference/decoder/Location_Sensitive_Attention/location_features_convolution/kernel:0', 'inference/decoder/Location_Sensitive_Attention/location_features_convolution/bias:0', 'inference/decoder/Location_Sensitive_Attention/location_features_layer/kernel:0', 'inference/decoder/Location_Sensitive_Attention/attention_variable_projection:0', 'inference/decoder/Location_Sensitive_Attention/attention_bias:0', 'inference/decoder/Linear_projection/projection_Linear_projection/kernel:0', 'inference/decoder/Linear_projection/projection_Linear_projection/bias:0', 'inference/decoder/stop_token_projection/projection_stop_token_projection/kernel:0', 'inference/decoder/stop_token_projection/projection_stop_token_projection/bias:0']",
        "Step     1 [loss=1.49649, before=0.80291, stop=0.69357, lr=0.01000]",
        "Step     2 [loss=1.41277, before=0.72277, stop=0.68999, lr=0.01000]",
        "Step     3 [loss=1.33739, before=0.65095, stop=0.68643, lr=0.01000]",
        "Step     4 [loss=1.26876, before=0.58612, stop=0.68263, lr=0.00871]",
        "Step     5 [loss=1.21341, before=0.53445, stop=0.67895, lr=0.00758]",
        "Step     6 [loss=1.16809, before=0.49272, stop=0.67536, lr=0.00660]",
        "(2, 5, 4) [0.09350000321865082, 0.5493000149726868, 0.3571000099182129, 0.0, 0.0] [4, 1]",
    ],

    "jayparks_seq2seq": [
        "building model..",
        "building encoder..",
        "building decoder and attention..",
        "setting optimizer..",
        "Tensor(\"decoder/sequence_loss/div_no_nan:0\", shape=(), dtype=float32) Tensor(\"decoder/Identity:0\", shape=(?, ?, 10), dtype=float32) 22",
        "step 0 loss 2.24753",
        "step 1 loss 2.06588",
        "step 2 loss 1.90897",
        "step 3 loss 1.76465",
        "step 4 loss 1.63375",
        "building model..",
        "building encoder..",
        "building decoder and attention..",
        "use beamsearch decoding..",
        "(3, 6, 3) [[7, 6, 6, 6, 6, 6], [6, 6, 6, 6, 6, 6], [7, 7, 7, 7, 7, 7]]",
        "building model..",
        "building encoder..",
        "building decoder and attention..",
        "(3, 6, 1) [[7, 6, 6, 6, 6, 6], [7, 6, 6, 6, 6, 6], [7, 7, 7, 7, 7, 7]]",
    ],

}
