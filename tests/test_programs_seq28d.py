"""TF 1.x speech and translation programs (speech_commands, tensorflow/nmt, DeepSpeech's early towers) tideflow had not seen, reduced to standalone forms with small synthetic data
(API calls, graph structure and training loops kept; sizes and step counts shrunk; the
repository and path named in each test's first comment). Each prints what TF 1.15
(tensorflow-cpu 1.15.0) printed running the same program with the same seeds (measured),
compared line by line."""
# ruff: noqa: F841, I001, RUF046, RUF059, SIM117, TRY002, UP004, UP031

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_speech_commands(capsys):
    # tensorflow/tensorflow tensorflow/examples/speech_commands/models.py (all five architectures) + input_data.py's processing graph + train.py's training step, sizes shrunk
    import math
    from tideflow.contrib.framework.python.ops import audio_ops as contrib_audio
    def _next_power_of_two(x):
      return 1 if x == 0 else 2**(int(x) - 1).bit_length()
    def prepare_model_settings(label_count, sample_rate, clip_duration_ms, window_size_ms, window_stride_ms, feature_bin_count, preprocess):
      desired_samples = int(sample_rate * clip_duration_ms / 1000)
      window_size_samples = int(sample_rate * window_size_ms / 1000)
      window_stride_samples = int(sample_rate * window_stride_ms / 1000)
      length_minus_window = (desired_samples - window_size_samples)
      if length_minus_window < 0:
        spectrogram_length = 0
      else:
        spectrogram_length = 1 + int(length_minus_window / window_stride_samples)
      if preprocess == 'average':
        fft_bin_count = 1 + (_next_power_of_two(window_size_samples) / 2)
        average_window_width = int(math.floor(fft_bin_count / feature_bin_count))
        fingerprint_width = int(math.ceil(fft_bin_count / average_window_width))
      elif preprocess == 'mfcc':
        average_window_width = -1
        fingerprint_width = feature_bin_count
      fingerprint_size = fingerprint_width * spectrogram_length
      return {'desired_samples': desired_samples, 'window_size_samples': window_size_samples, 'window_stride_samples': window_stride_samples,
          'spectrogram_length': spectrogram_length, 'fingerprint_width': fingerprint_width, 'fingerprint_size': fingerprint_size,
          'label_count': label_count, 'sample_rate': sample_rate, 'preprocess': preprocess, 'average_window_width': average_window_width}
    def create_model(fingerprint_input, model_settings, model_architecture, is_training, runtime_settings=None):
      if model_architecture == 'single_fc':
        return create_single_fc_model(fingerprint_input, model_settings, is_training)
      elif model_architecture == 'conv':
        return create_conv_model(fingerprint_input, model_settings, is_training)
      elif model_architecture == 'low_latency_conv':
        return create_low_latency_conv_model(fingerprint_input, model_settings, is_training)
      elif model_architecture == 'low_latency_svdf':
        return create_low_latency_svdf_model(fingerprint_input, model_settings, is_training, runtime_settings)
      elif model_architecture == 'tiny_conv':
        return create_tiny_conv_model(fingerprint_input, model_settings, is_training)
      else:
        raise Exception('model_architecture argument "' + model_architecture + '" not recognized')
    def create_single_fc_model(fingerprint_input, model_settings, is_training):
      if is_training:
        dropout_prob = tf.compat.v1.placeholder(tf.float32, name='dropout_prob')
      fingerprint_size = model_settings['fingerprint_size']
      label_count = model_settings['label_count']
      weights = tf.compat.v1.get_variable(name='weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.001), shape=[fingerprint_size, label_count])
      bias = tf.compat.v1.get_variable(name='bias', initializer=tf.compat.v1.zeros_initializer, shape=[label_count])
      logits = tf.matmul(fingerprint_input, weights) + bias
      if is_training:
        return logits, dropout_prob
      else:
        return logits
    def create_conv_model(fingerprint_input, model_settings, is_training):
      if is_training:
        dropout_prob = tf.compat.v1.placeholder(tf.float32, name='dropout_prob')
      input_frequency_size = model_settings['fingerprint_width']
      input_time_size = model_settings['spectrogram_length']
      fingerprint_4d = tf.reshape(fingerprint_input, [-1, input_time_size, input_frequency_size, 1])
      first_filter_width = 4; first_filter_height = 5; first_filter_count = 4
      first_weights = tf.compat.v1.get_variable(name='first_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[first_filter_height, first_filter_width, 1, first_filter_count])
      first_bias = tf.compat.v1.get_variable(name='first_bias', initializer=tf.compat.v1.zeros_initializer, shape=[first_filter_count])
      first_conv = tf.nn.conv2d(input=fingerprint_4d, filters=first_weights, strides=[1, 1, 1, 1], padding='SAME') + first_bias
      first_relu = tf.nn.relu(first_conv)
      if is_training:
        first_dropout = tf.nn.dropout(first_relu, 1 - (1 - dropout_prob))
      else:
        first_dropout = first_relu
      max_pool = tf.nn.max_pool2d(input=first_dropout, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
      second_filter_width = 2; second_filter_height = 3; second_filter_count = 4
      second_weights = tf.compat.v1.get_variable(name='second_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[second_filter_height, second_filter_width, first_filter_count, second_filter_count])
      second_bias = tf.compat.v1.get_variable(name='second_bias', initializer=tf.compat.v1.zeros_initializer, shape=[second_filter_count])
      second_conv = tf.nn.conv2d(input=max_pool, filters=second_weights, strides=[1, 1, 1, 1], padding='SAME') + second_bias
      second_relu = tf.nn.relu(second_conv)
      if is_training:
        second_dropout = tf.nn.dropout(second_relu, 1 - (1 - dropout_prob))
      else:
        second_dropout = second_relu
      second_conv_shape = second_dropout.get_shape()
      second_conv_output_width = second_conv_shape[2]
      second_conv_output_height = second_conv_shape[1]
      second_conv_element_count = int(second_conv_output_width * second_conv_output_height * second_filter_count)
      flattened_second_conv = tf.reshape(second_dropout, [-1, second_conv_element_count])
      label_count = model_settings['label_count']
      final_fc_weights = tf.compat.v1.get_variable(name='final_fc_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[second_conv_element_count, label_count])
      final_fc_bias = tf.compat.v1.get_variable(name='final_fc_bias', initializer=tf.compat.v1.zeros_initializer, shape=[label_count])
      final_fc = tf.matmul(flattened_second_conv, final_fc_weights) + final_fc_bias
      if is_training:
        return final_fc, dropout_prob
      else:
        return final_fc
    def create_low_latency_conv_model(fingerprint_input, model_settings, is_training):
      if is_training:
        dropout_prob = tf.compat.v1.placeholder(tf.float32, name='dropout_prob')
      input_frequency_size = model_settings['fingerprint_width']
      input_time_size = model_settings['spectrogram_length']
      fingerprint_4d = tf.reshape(fingerprint_input, [-1, input_time_size, input_frequency_size, 1])
      first_filter_height = input_time_size; first_filter_width = 3; first_filter_count = 6
      first_filter_stride_x = 1; first_filter_stride_y = 1
      first_weights = tf.compat.v1.get_variable(name='first_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[first_filter_height, first_filter_width, 1, first_filter_count])
      first_bias = tf.compat.v1.get_variable(name='first_bias', initializer=tf.compat.v1.zeros_initializer, shape=[first_filter_count])
      first_conv = tf.nn.conv2d(input=fingerprint_4d, filters=first_weights, strides=[1, first_filter_stride_y, first_filter_stride_x, 1], padding='VALID') + first_bias
      first_relu = tf.nn.relu(first_conv)
      if is_training:
        first_dropout = tf.nn.dropout(first_relu, 1 - (1 - dropout_prob))
      else:
        first_dropout = first_relu
      first_conv_output_width = math.floor((input_frequency_size - first_filter_width + first_filter_stride_x) / first_filter_stride_x)
      first_conv_output_height = math.floor((input_time_size - first_filter_height + first_filter_stride_y) / first_filter_stride_y)
      first_conv_element_count = int(first_conv_output_width * first_conv_output_height * first_filter_count)
      flattened_first_conv = tf.reshape(first_dropout, [-1, first_conv_element_count])
      first_fc_output_channels = 8
      first_fc_weights = tf.compat.v1.get_variable(name='first_fc_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[first_conv_element_count, first_fc_output_channels])
      first_fc_bias = tf.compat.v1.get_variable(name='first_fc_bias', initializer=tf.compat.v1.zeros_initializer, shape=[first_fc_output_channels])
      first_fc = tf.matmul(flattened_first_conv, first_fc_weights) + first_fc_bias
      if is_training:
        second_fc_input = tf.nn.dropout(first_fc, 1 - (1 - dropout_prob))
      else:
        second_fc_input = first_fc
      label_count = model_settings['label_count']
      final_fc_weights = tf.compat.v1.get_variable(name='final_fc_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[first_fc_output_channels, label_count])
      final_fc_bias = tf.compat.v1.get_variable(name='final_fc_bias', initializer=tf.compat.v1.zeros_initializer, shape=[label_count])
      final_fc = tf.matmul(second_fc_input, final_fc_weights) + final_fc_bias
      if is_training:
        return final_fc, dropout_prob
      else:
        return final_fc
    def create_low_latency_svdf_model(fingerprint_input, model_settings, is_training, runtime_settings):
      if is_training:
        dropout_prob = tf.compat.v1.placeholder(tf.float32, name='dropout_prob')
      input_frequency_size = model_settings['fingerprint_width']
      input_time_size = model_settings['spectrogram_length']
      input_shape = fingerprint_input.get_shape()
      if len(input_shape) != 2:
        raise ValueError('Inputs to `SVDF` should have rank == 2.')
      if input_shape[-1].value is None:
        raise ValueError('The last dimension of the inputs to `SVDF` should be defined. Found `None`.')
      if input_shape[-1].value % input_frequency_size != 0:
        raise ValueError('Inputs feature dimension %d must be a multiple of frame size %d', fingerprint_input.shape[-1].value, input_frequency_size)
      rank = 2
      num_units = 5
      num_filters = rank * num_units
      batch = 1
      memory = tf.compat.v1.get_variable(initializer=tf.compat.v1.zeros_initializer, shape=[num_filters, batch, input_time_size], trainable=False, name='runtime-memory')
      first_time_flag = tf.compat.v1.get_variable(name="first_time_flag", dtype=tf.int32, initializer=1)
      if is_training:
        num_new_frames = input_time_size
      else:
        window_stride_ms = int(model_settings['window_stride_samples'] * 1000 / model_settings['sample_rate'])
        num_new_frames = tf.cond(pred=tf.equal(first_time_flag, 1), true_fn=lambda: input_time_size, false_fn=lambda: int(runtime_settings['clip_stride_ms'] / window_stride_ms))
      first_time_flag = 0
      new_fingerprint_input = fingerprint_input[:, -num_new_frames*input_frequency_size:]
      new_fingerprint_input = tf.expand_dims(new_fingerprint_input, 2)
      weights_frequency = tf.compat.v1.get_variable(name='weights_frequency', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[input_frequency_size, num_filters])
      weights_frequency = tf.expand_dims(weights_frequency, 1)
      activations_time = tf.nn.conv1d(input=new_fingerprint_input, filters=weights_frequency, stride=input_frequency_size, padding='VALID')
      activations_time = tf.transpose(a=activations_time, perm=[2, 0, 1])
      if not is_training:
        new_memory = memory[:, :, num_new_frames:]
        new_memory = tf.concat([new_memory, activations_time], 2)
        tf.compat.v1.assign(memory, new_memory)
        activations_time = new_memory
      weights_time = tf.compat.v1.get_variable(name='weights_time', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[num_filters, input_time_size])
      weights_time = tf.expand_dims(weights_time, 2)
      outputs = tf.matmul(activations_time, weights_time)
      outputs = tf.reshape(outputs, [num_units, rank, -1])
      units_output = tf.reduce_sum(input_tensor=outputs, axis=1)
      units_output = tf.transpose(a=units_output)
      bias = tf.compat.v1.get_variable(name='bias', initializer=tf.compat.v1.zeros_initializer, shape=[num_units])
      first_bias = tf.nn.bias_add(units_output, bias)
      first_relu = tf.nn.relu(first_bias)
      if is_training:
        first_dropout = tf.nn.dropout(first_relu, 1 - (1 - dropout_prob))
      else:
        first_dropout = first_relu
      first_fc_output_channels = 6
      first_fc_weights = tf.compat.v1.get_variable(name='first_fc_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[num_units, first_fc_output_channels])
      first_fc_bias = tf.compat.v1.get_variable(name='first_fc_bias', initializer=tf.compat.v1.zeros_initializer, shape=[first_fc_output_channels])
      first_fc = tf.matmul(first_dropout, first_fc_weights) + first_fc_bias
      if is_training:
        second_fc_input = tf.nn.dropout(first_fc, 1 - (1 - dropout_prob))
      else:
        second_fc_input = first_fc
      label_count = model_settings['label_count']
      final_fc_weights = tf.compat.v1.get_variable(name='final_fc_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[first_fc_output_channels, label_count])
      final_fc_bias = tf.compat.v1.get_variable(name='final_fc_bias', initializer=tf.compat.v1.zeros_initializer, shape=[label_count])
      final_fc = tf.matmul(second_fc_input, final_fc_weights) + final_fc_bias
      if is_training:
        return final_fc, dropout_prob
      else:
        return final_fc
    def create_tiny_conv_model(fingerprint_input, model_settings, is_training):
      if is_training:
        dropout_prob = tf.compat.v1.placeholder(tf.float32, name='dropout_prob')
      input_frequency_size = model_settings['fingerprint_width']
      input_time_size = model_settings['spectrogram_length']
      fingerprint_4d = tf.reshape(fingerprint_input, [-1, input_time_size, input_frequency_size, 1])
      first_filter_width = 3; first_filter_height = 4; first_filter_count = 4
      first_weights = tf.compat.v1.get_variable(name='first_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[first_filter_height, first_filter_width, 1, first_filter_count])
      first_bias = tf.compat.v1.get_variable(name='first_bias', initializer=tf.compat.v1.zeros_initializer, shape=[first_filter_count])
      first_conv_stride_x = 2; first_conv_stride_y = 2
      first_conv = tf.nn.conv2d(input=fingerprint_4d, filters=first_weights, strides=[1, first_conv_stride_y, first_conv_stride_x, 1], padding='SAME') + first_bias
      first_relu = tf.nn.relu(first_conv)
      if is_training:
        first_dropout = tf.nn.dropout(first_relu, 1 - (1 - dropout_prob))
      else:
        first_dropout = first_relu
      first_dropout_shape = first_dropout.get_shape()
      first_dropout_output_width = first_dropout_shape[2]
      first_dropout_output_height = first_dropout_shape[1]
      first_dropout_element_count = int(first_dropout_output_width * first_dropout_output_height * first_filter_count)
      flattened_first_dropout = tf.reshape(first_dropout, [-1, first_dropout_element_count])
      label_count = model_settings['label_count']
      final_fc_weights = tf.compat.v1.get_variable(name='final_fc_weights', initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.01), shape=[first_dropout_element_count, label_count])
      final_fc_bias = tf.compat.v1.get_variable(name='final_fc_bias', initializer=tf.compat.v1.zeros_initializer, shape=[label_count])
      final_fc = tf.matmul(flattened_first_dropout, final_fc_weights) + final_fc_bias
      if is_training:
        return final_fc, dropout_prob
      else:
        return final_fc
    def prepare_processing_graph(model_settings):
      desired_samples = model_settings['desired_samples']
      wav = tf.compat.v1.placeholder(tf.float32, [desired_samples, 1], name='wav')
      foreground_volume_placeholder_ = tf.compat.v1.placeholder(tf.float32, [], name='foreground_volume')
      scaled_foreground = tf.multiply(wav, foreground_volume_placeholder_)
      time_shift_padding_placeholder_ = tf.compat.v1.placeholder(tf.int32, [2, 2], name='time_shift_padding')
      time_shift_offset_placeholder_ = tf.compat.v1.placeholder(tf.int32, [2], name='time_shift_offset')
      padded_foreground = tf.pad(tensor=scaled_foreground, paddings=time_shift_padding_placeholder_, mode='CONSTANT')
      sliced_foreground = tf.slice(padded_foreground, time_shift_offset_placeholder_, [desired_samples, -1])
      background_data_placeholder_ = tf.compat.v1.placeholder(tf.float32, [desired_samples, 1], name='background_data')
      background_volume_placeholder_ = tf.compat.v1.placeholder(tf.float32, [], name='background_volume')
      background_mul = tf.multiply(background_data_placeholder_, background_volume_placeholder_)
      background_add = tf.add(background_mul, sliced_foreground)
      background_clamp = tf.clip_by_value(background_add, -1.0, 1.0)
      spectrogram = contrib_audio.audio_spectrogram(background_clamp, window_size=model_settings['window_size_samples'], stride=model_settings['window_stride_samples'], magnitude_squared=True)
      if model_settings['preprocess'] == 'average':
        output_ = tf.nn.pool(input=tf.expand_dims(spectrogram, -1), window_shape=[1, model_settings['average_window_width']], strides=[1, model_settings['average_window_width']], pooling_type='AVG', padding='SAME')
      else:
        output_ = contrib_audio.mfcc(spectrogram, 8000, dct_coefficient_count=model_settings['fingerprint_width'])
      return (wav, foreground_volume_placeholder_, time_shift_padding_placeholder_, time_shift_offset_placeholder_, background_data_placeholder_, background_volume_placeholder_), output_
    rng = np.random.RandomState(0)
    for arch, pre in [('single_fc', 'mfcc'), ('conv', 'average'), ('low_latency_conv', 'mfcc'), ('low_latency_svdf', 'mfcc'), ('tiny_conv', 'average')]:
      with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(59185)
        ms = prepare_model_settings(3, 8000, 250, 30.0, 20.0, 6, pre)
        print(arch, sorted(ms.items()))
        phs, output_ = prepare_processing_graph(ms)
        print(output_)
        fingerprint_input = tf.compat.v1.placeholder(tf.float32, [None, ms['fingerprint_size']], name='fingerprint_input')
        logits, dropout_prob = create_model(fingerprint_input, ms, arch, is_training=True)
        ground_truth_input = tf.compat.v1.placeholder(tf.int64, [None], name='groundtruth_input')
        with tf.compat.v1.name_scope('cross_entropy'):
          cross_entropy_mean = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=ground_truth_input, logits=logits)
        learning_rate_input = tf.compat.v1.placeholder(tf.float32, [], name='learning_rate_input')
        train_step = tf.compat.v1.train.GradientDescentOptimizer(learning_rate_input).minimize(cross_entropy_mean)
        predicted_indices = tf.argmax(input=logits, axis=1)
        correct_prediction = tf.equal(predicted_indices, ground_truth_input)
        confusion_matrix = tf.math.confusion_matrix(labels=ground_truth_input, predictions=predicted_indices, num_classes=ms['label_count'])
        evaluation_step = tf.reduce_mean(input_tensor=tf.cast(correct_prediction, tf.float32))
        tf.compat.v1.summary.scalar('cross_entropy', cross_entropy_mean)
        tf.compat.v1.summary.scalar('accuracy', evaluation_step)
        global_step = tf.compat.v1.train.get_or_create_global_step()
        increment_global_step = tf.compat.v1.assign(global_step, global_step + 1)
        merged_summaries = tf.compat.v1.summary.merge_all(scope='eval')
        print(logits, [v.name for v in tf.compat.v1.global_variables()], merged_summaries)
        with tf.compat.v1.Session() as sess:
          tf.compat.v1.global_variables_initializer().run()
          for step in range(2):
            fps = []
            for b in range(4):
              shift = rng.randint(-40, 40)
              pad = [[shift, 0], [0, 0]] if shift > 0 else [[0, -shift], [0, 0]]
              off = [0, 0] if shift > 0 else [-shift, 0]
              wavd = np.sin(np.arange(ms['desired_samples']) * (0.05 + 0.1 * b))[:, None].astype(np.float32)
              feed = dict(zip(phs, [wavd, 1.0, pad, off, rng.randn(ms['desired_samples'], 1).astype(np.float32) * 0.1, 0.3]))
              fps.append(sess.run(output_, feed).flatten())
            x = np.stack(fps).astype(np.float32)
            y = np.array([0, 1, 2, step % 3])
            acc, xent, _, _, cm = sess.run([evaluation_step, cross_entropy_mean, train_step, increment_global_step, confusion_matrix],
                feed_dict={fingerprint_input: x, ground_truth_input: y, learning_rate_input: 0.05, dropout_prob: 0.0})
            print('Step #%d: rate %f, accuracy %.1f%%, cross entropy %.6f' % (step, 0.05, acc * 100, xent), cm.tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["speech_commands"]


def test_tensorflow_nmt(capsys, tmp_path):
    # tensorflow/nmt nmt/utils/iterator_utils.py (get_iterator, get_infer_iterator) + nmt/model.py + nmt/attention_model.py + nmt/model_helper.py (create_rnn_cell, gradient_clip): bi-LSTM encoder, scaled Luong attention, TrainingHelper / BeamSearchDecoder, warmup + decay schedule; sizes shrunk; dropout 0.0: TF 1.15 draws an encoder's dropout masks inside the while loop in no fixed order
    import os, collections
    lookup_ops = tf.contrib.lookup
    d = str(tmp_path)
    def wr(name, lines):
        p = os.path.join(d, name)
        with open(p, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        return p
    src_vocab = wr('vocab.src', ['<unk>', '<s>', '</s>', 'a', 'b', 'c', 'd', 'e'])
    tgt_vocab = wr('vocab.tgt', ['<unk>', '<s>', '</s>', 'x', 'y', 'z', 'w'])
    rng = np.random.RandomState(4)
    src_lines, tgt_lines = [], []
    for i in range(12):
        n = rng.randint(1, 7)
        s = [str('abcdef'[j]) for j in rng.randint(0, 6, size=n)]
        src_lines.append(' '.join(s))
        tgt_lines.append(' '.join({'a': 'x', 'b': 'y', 'c': 'z', 'd': 'w', 'e': 'x', 'f': 'q'}[c] for c in reversed(s)))
    src_file = wr('train.src', src_lines); tgt_file = wr('train.tgt', tgt_lines)
    class BatchedInput(collections.namedtuple("BatchedInput", ("initializer", "source", "target_input", "target_output", "source_sequence_length", "target_sequence_length"))):
      pass
    def get_iterator(src_dataset, tgt_dataset, src_vocab_table, tgt_vocab_table, batch_size, sos, eos, random_seed, num_buckets, src_max_len=None, tgt_max_len=None, num_parallel_calls=4, output_buffer_size=None, skip_count=None, num_shards=1, shard_index=0, reshuffle_each_iteration=True):
      if not output_buffer_size:
        output_buffer_size = batch_size * 1000
      src_eos_id = tf.cast(src_vocab_table.lookup(tf.constant(eos)), tf.int32)
      tgt_sos_id = tf.cast(tgt_vocab_table.lookup(tf.constant(sos)), tf.int32)
      tgt_eos_id = tf.cast(tgt_vocab_table.lookup(tf.constant(eos)), tf.int32)
      src_tgt_dataset = tf.data.Dataset.zip((src_dataset, tgt_dataset))
      src_tgt_dataset = src_tgt_dataset.shard(num_shards, shard_index)
      if skip_count is not None:
        src_tgt_dataset = src_tgt_dataset.skip(skip_count)
      src_tgt_dataset = src_tgt_dataset.shuffle(output_buffer_size, random_seed, reshuffle_each_iteration)
      src_tgt_dataset = src_tgt_dataset.map(lambda src, tgt: (tf.string_split([src]).values, tf.string_split([tgt]).values), num_parallel_calls=num_parallel_calls).prefetch(output_buffer_size)
      src_tgt_dataset = src_tgt_dataset.filter(lambda src, tgt: tf.logical_and(tf.size(src) > 0, tf.size(tgt) > 0))
      if src_max_len:
        src_tgt_dataset = src_tgt_dataset.map(lambda src, tgt: (src[:src_max_len], tgt), num_parallel_calls=num_parallel_calls).prefetch(output_buffer_size)
      if tgt_max_len:
        src_tgt_dataset = src_tgt_dataset.map(lambda src, tgt: (src, tgt[:tgt_max_len]), num_parallel_calls=num_parallel_calls).prefetch(output_buffer_size)
      src_tgt_dataset = src_tgt_dataset.map(lambda src, tgt: (tf.cast(src_vocab_table.lookup(src), tf.int32), tf.cast(tgt_vocab_table.lookup(tgt), tf.int32)), num_parallel_calls=num_parallel_calls).prefetch(output_buffer_size)
      src_tgt_dataset = src_tgt_dataset.map(lambda src, tgt: (src, tf.concat(([tgt_sos_id], tgt), 0), tf.concat((tgt, [tgt_eos_id]), 0)), num_parallel_calls=num_parallel_calls).prefetch(output_buffer_size)
      src_tgt_dataset = src_tgt_dataset.map(lambda src, tgt_in, tgt_out: (src, tgt_in, tgt_out, tf.size(src), tf.size(tgt_in)), num_parallel_calls=num_parallel_calls).prefetch(output_buffer_size)
      def batching_func(x):
        return x.padded_batch(batch_size, padded_shapes=(tf.TensorShape([None]), tf.TensorShape([None]), tf.TensorShape([None]), tf.TensorShape([]), tf.TensorShape([])),
            padding_values=(src_eos_id, tgt_eos_id, tgt_eos_id, 0, 0))
      if num_buckets > 1:
        def key_func(unused_1, unused_2, unused_3, src_len, tgt_len):
          if src_max_len:
            bucket_width = (src_max_len + num_buckets - 1) // num_buckets
          else:
            bucket_width = 10
          bucket_id = tf.maximum(src_len // bucket_width, tgt_len // bucket_width)
          return tf.to_int64(tf.minimum(num_buckets, bucket_id))
        def reduce_func(unused_key, windowed_data):
          return batching_func(windowed_data)
        batched_dataset = src_tgt_dataset.apply(tf.contrib.data.group_by_window(key_func=key_func, reduce_func=reduce_func, window_size=batch_size))
      else:
        batched_dataset = batching_func(src_tgt_dataset)
      batched_iter = batched_dataset.make_initializable_iterator()
      (src_ids, tgt_input_ids, tgt_output_ids, src_seq_len, tgt_seq_len) = (batched_iter.get_next())
      return BatchedInput(initializer=batched_iter.initializer, source=src_ids, target_input=tgt_input_ids, target_output=tgt_output_ids, source_sequence_length=src_seq_len, target_sequence_length=tgt_seq_len)
    def _single_cell(unit_type, num_units, forget_bias, dropout, mode, residual_connection=False, device_str=None, residual_fn=None):
      dropout = dropout if mode == tf.contrib.learn.ModeKeys.TRAIN else 0.0
      if unit_type == "lstm":
        single_cell = tf.contrib.rnn.BasicLSTMCell(num_units, forget_bias=forget_bias)
      elif unit_type == "gru":
        single_cell = tf.contrib.rnn.GRUCell(num_units)
      elif unit_type == "layer_norm_lstm":
        single_cell = tf.contrib.rnn.LayerNormBasicLSTMCell(num_units, forget_bias=forget_bias, layer_norm=True)
      if dropout > 0.0:
        single_cell = tf.contrib.rnn.DropoutWrapper(cell=single_cell, input_keep_prob=(1.0 - dropout))
      if residual_connection:
        single_cell = tf.contrib.rnn.ResidualWrapper(single_cell, residual_fn=residual_fn)
      if device_str:
        single_cell = tf.contrib.rnn.DeviceWrapper(single_cell, device_str)
      return single_cell
    def _cell_list(unit_type, num_units, num_layers, num_residual_layers, forget_bias, dropout, mode, num_gpus, base_gpu=0, single_cell_fn=None, residual_fn=None):
      if not single_cell_fn:
        single_cell_fn = _single_cell
      cell_list = []
      for i in range(num_layers):
        single_cell = single_cell_fn(unit_type=unit_type, num_units=num_units, forget_bias=forget_bias, dropout=dropout, mode=mode,
            residual_connection=(i >= num_layers - num_residual_layers), device_str="/cpu:0", residual_fn=residual_fn)
        cell_list.append(single_cell)
      return cell_list
    def create_rnn_cell(unit_type, num_units, num_layers, num_residual_layers, forget_bias, dropout, mode, num_gpus, base_gpu=0, single_cell_fn=None):
      cell_list = _cell_list(unit_type=unit_type, num_units=num_units, num_layers=num_layers, num_residual_layers=num_residual_layers, forget_bias=forget_bias, dropout=dropout, mode=mode, num_gpus=num_gpus, base_gpu=base_gpu, single_cell_fn=single_cell_fn)
      if len(cell_list) == 1:
        return cell_list[0]
      else:
        return tf.contrib.rnn.MultiRNNCell(cell_list)
    def gradient_clip(gradients, max_gradient_norm):
      clipped_gradients, gradient_norm = tf.clip_by_global_norm(gradients, max_gradient_norm)
      gradient_norm_summary = [tf.summary.scalar("grad_norm", gradient_norm)]
      gradient_norm_summary.append(tf.summary.scalar("clipped_gradient", tf.global_norm(clipped_gradients)))
      return clipped_gradients, gradient_norm_summary, gradient_norm
    class hparams:
      num_units = 6; num_layers = 2; unit_type = 'lstm'; forget_bias = 1.0; dropout = 0.0; beam_width = 3; length_penalty_weight = 0.0
      learning_rate = 0.5; warmup_steps = 3; decay_steps = 2; decay_factor = 0.5; start_decay_step = 5; max_gradient_norm = 5.0
      src_vocab_size = 8; tgt_vocab_size = 7; tgt_max_len_infer = 8; sos = '<s>'; eos = '</s>'; batch_size = 4; num_buckets = 2
    class AttentionModel(object):
      def __init__(self, hparams, mode, iterator, source_vocab_table, target_vocab_table, reverse_target_vocab_table=None):
        self.iterator = iterator; self.mode = mode; self.src_vocab_table = source_vocab_table; self.tgt_vocab_table = target_vocab_table
        self.time_major = True
        self.num_encoder_layers = hparams.num_layers; self.num_decoder_layers = hparams.num_layers
        self.batch_size = tf.size(self.iterator.source_sequence_length)
        initializer = tf.random_uniform_initializer(-0.1, 0.1, seed=7)
        tf.get_variable_scope().set_initializer(initializer)
        with tf.variable_scope("embeddings", dtype=tf.float32):
          with tf.variable_scope("encoder"):
            self.embedding_encoder = tf.get_variable("embedding_encoder", [hparams.src_vocab_size, hparams.num_units], tf.float32)
          with tf.variable_scope("decoder"):
            self.embedding_decoder = tf.get_variable("embedding_decoder", [hparams.tgt_vocab_size, hparams.num_units], tf.float32)
        with tf.variable_scope("build_network"):
          with tf.variable_scope("decoder/output_projection"):
            self.output_layer = tf.layers.Dense(hparams.tgt_vocab_size, use_bias=False, name="output_projection")
        res = self.build_graph(hparams)
        if self.mode == tf.contrib.learn.ModeKeys.TRAIN:
          self.train_loss = res[1]
          self.word_count = tf.reduce_sum(self.iterator.source_sequence_length) + tf.reduce_sum(self.iterator.target_sequence_length)
        elif self.mode == tf.contrib.learn.ModeKeys.INFER:
          self.infer_logits, _, self.final_context_state, self.sample_id = res
          self.sample_words = reverse_target_vocab_table.lookup(tf.to_int64(self.sample_id))
        self.global_step = tf.Variable(0, trainable=False)
        params = tf.trainable_variables()
        if self.mode == tf.contrib.learn.ModeKeys.TRAIN:
          self.learning_rate = tf.constant(hparams.learning_rate)
          self.learning_rate = self._get_learning_rate_warmup(hparams)
          self.learning_rate = self._get_learning_rate_decay(hparams)
          opt = tf.train.GradientDescentOptimizer(self.learning_rate)
          gradients = tf.gradients(self.train_loss, params, colocate_gradients_with_ops=True)
          clipped_grads, grad_norm_summary, grad_norm = gradient_clip(gradients, max_gradient_norm=hparams.max_gradient_norm)
          self.grad_norm = grad_norm
          self.update = opt.apply_gradients(zip(clipped_grads, params), global_step=self.global_step)
          self.train_summary = tf.summary.merge([tf.summary.scalar("lr", self.learning_rate), tf.summary.scalar("train_loss", self.train_loss)] + grad_norm_summary)
        self.saver = tf.train.Saver(tf.global_variables(), max_to_keep=5)
        print("# Trainable variables")
        for param in params:
          print("  %s, %s, %s" % (param.name, str(param.get_shape()), param.op.device))
      def _get_learning_rate_warmup(self, hparams):
        warmup_steps = hparams.warmup_steps
        warmup_factor = tf.exp(tf.log(0.01) / warmup_steps)
        inv_decay = warmup_factor**(tf.to_float(warmup_steps - self.global_step))
        return tf.cond(self.global_step < hparams.warmup_steps, lambda: inv_decay * self.learning_rate, lambda: self.learning_rate, name="learning_rate_warump_cond")
      def _get_learning_rate_decay(self, hparams):
        return tf.cond(self.global_step < hparams.start_decay_step, lambda: self.learning_rate,
            lambda: tf.train.exponential_decay(self.learning_rate, (self.global_step - hparams.start_decay_step), hparams.decay_steps, hparams.decay_factor, staircase=True), name="learning_rate_decay_cond")
      def build_graph(self, hparams, scope=None):
        with tf.variable_scope(scope or "dynamic_seq2seq", dtype=tf.float32):
          encoder_outputs, encoder_state = self._build_encoder(hparams)
          logits, sample_id, final_context_state = self._build_decoder(encoder_outputs, encoder_state, hparams)
          if self.mode != tf.contrib.learn.ModeKeys.INFER:
            loss = self._compute_loss(logits)
          else:
            loss = None
          return logits, loss, final_context_state, sample_id
      def _build_encoder(self, hparams):
        num_layers = self.num_encoder_layers
        iterator = self.iterator
        source = iterator.source
        if self.time_major:
          source = tf.transpose(source)
        with tf.variable_scope("encoder") as scope:
          dtype = scope.dtype
          encoder_emb_inp = tf.nn.embedding_lookup(self.embedding_encoder, source)
          num_bi_layers = int(num_layers / 2)
          fw_cell = create_rnn_cell(hparams.unit_type, hparams.num_units, num_bi_layers, 0, hparams.forget_bias, hparams.dropout, self.mode, 0)
          bw_cell = create_rnn_cell(hparams.unit_type, hparams.num_units, num_bi_layers, 0, hparams.forget_bias, hparams.dropout, self.mode, 0)
          bi_outputs, bi_state = tf.nn.bidirectional_dynamic_rnn(fw_cell, bw_cell, encoder_emb_inp, dtype=dtype, sequence_length=iterator.source_sequence_length, time_major=self.time_major, swap_memory=True)
          encoder_outputs, bi_encoder_state = tf.concat(bi_outputs, -1), bi_state
          if num_bi_layers == 1:
            encoder_state = bi_encoder_state
          else:
            encoder_state = []
            for layer_id in range(num_bi_layers):
              encoder_state.append(bi_encoder_state[0][layer_id])
              encoder_state.append(bi_encoder_state[1][layer_id])
            encoder_state = tuple(encoder_state)
        return encoder_outputs, encoder_state
      def _build_decoder_cell(self, hparams, encoder_outputs, encoder_state, source_sequence_length):
        num_units = hparams.num_units
        beam_width = hparams.beam_width
        dtype = tf.float32
        if self.time_major:
          memory = tf.transpose(encoder_outputs, [1, 0, 2])
        else:
          memory = encoder_outputs
        if self.mode == tf.contrib.learn.ModeKeys.INFER and beam_width > 0:
          memory = tf.contrib.seq2seq.tile_batch(memory, multiplier=beam_width)
          source_sequence_length = tf.contrib.seq2seq.tile_batch(source_sequence_length, multiplier=beam_width)
          encoder_state = tf.contrib.seq2seq.tile_batch(encoder_state, multiplier=beam_width)
          batch_size = self.batch_size * beam_width
        else:
          batch_size = self.batch_size
        attention_mechanism = tf.contrib.seq2seq.LuongAttention(num_units, memory, memory_sequence_length=source_sequence_length, scale=True)
        cell = create_rnn_cell(hparams.unit_type, num_units, self.num_decoder_layers, 0, hparams.forget_bias, hparams.dropout, self.mode, 0)
        alignment_history = (self.mode == tf.contrib.learn.ModeKeys.INFER and beam_width == 0)
        cell = tf.contrib.seq2seq.AttentionWrapper(cell, attention_mechanism, attention_layer_size=num_units, alignment_history=alignment_history, output_attention=True, name="attention")
        cell = tf.contrib.rnn.DeviceWrapper(cell, "/cpu:0")
        decoder_initial_state = cell.zero_state(batch_size, dtype).clone(cell_state=encoder_state)
        return cell, decoder_initial_state
      def _build_decoder(self, encoder_outputs, encoder_state, hparams):
        tgt_sos_id = tf.cast(self.tgt_vocab_table.lookup(tf.constant(hparams.sos)), tf.int32)
        tgt_eos_id = tf.cast(self.tgt_vocab_table.lookup(tf.constant(hparams.eos)), tf.int32)
        iterator = self.iterator
        max_encoder_length = tf.reduce_max(iterator.source_sequence_length)
        maximum_iterations = tf.to_int32(tf.round(tf.to_float(max_encoder_length) * 2.0))
        with tf.variable_scope("decoder") as decoder_scope:
          cell, decoder_initial_state = self._build_decoder_cell(hparams, encoder_outputs, encoder_state, iterator.source_sequence_length)
          if self.mode != tf.contrib.learn.ModeKeys.INFER:
            target_input = iterator.target_input
            if self.time_major:
              target_input = tf.transpose(target_input)
            decoder_emb_inp = tf.nn.embedding_lookup(self.embedding_decoder, target_input)
            helper = tf.contrib.seq2seq.TrainingHelper(decoder_emb_inp, iterator.target_sequence_length, time_major=self.time_major)
            my_decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, decoder_initial_state)
            outputs, final_context_state, _ = tf.contrib.seq2seq.dynamic_decode(my_decoder, output_time_major=self.time_major, swap_memory=True, scope=decoder_scope)
            sample_id = outputs.sample_id
            logits = self.output_layer(outputs.rnn_output)
          else:
            beam_width = hparams.beam_width
            start_tokens = tf.fill([self.batch_size], tgt_sos_id)
            end_token = tgt_eos_id
            my_decoder = tf.contrib.seq2seq.BeamSearchDecoder(cell=cell, embedding=self.embedding_decoder, start_tokens=start_tokens, end_token=end_token, initial_state=decoder_initial_state, beam_width=beam_width, output_layer=self.output_layer, length_penalty_weight=hparams.length_penalty_weight)
            outputs, final_context_state, _ = tf.contrib.seq2seq.dynamic_decode(my_decoder, maximum_iterations=maximum_iterations, output_time_major=self.time_major, swap_memory=True, scope=decoder_scope)
            logits = tf.no_op()
            sample_id = outputs.predicted_ids
        return logits, sample_id, final_context_state
      def get_max_time(self, tensor):
        time_axis = 0 if self.time_major else 1
        return tensor.shape[time_axis].value or tf.shape(tensor)[time_axis]
      def _compute_loss(self, logits):
        target_output = self.iterator.target_output
        if self.time_major:
          target_output = tf.transpose(target_output)
        max_time = self.get_max_time(target_output)
        crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target_output, logits=logits)
        target_weights = tf.sequence_mask(self.iterator.target_sequence_length, max_time, dtype=logits.dtype)
        if self.time_major:
          target_weights = tf.transpose(target_weights)
        loss = tf.reduce_sum(crossent * target_weights) / tf.to_float(self.batch_size)
        return loss
    train_graph = tf.Graph()
    with train_graph.as_default(), tf.container("train"):
      tf.set_random_seed(5)
      src_vocab_table = lookup_ops.index_table_from_file(src_vocab, default_value=0)
      tgt_vocab_table = lookup_ops.index_table_from_file(tgt_vocab, default_value=0)
      it = get_iterator(tf.data.TextLineDataset(src_file), tf.data.TextLineDataset(tgt_file), src_vocab_table, tgt_vocab_table, hparams.batch_size, hparams.sos, hparams.eos, random_seed=3, num_buckets=hparams.num_buckets, src_max_len=5, tgt_max_len=5)
      model = AttentionModel(hparams, tf.contrib.learn.ModeKeys.TRAIN, it, src_vocab_table, tgt_vocab_table)
      print(model.train_loss, it.source, it.target_input)
      ckpt = os.path.join(d, 'translate.ckpt')
      with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        for epoch in range(3):
          sess.run(it.initializer)
          while True:
            try:
              _, loss, gs, lr, gn, wc, src = sess.run([model.update, model.train_loss, model.global_step, model.learning_rate, model.grad_norm, model.word_count, it.source])
              print('step %d lr %g loss %.5f gN %.4f wc %d src %s' % (gs, lr, loss, gn, wc, src.shape))
            except tf.errors.OutOfRangeError:
              break
        model.saver.save(sess, ckpt, global_step=gs)
    infer_graph = tf.Graph()
    with infer_graph.as_default(), tf.container("infer"):
      src_vocab_table = lookup_ops.index_table_from_file(src_vocab, default_value=0)
      tgt_vocab_table = lookup_ops.index_table_from_file(tgt_vocab, default_value=0)
      reverse_tgt_vocab_table = lookup_ops.index_to_string_table_from_file(tgt_vocab, default_value='<unk>')
      src_placeholder = tf.placeholder(shape=[None], dtype=tf.string)
      batch_size_placeholder = tf.placeholder(shape=[], dtype=tf.int64)
      src_dataset = tf.data.Dataset.from_tensor_slices(src_placeholder)
      src_eos_id = tf.cast(src_vocab_table.lookup(tf.constant('</s>')), tf.int32)
      ds = src_dataset.map(lambda src: tf.string_split([src]).values)
      ds = ds.map(lambda src: tf.cast(src_vocab_table.lookup(src), tf.int32))
      ds = ds.map(lambda src: (src, tf.size(src)))
      ds = ds.padded_batch(batch_size_placeholder, padded_shapes=(tf.TensorShape([None]), tf.TensorShape([])), padding_values=(src_eos_id, 0))
      biter = ds.make_initializable_iterator()
      src_ids, src_seq_len = biter.get_next()
      iit = BatchedInput(initializer=biter.initializer, source=src_ids, target_input=None, target_output=None, source_sequence_length=src_seq_len, target_sequence_length=None)
      imodel = AttentionModel(hparams, tf.contrib.learn.ModeKeys.INFER, iit, src_vocab_table, tgt_vocab_table, reverse_tgt_vocab_table)
      print(imodel.sample_id, imodel.sample_words)
      with tf.Session() as sess:
        imodel.saver.restore(sess, tf.train.latest_checkpoint(d))
        sess.run(tf.tables_initializer())
        sess.run(iit.initializer, {src_placeholder: ['a b c', 'd e', 'b'], batch_size_placeholder: 2})
        while True:
          try:
            ids, words = sess.run([imodel.sample_id, imodel.sample_words])
            print(ids.shape, ids[:, 0, 0].tolist(), [w.decode() for w in words[:, 0, 0]])
          except tf.errors.OutOfRangeError:
            break
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["tensorflow_nmt"]


def test_deepspeech_towers(capsys):
    # mozilla/DeepSpeech DeepSpeech.py (early form): BiRNN of clipped-ReLU layers and a BasicLSTMCell bidirectional_dynamic_rnn (core_rnn_cell), ctc_loss, ctc_beam_search_decoder(merge_repeated=False), edit_distance, towers with average_gradients, sizes shrunk
    from tideflow.python.ops import ctc_ops
    core_rnn_cell = tf.contrib.rnn
    n_input = 3; n_context = 1; n_hidden_1 = n_hidden_2 = n_hidden_5 = 5; n_cell_dim = 4; n_hidden_3 = 2 * n_cell_dim; n_character = 5; n_hidden_6 = n_character
    relu_clip = 20; random_seed = 4567; default_stddev = 0.046875
    b1_stddev = h1_stddev = b2_stddev = h2_stddev = b3_stddev = h3_stddev = b5_stddev = h5_stddev = b6_stddev = h6_stddev = default_stddev
    dropout_rates = [0.05, 0.05, 0.05, 0.0, 0.0, 0.05]; no_dropout = [0.0] * 6
    def variable_on_cpu(name, shape, initializer):
        with tf.device('/cpu:0'):
            var = tf.get_variable(name=name, shape=shape, initializer=initializer)
        return var
    def BiRNN(batch_x, seq_length, dropout):
        batch_x_shape = tf.shape(batch_x)
        batch_x = tf.transpose(batch_x, [1, 0, 2])
        batch_x = tf.reshape(batch_x, [-1, n_input + 2*n_input*n_context])
        b1 = variable_on_cpu('b1', [n_hidden_1], tf.random_normal_initializer(stddev=b1_stddev))
        h1 = variable_on_cpu('h1', [n_input + 2*n_input*n_context, n_hidden_1], tf.random_normal_initializer(stddev=h1_stddev))
        layer_1 = tf.minimum(tf.nn.relu(tf.add(tf.matmul(batch_x, h1), b1)), relu_clip)
        layer_1 = tf.nn.dropout(layer_1, (1.0 - dropout[0]))
        b2 = variable_on_cpu('b2', [n_hidden_2], tf.random_normal_initializer(stddev=b2_stddev))
        h2 = variable_on_cpu('h2', [n_hidden_1, n_hidden_2], tf.random_normal_initializer(stddev=h2_stddev))
        layer_2 = tf.minimum(tf.nn.relu(tf.add(tf.matmul(layer_1, h2), b2)), relu_clip)
        layer_2 = tf.nn.dropout(layer_2, (1.0 - dropout[1]))
        b3 = variable_on_cpu('b3', [n_hidden_3], tf.random_normal_initializer(stddev=b3_stddev))
        h3 = variable_on_cpu('h3', [n_hidden_2, n_hidden_3], tf.random_normal_initializer(stddev=h3_stddev))
        layer_3 = tf.minimum(tf.nn.relu(tf.add(tf.matmul(layer_2, h3), b3)), relu_clip)
        layer_3 = tf.nn.dropout(layer_3, (1.0 - dropout[2]))
        lstm_fw_cell = core_rnn_cell.BasicLSTMCell(n_cell_dim, forget_bias=1.0, state_is_tuple=True)
        lstm_fw_cell = core_rnn_cell.DropoutWrapper(lstm_fw_cell, input_keep_prob=1.0 - dropout[3], output_keep_prob=1.0 - dropout[3], seed=random_seed)
        lstm_bw_cell = core_rnn_cell.BasicLSTMCell(n_cell_dim, forget_bias=1.0, state_is_tuple=True)
        lstm_bw_cell = core_rnn_cell.DropoutWrapper(lstm_bw_cell, input_keep_prob=1.0 - dropout[4], output_keep_prob=1.0 - dropout[4], seed=random_seed)
        layer_3 = tf.reshape(layer_3, [-1, batch_x_shape[0], n_hidden_3])
        outputs, output_states = tf.nn.bidirectional_dynamic_rnn(cell_fw=lstm_fw_cell, cell_bw=lstm_bw_cell, inputs=layer_3, dtype=tf.float32, time_major=True, sequence_length=seq_length)
        outputs = tf.concat(outputs, 2)
        outputs = tf.reshape(outputs, [-1, 2*n_cell_dim])
        b5 = variable_on_cpu('b5', [n_hidden_5], tf.random_normal_initializer(stddev=b5_stddev))
        h5 = variable_on_cpu('h5', [(2 * n_cell_dim), n_hidden_5], tf.random_normal_initializer(stddev=h5_stddev))
        layer_5 = tf.minimum(tf.nn.relu(tf.add(tf.matmul(outputs, h5), b5)), relu_clip)
        layer_5 = tf.nn.dropout(layer_5, (1.0 - dropout[5]))
        b6 = variable_on_cpu('b6', [n_hidden_6], tf.random_normal_initializer(stddev=b6_stddev))
        h6 = variable_on_cpu('h6', [n_hidden_5, n_hidden_6], tf.random_normal_initializer(stddev=h6_stddev))
        layer_6 = tf.add(tf.matmul(layer_5, h6), b6)
        layer_6 = tf.reshape(layer_6, [-1, batch_x_shape[0], n_hidden_6])
        return layer_6
    def calculate_accuracy_and_loss(batch_x, batch_seq_len, batch_y, dropout):
        logits = BiRNN(batch_x, tf.to_int64(batch_seq_len), dropout)
        total_loss = ctc_ops.ctc_loss(labels=batch_y, inputs=logits, sequence_length=batch_seq_len)
        avg_loss = tf.reduce_mean(total_loss)
        decoded, _ = ctc_ops.ctc_beam_search_decoder(logits, batch_seq_len, merge_repeated=False)
        distance = tf.edit_distance(tf.cast(decoded[0], tf.int32), batch_y)
        accuracy = tf.reduce_mean(distance)
        return total_loss, avg_loss, distance, accuracy, decoded, batch_y
    def average_gradients(tower_gradients):
        average_grads = []
        for grad_and_vars in zip(*tower_gradients):
            grads = []
            for g, _ in grad_and_vars:
                expanded_g = tf.expand_dims(g, 0)
                grads.append(expanded_g)
            grad = tf.concat(grads, 0)
            grad = tf.reduce_mean(grad, 0)
            grad_and_var = (grad, grad_and_vars[0][1])
            average_grads.append(grad_and_var)
        return average_grads
    def apply_gradients(optimizer, average_grads):
        apply_gradient_op = optimizer.apply_gradients(average_grads)
        return apply_gradient_op
    tf.set_random_seed(random_seed)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01, beta1=0.9, beta2=0.999, epsilon=1e-8)
    towers = []
    tower_gradients = []
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(2):
            with tf.device('/cpu:0'):
                with tf.name_scope('tower_%d' % i) as scope:
                    bx = tf.placeholder(tf.float32, [None, None, n_input + 2 * n_input * n_context]); bl = tf.placeholder(tf.int32, [None]); by = tf.sparse_placeholder(tf.int32)
                    total_loss, avg_loss, distance, accuracy, decoded, labels = calculate_accuracy_and_loss(bx, bl, by, dropout_rates)
                    tf.get_variable_scope().reuse_variables()
                    towers.append((bx, bl, by, avg_loss, distance, accuracy, decoded))
                    gradients = optimizer.compute_gradients(avg_loss)
                    tower_gradients.append(gradients)
    avg_tower_gradients = average_gradients(tower_gradients)
    apply_op = apply_gradients(optimizer, avg_tower_gradients)
    print([v.name for v in tf.trainable_variables()], towers[1][3], towers[1][6][0])
    rng = np.random.RandomState(9)
    def feed():
        f = {}
        for bx, bl, by, *_ in towers:
            f[bx] = rng.randn(2, 6, 9).astype(np.float32); f[bl] = [6, 4]
            f[by] = (np.array([[0, 0], [0, 1], [1, 0]], np.int64), np.array([1, 3, 2], np.int32), np.array([2, 2], np.int64))
        return f
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as session:
        session.run(tf.global_variables_initializer())
        for step in range(5):
            res = session.run([apply_op, towers[0][3], towers[1][3], towers[0][5]], feed())
            print('step %d loss %.5f %.5f wer %.4f' % (step, res[1], res[2], res[3]))
        d = session.run(towers[0][6][0], feed())
        print(d.indices.tolist(), d.values.tolist(), d.dense_shape.tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["deepspeech_towers"]



# What TF 1.15 (tensorflow-cpu 1.15.0) printed running each program (measured).
_TF115_PRINTED = {

    "speech_commands": [
        "single_fc [('average_window_width', -1), ('desired_samples', 2000), ('fingerprint_size', 72), ('fingerprint_width', 6), ('label_count', 3), ('preprocess', 'mfcc'), ('sample_rate', 8000), ('spectrogram_length', 12), ('window_size_samples', 240), ('window_stride_samples', 160)]",
        "Tensor(\"Mfcc:0\", shape=(?, 12, 6), dtype=float32)",
        "Tensor(\"add_1:0\", shape=(?, 3), dtype=float32) ['weights:0', 'bias:0', 'global_step:0'] None",
        "Step #0: rate 0.050000, accuracy 50.0%, cross entropy 1.087737 [[0, 1, 1], [0, 1, 0], [0, 0, 1]]",
        "Step #1: rate 0.050000, accuracy 50.0%, cross entropy 1.565070 [[0, 1, 0], [0, 1, 1], [0, 0, 1]]",
        "conv [('average_window_width', 21), ('desired_samples', 2000), ('fingerprint_size', 84), ('fingerprint_width', 7), ('label_count', 3), ('preprocess', 'average'), ('sample_rate', 8000), ('spectrogram_length', 12), ('window_size_samples', 240), ('window_stride_samples', 160)]",
        "Tensor(\"avg_pool:0\", shape=(?, 12, 7, 1), dtype=float32)",
        "Tensor(\"add_3:0\", shape=(?, 3), dtype=float32) ['first_weights:0', 'first_bias:0', 'second_weights:0', 'second_bias:0', 'final_fc_weights:0', 'final_fc_bias:0', 'global_step:0'] None",
        "Step #0: rate 0.050000, accuracy 50.0%, cross entropy nan [[2, 0, 0], [1, 0, 0], [1, 0, 0]]",
        "Step #1: rate 0.050000, accuracy 25.0%, cross entropy nan [[1, 0, 0], [2, 0, 0], [1, 0, 0]]",
        "low_latency_conv [('average_window_width', -1), ('desired_samples', 2000), ('fingerprint_size', 72), ('fingerprint_width', 6), ('label_count', 3), ('preprocess', 'mfcc'), ('sample_rate', 8000), ('spectrogram_length', 12), ('window_size_samples', 240), ('window_stride_samples', 160)]",
        "Tensor(\"Mfcc:0\", shape=(?, 12, 6), dtype=float32)",
        "Tensor(\"add_3:0\", shape=(?, 3), dtype=float32) ['first_weights:0', 'first_bias:0', 'first_fc_weights:0', 'first_fc_bias:0', 'final_fc_weights:0', 'final_fc_bias:0', 'global_step:0'] None",
        "Step #0: rate 0.050000, accuracy 50.0%, cross entropy nan [[2, 0, 0], [1, 0, 0], [1, 0, 0]]",
        "Step #1: rate 0.050000, accuracy 25.0%, cross entropy nan [[1, 0, 0], [2, 0, 0], [1, 0, 0]]",
        "low_latency_svdf [('average_window_width', -1), ('desired_samples', 2000), ('fingerprint_size', 72), ('fingerprint_width', 6), ('label_count', 3), ('preprocess', 'mfcc'), ('sample_rate', 8000), ('spectrogram_length', 12), ('window_size_samples', 240), ('window_stride_samples', 160)]",
        "Tensor(\"Mfcc:0\", shape=(?, 12, 6), dtype=float32)",
        "Tensor(\"add_2:0\", shape=(?, 3), dtype=float32) ['runtime-memory:0', 'first_time_flag:0', 'weights_frequency:0', 'weights_time:0', 'bias:0', 'first_fc_weights:0', 'first_fc_bias:0', 'final_fc_weights:0', 'final_fc_bias:0', 'global_step:0'] None",
        "Step #0: rate 0.050000, accuracy 50.0%, cross entropy nan [[2, 0, 0], [1, 0, 0], [1, 0, 0]]",
        "Step #1: rate 0.050000, accuracy 25.0%, cross entropy nan [[1, 0, 0], [2, 0, 0], [1, 0, 0]]",
        "tiny_conv [('average_window_width', 21), ('desired_samples', 2000), ('fingerprint_size', 84), ('fingerprint_width', 7), ('label_count', 3), ('preprocess', 'average'), ('sample_rate', 8000), ('spectrogram_length', 12), ('window_size_samples', 240), ('window_stride_samples', 160)]",
        "Tensor(\"avg_pool:0\", shape=(?, 12, 7, 1), dtype=float32)",
        "Tensor(\"add_2:0\", shape=(?, 3), dtype=float32) ['first_weights:0', 'first_bias:0', 'final_fc_weights:0', 'final_fc_bias:0', 'global_step:0'] None",
        "Step #0: rate 0.050000, accuracy 50.0%, cross entropy nan [[2, 0, 0], [1, 0, 0], [1, 0, 0]]",
        "Step #1: rate 0.050000, accuracy 25.0%, cross entropy nan [[1, 0, 0], [2, 0, 0], [1, 0, 0]]",
    ],

    "tensorflow_nmt": [
        "# Trainable variables",
        "  embeddings/encoder/embedding_encoder:0, (8, 6), ",
        "  embeddings/decoder/embedding_decoder:0, (7, 6), ",
        "  dynamic_seq2seq/encoder/bidirectional_rnn/fw/basic_lstm_cell/kernel:0, (12, 24), /device:CPU:0",
        "  dynamic_seq2seq/encoder/bidirectional_rnn/fw/basic_lstm_cell/bias:0, (24,), /device:CPU:0",
        "  dynamic_seq2seq/encoder/bidirectional_rnn/bw/basic_lstm_cell/kernel:0, (12, 24), /device:CPU:0",
        "  dynamic_seq2seq/encoder/bidirectional_rnn/bw/basic_lstm_cell/bias:0, (24,), /device:CPU:0",
        "  dynamic_seq2seq/decoder/memory_layer/kernel:0, (12, 6), ",
        "  dynamic_seq2seq/decoder/attention/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0, (18, 24), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0, (24,), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/multi_rnn_cell/cell_1/basic_lstm_cell/kernel:0, (12, 24), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/multi_rnn_cell/cell_1/basic_lstm_cell/bias:0, (24,), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/luong_attention/attention_g:0, (), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/attention_layer/kernel:0, (18, 6), /device:CPU:0",
        "  dynamic_seq2seq/decoder/output_projection/kernel:0, (6, 7), ",
        "Tensor(\"dynamic_seq2seq/truediv:0\", shape=(), dtype=float32) Tensor(\"IteratorGetNext:0\", shape=(?, ?), dtype=int32) Tensor(\"IteratorGetNext:1\", shape=(?, ?), dtype=int32)",
        "step 1 lr 0.005 loss 7.29717 gN 0.0176 wc 26 src (4, 3)",
        "step 2 lr 0.0232079 loss 11.67546 gN 0.0146 wc 44 src (4, 5)",
        "step 3 lr 0.107722 loss 3.89181 gN 0.0114 wc 6 src (2, 1)",
        "step 4 lr 0.5 loss 6.81071 gN 0.0155 wc 12 src (2, 3)",
        "step 5 lr 0.5 loss 7.29706 gN 0.0176 wc 26 src (4, 3)",
        "step 6 lr 0.5 loss 11.67534 gN 0.0149 wc 44 src (4, 5)",
        "step 7 lr 0.5 loss 3.89164 gN 0.0117 wc 6 src (2, 1)",
        "step 8 lr 0.25 loss 6.81036 gN 0.0162 wc 12 src (2, 3)",
        "step 9 lr 0.25 loss 7.29675 gN 0.0185 wc 26 src (4, 3)",
        "step 10 lr 0.125 loss 11.67514 gN 0.0161 wc 44 src (4, 5)",
        "step 11 lr 0.125 loss 3.89149 gN 0.0122 wc 6 src (2, 1)",
        "step 12 lr 0.0625 loss 6.81020 gN 0.0169 wc 12 src (2, 3)",
        "# Trainable variables",
        "  embeddings/encoder/embedding_encoder:0, (8, 6), ",
        "  embeddings/decoder/embedding_decoder:0, (7, 6), ",
        "  dynamic_seq2seq/encoder/bidirectional_rnn/fw/basic_lstm_cell/kernel:0, (12, 24), /device:CPU:0",
        "  dynamic_seq2seq/encoder/bidirectional_rnn/fw/basic_lstm_cell/bias:0, (24,), /device:CPU:0",
        "  dynamic_seq2seq/encoder/bidirectional_rnn/bw/basic_lstm_cell/kernel:0, (12, 24), /device:CPU:0",
        "  dynamic_seq2seq/encoder/bidirectional_rnn/bw/basic_lstm_cell/bias:0, (24,), /device:CPU:0",
        "  dynamic_seq2seq/decoder/memory_layer/kernel:0, (12, 6), ",
        "  dynamic_seq2seq/decoder/attention/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0, (18, 24), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0, (24,), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/multi_rnn_cell/cell_1/basic_lstm_cell/kernel:0, (12, 24), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/multi_rnn_cell/cell_1/basic_lstm_cell/bias:0, (24,), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/luong_attention/attention_g:0, (), /device:CPU:0",
        "  dynamic_seq2seq/decoder/attention/attention_layer/kernel:0, (18, 6), /device:CPU:0",
        "  dynamic_seq2seq/decoder/output_projection/kernel:0, (6, 7), ",
        "Tensor(\"dynamic_seq2seq/decoder/decoder/GatherTree:0\", shape=(?, ?, 3), dtype=int32) Tensor(\"hash_table_Lookup_1/LookupTableFindV2:0\", shape=(?, ?, 3), dtype=string)",
        "(2, 2, 3) [2, 2] ['</s>', '</s>']",
        "(2, 1, 3) [2, 2] ['</s>', '</s>']",
    ],

    "deepspeech_towers": [
        "['b1:0', 'h1:0', 'b2:0', 'h2:0', 'b3:0', 'h3:0', 'bidirectional_rnn/fw/basic_lstm_cell/kernel:0', 'bidirectional_rnn/fw/basic_lstm_cell/bias:0', 'bidirectional_rnn/bw/basic_lstm_cell/kernel:0', 'bidirectional_rnn/bw/basic_lstm_cell/bias:0', 'b5:0', 'h5:0', 'b6:0', 'h6:0'] Tensor(\"tower_1/Mean:0\", shape=(), dtype=float32, device=/device:CPU:0) SparseTensor(indices=Tensor(\"tower_1/CTCBeamSearchDecoder:0\", shape=(?, 2), dtype=int64, device=/device:CPU:0), values=Tensor(\"tower_1/CTCBeamSearchDecoder:1\", shape=(?,), dtype=int64, device=/device:CPU:0), dense_shape=Tensor(\"tower_1/CTCBeamSearchDecoder:2\", shape=(2,), dtype=int64, device=/device:CPU:0))",
        "step 0 loss 4.73628 4.73730 wer 1.0000",
        "step 1 loss 4.70759 4.70520 wer 1.0000",
        "step 2 loss 4.67847 4.67979 wer 1.0000",
        "step 3 loss 4.65168 4.65038 wer 1.0000",
        "step 4 loss 4.62169 4.62426 wer 1.0000",
        "[[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]] [2, 3, 2, 3, 2] [2, 3]",
    ],

}
