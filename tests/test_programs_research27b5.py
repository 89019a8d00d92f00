"""TF 1.x research programs tideflow had not seen, reduced as in
``test_programs_research27b.py``: write-rnn, pointer-generator and pix2pix. Each prints what TF 1.15 printed
running it with the same seeds (measured), compared by ``same_printed``."""
# ruff: noqa: F401, F841, I001, UP031, UP032, UP039, RUF059, SIM117, B023

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




def test_write_rnn(capsys):
    # hardmaru/write-rnn-tensorflow model.py + train.py + sample (handwriting mixture density network, in the TF 1.x form the repository took: tf.split(value, n, axis), tf.subtract/multiply, tf.contrib.legacy_seq2seq.rnn_decoder; strokes random)
    # hardmaru/write-rnn-tensorflow model.py + train.py (handwriting mixture density network), in the TF 1.x form the repository
    # took (tf.split(value, n, axis), tf.subtract/tf.multiply/tf.div, tf.contrib.legacy_seq2seq.rnn_decoder); strokes random
    import random
    class Model():
        def __init__(self, args, infer=False, shared_cell=False):
            self.args = args
            if infer:
                args.batch_size = 1
                args.seq_length = 1
            if args.model == 'rnn':
                cell_fn = tf.nn.rnn_cell.BasicRNNCell
            elif args.model == 'gru':
                cell_fn = tf.nn.rnn_cell.GRUCell
            elif args.model == 'lstm':
                cell_fn = tf.nn.rnn_cell.BasicLSTMCell
            if shared_cell:  # the repository's first form: one cell object for every layer
                cell = cell_fn(args.rnn_size, state_is_tuple=False)
                cell = tf.nn.rnn_cell.MultiRNNCell([cell] * args.num_layers, state_is_tuple=False)
            else:
                cell = tf.nn.rnn_cell.MultiRNNCell([cell_fn(args.rnn_size, state_is_tuple=False) for _ in range(args.num_layers)], state_is_tuple=False)
            if (infer == False and args.keep_prob < 1):
                cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=args.keep_prob)
            self.cell = cell
            self.input_data = tf.placeholder(dtype=tf.float32, shape=[None, args.seq_length, 3])
            self.target_data = tf.placeholder(dtype=tf.float32, shape=[None, args.seq_length, 3])
            self.initial_state = cell.zero_state(batch_size=args.batch_size, dtype=tf.float32)
            self.num_mixture = args.num_mixture
            NOUT = 1 + self.num_mixture * 6
            with tf.variable_scope('rnnlm'):
                output_w = tf.get_variable("output_w", [args.rnn_size, NOUT])
                output_b = tf.get_variable("output_b", [NOUT])
            inputs = tf.split(self.input_data, args.seq_length, 1)
            inputs = [tf.squeeze(input_, [1]) for input_ in inputs]
            outputs, last_state = tf.contrib.legacy_seq2seq.rnn_decoder(inputs, self.initial_state, cell, loop_function=None, scope='rnnlm')
            output = tf.reshape(tf.concat(outputs, 1), [-1, args.rnn_size])
            output = tf.nn.xw_plus_b(output, output_w, output_b)
            self.final_state = last_state
            flat_target_data = tf.reshape(self.target_data, [-1, 3])
            [x1_data, x2_data, eos_data] = tf.split(flat_target_data, 3, 1)
            def tf_2d_normal(x1, x2, mu1, mu2, s1, s2, rho):
                norm1 = tf.subtract(x1, mu1)
                norm2 = tf.subtract(x2, mu2)
                s1s2 = tf.multiply(s1, s2)
                z = tf.square(tf.div(norm1, s1)) + tf.square(tf.div(norm2, s2)) - 2 * tf.div(tf.multiply(rho, tf.multiply(norm1, norm2)), s1s2)
                negRho = 1 - tf.square(rho)
                result = tf.exp(tf.div(-z, 2 * negRho))
                denom = 2 * np.pi * tf.multiply(s1s2, tf.sqrt(negRho))
                result = tf.div(result, denom)
                return result
            def get_lossfunc(z_pi, z_mu1, z_mu2, z_sigma1, z_sigma2, z_corr, z_eos, x1_data, x2_data, eos_data):
                result0 = tf_2d_normal(x1_data, x2_data, z_mu1, z_mu2, z_sigma1, z_sigma2, z_corr)
                result1 = tf.multiply(result0, z_pi)
                result1 = tf.reduce_sum(result1, 1, keep_dims=True)
                result1 = -tf.log(tf.maximum(result1, 1e-20))
                result2 = tf.multiply(z_eos, eos_data) + tf.multiply(1 - z_eos, 1 - eos_data)
                result2 = -tf.log(result2)
                result = result1 + result2
                return tf.reduce_sum(result)
            def get_mixture_coef(output):
                z = output
                z_eos = z[:, 0:1]
                z_pi, z_mu1, z_mu2, z_sigma1, z_sigma2, z_corr = tf.split(z[:, 1:], 6, 1)
                z_eos = tf.sigmoid(z_eos)
                max_pi = tf.reduce_max(z_pi, 1, keep_dims=True)
                z_pi = tf.subtract(z_pi, max_pi)
                z_pi = tf.exp(z_pi)
                normalize_pi = tf.reciprocal(tf.reduce_sum(z_pi, 1, keep_dims=True))
                z_pi = tf.multiply(normalize_pi, z_pi)
                z_sigma1 = tf.exp(z_sigma1)
                z_sigma2 = tf.exp(z_sigma2)
                z_corr = tf.tanh(z_corr)
                return [z_pi, z_mu1, z_mu2, z_sigma1, z_sigma2, z_corr, z_eos]
            [o_pi, o_mu1, o_mu2, o_sigma1, o_sigma2, o_corr, o_eos] = get_mixture_coef(output)
            self.pi = o_pi; self.mu1 = o_mu1; self.mu2 = o_mu2; self.sigma1 = o_sigma1; self.sigma2 = o_sigma2; self.corr = o_corr; self.eos = o_eos
            lossfunc = get_lossfunc(o_pi, o_mu1, o_mu2, o_sigma1, o_sigma2, o_corr, o_eos, x1_data, x2_data, eos_data)
            self.cost = lossfunc / (args.batch_size * args.seq_length)
            self.lr = tf.Variable(0.0, trainable=False)
            tvars = tf.trainable_variables()
            grads, _ = tf.clip_by_global_norm(tf.gradients(self.cost, tvars), args.grad_clip)
            optimizer = tf.train.AdamOptimizer(self.lr)
            self.train_op = optimizer.apply_gradients(zip(grads, tvars))
        def sample(self, sess, num=5):
            def get_pi_idx(x, pdf):
                N = pdf.size
                accumulate = 0
                for i in range(N):
                    accumulate += pdf[i]
                    if (accumulate >= x):
                        return i
                print('error with sampling ensemble')
                return -1
            def sample_gaussian_2d(mu1, mu2, s1, s2, rho):
                mean = [mu1, mu2]
                cov = [[s1 * s1, rho * s1 * s2], [rho * s1 * s2, s2 * s2]]
                x = np.random.multivariate_normal(mean, cov, 1)
                return x[0][0], x[0][1]
            prev_x = np.zeros((1, 1, 3), dtype=np.float32)
            prev_x[0, 0, 2] = 1
            prev_state = sess.run(self.cell.zero_state(1, tf.float32))
            strokes = np.zeros((num, 3), dtype=np.float32)
            mixture_params = []
            for i in range(num):
                feed = {self.input_data: prev_x, self.initial_state: prev_state}
                [o_pi, o_mu1, o_mu2, o_sigma1, o_sigma2, o_corr, o_eos, next_state] = sess.run([self.pi, self.mu1, self.mu2, self.sigma1, self.sigma2, self.corr, self.eos, self.final_state], feed)
                idx = get_pi_idx(random.random(), o_pi[0])
                eos = 1 if random.random() < o_eos[0][0] else 0
                next_x1, next_x2 = sample_gaussian_2d(o_mu1[0][idx], o_mu2[0][idx], o_sigma1[0][idx], o_sigma2[0][idx], o_corr[0][idx])
                strokes[i, :] = [next_x1, next_x2, eos]
                mixture_params.append([o_pi[0], o_eos[0]])
                prev_x = np.zeros((1, 1, 3), dtype=np.float32)
                prev_x[0][0] = np.array([next_x1, next_x2, eos], dtype=np.float32)
                prev_state = next_state
            strokes[:, 0:2] *= self.args.data_scale
            return strokes, mixture_params
    class Args:
        model = 'lstm'; rnn_size = 8; num_layers = 2; keep_prob = 1.0; batch_size = 4; seq_length = 5; num_mixture = 3
        grad_clip = 10.; learning_rate = 0.005; decay_rate = 0.95; data_scale = 20; num_epochs = 2
    # (the repository's first form, MultiRNNCell([cell] * 2) over inputs 3 then 8 wide, is TF 1.15's ValueError;
    # tideflow deliberately gives the second layer its own weights, as TF 0.x did)
    tf.set_random_seed(0)
    args = Args()
    model = Model(args)
    print(model.initial_state, model.final_state, [v.name for v in tf.trainable_variables()])
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        saver = tf.train.Saver(tf.global_variables())
        for e in range(args.num_epochs):
            sess.run(tf.assign(model.lr, args.learning_rate * (args.decay_rate ** e)))
            state = model.initial_state.eval()
            for b in range(2):
                x = rng.randn(args.batch_size, args.seq_length, 3).astype(np.float32)
                x[:, :, 2] = (x[:, :, 2] > 1).astype(np.float32)
                y = np.roll(x, -1, 1)
                feed = {model.input_data: x, model.target_data: y, model.initial_state: state}
                train_loss, state, _ = sess.run([model.cost, model.final_state, model.train_op], feed)
                print("{}/{} (epoch {}), train_loss = {:.5f}".format(e * 2 + b, args.num_epochs * 2, e, train_loss))
        import tempfile
        d = tempfile.mkdtemp()
        saver.save(sess, d + '/model.ckpt', global_step=3)
    with tf.Graph().as_default():
        np.random.seed(1); random.seed(1)
        sample_model = Model(Args(), infer=True)
        with tf.Session() as sess:
            tf.train.Saver(tf.global_variables()).restore(sess, tf.train.latest_checkpoint(d))
            strokes, params = sample_model.sample(sess, 5)
            print(strokes.round(3).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["write_rnn"], 0)


def test_pointer_generator(capsys):
    # abisee/pointer-generator attention_decoder.py + model.py (bidirectional encoder, reduce_states, attention decoder with pointer switch and coverage, scatter_nd final distribution, gather_nd loss, Adagrad; vocab and sizes shrunk)
    # abisee/pointer-generator attention_decoder.py + model.py (bidirectional encoder, reduce_states, attention decoder with
    # pointer switch and coverage, scatter_nd final distribution, gather_nd loss, Adagrad); vocab and sizes shrunk, batches random
    variable_scope = tf; nn_ops = tf.nn; math_ops = tf; array_ops = tf
    def attention_decoder(decoder_inputs, initial_state, encoder_states, enc_padding_mask, cell, initial_state_attention=False, pointer_gen=True, use_coverage=False, prev_coverage=None):
        with variable_scope.variable_scope("attention_decoder") as scope:
            batch_size = encoder_states.get_shape()[0].value
            attn_size = encoder_states.get_shape()[2].value
            encoder_states = tf.expand_dims(encoder_states, axis=2)
            attention_vec_size = attn_size
            W_h = variable_scope.get_variable("W_h", [1, 1, attn_size, attention_vec_size])
            encoder_features = nn_ops.conv2d(encoder_states, W_h, [1, 1, 1, 1], "SAME")
            v = variable_scope.get_variable("v", [attention_vec_size])
            if use_coverage:
                with variable_scope.variable_scope("coverage"):
                    w_c = variable_scope.get_variable("w_c", [1, 1, 1, attention_vec_size])
            if prev_coverage is not None:
                prev_coverage = tf.expand_dims(tf.expand_dims(prev_coverage, 2), 3)
            def attention(decoder_state, coverage=None):
                with variable_scope.variable_scope("Attention"):
                    decoder_features = linear(decoder_state, attention_vec_size, True)
                    decoder_features = tf.expand_dims(tf.expand_dims(decoder_features, 1), 1)
                    def masked_attention(e):
                        attn_dist = nn_ops.softmax(e)
                        attn_dist *= enc_padding_mask
                        masked_sums = tf.reduce_sum(attn_dist, axis=1)
                        return attn_dist / tf.reshape(masked_sums, [-1, 1])
                    if use_coverage and coverage is not None:
                        coverage_features = nn_ops.conv2d(coverage, w_c, [1, 1, 1, 1], "SAME")
                        e = math_ops.reduce_sum(v * math_ops.tanh(encoder_features + decoder_features + coverage_features), [2, 3])
                        attn_dist = masked_attention(e)
                        coverage += array_ops.reshape(attn_dist, [batch_size, -1, 1, 1])
                    else:
                        e = math_ops.reduce_sum(v * math_ops.tanh(encoder_features + decoder_features), [2, 3])
                        attn_dist = masked_attention(e)
                        if use_coverage:
                            coverage = tf.expand_dims(tf.expand_dims(attn_dist, 2), 2)
                    context_vector = math_ops.reduce_sum(array_ops.reshape(attn_dist, [batch_size, -1, 1, 1]) * encoder_states, [1, 2])
                    context_vector = array_ops.reshape(context_vector, [-1, attn_size])
                return context_vector, attn_dist, coverage
            outputs = []; attn_dists = []; p_gens = []
            state = initial_state
            coverage = prev_coverage
            context_vector = array_ops.zeros([batch_size, attn_size])
            context_vector.set_shape([None, attn_size])
            if initial_state_attention:
                context_vector, _, coverage = attention(initial_state, coverage)
            for i, inp in enumerate(decoder_inputs):
                tf.logging.info("Adding attention_decoder timestep %i of %i", i, len(decoder_inputs))
                if i > 0:
                    variable_scope.get_variable_scope().reuse_variables()
                input_size = inp.get_shape().with_rank(2)[1]
                if input_size.value is None:
                    raise ValueError("Could not infer input size from input: %s" % inp.name)
                x = linear([inp] + [context_vector], input_size, True)
                cell_output, state = cell(x, state)
                if i == 0 and initial_state_attention:
                    with variable_scope.variable_scope(variable_scope.get_variable_scope(), reuse=True):
                        context_vector, attn_dist, _ = attention(state, coverage)
                else:
                    context_vector, attn_dist, coverage = attention(state, coverage)
                attn_dists.append(attn_dist)
                if pointer_gen:
                    with tf.variable_scope('calculate_pgen'):
                        p_gen = linear([context_vector, state.c, state.h, x], 1, True)
                        p_gen = tf.sigmoid(p_gen)
                        p_gens.append(p_gen)
                with variable_scope.variable_scope("AttnOutputProjection"):
                    output = linear([cell_output] + [context_vector], cell.output_size, True)
                outputs.append(output)
            if coverage is not None:
                coverage = array_ops.reshape(coverage, [batch_size, -1])
            return outputs, state, attn_dists, p_gens, coverage
    def linear(args, output_size, bias, bias_start=0.0, scope=None):
        if args is None or (isinstance(args, (list, tuple)) and not args):
            raise ValueError("`args` must be specified")
        if not isinstance(args, (list, tuple)):
            args = [args]
        total_arg_size = 0
        shapes = [a.get_shape().as_list() for a in args]
        for shape in shapes:
            if len(shape) != 2:
                raise ValueError("Linear is expecting 2D arguments: %s" % str(shapes))
            if not shape[1]:
                raise ValueError("Linear expects shape[1] of arguments: %s" % str(shapes))
            else:
                total_arg_size += shape[1]
        with tf.variable_scope(scope or "Linear"):
            matrix = tf.get_variable("Matrix", [total_arg_size, output_size])
            if len(args) == 1:
                res = tf.matmul(args[0], matrix)
            else:
                res = tf.matmul(tf.concat(axis=1, values=args), matrix)
            if not bias:
                return res
            bias_term = tf.get_variable("Bias", [output_size], initializer=tf.constant_initializer(bias_start))
        return res + bias_term
    def _mask_and_avg(values, padding_mask):
        dec_lens = tf.reduce_sum(padding_mask, axis=1)
        values_per_step = [v * padding_mask[:, dec_step] for dec_step, v in enumerate(values)]
        values_per_ex = sum(values_per_step) / dec_lens
        return tf.reduce_mean(values_per_ex)
    def _coverage_loss(attn_dists, padding_mask):
        coverage = tf.zeros_like(attn_dists[0])
        covlosses = []
        for a in attn_dists:
            covloss = tf.reduce_sum(tf.minimum(a, coverage), [1])
            covlosses.append(covloss)
            coverage += a
        return _mask_and_avg(covlosses, padding_mask)
    class hps:
        batch_size = 3; hidden_dim = 6; emb_dim = 5; max_dec_steps = 4; vocab_size = 12; rand_unif_init_mag = 0.02; trunc_norm_init_std = 1e-4
        lr = 0.15; adagrad_init_acc = 0.1; max_grad_norm = 2.0; pointer_gen = True; coverage = True; cov_loss_wt = 1.0
    max_art_oovs = 2
    tf.set_random_seed(111)
    enc_batch = tf.placeholder(tf.int32, [hps.batch_size, None], name='enc_batch')
    enc_lens = tf.placeholder(tf.int32, [hps.batch_size], name='enc_lens')
    enc_padding_mask = tf.placeholder(tf.float32, [hps.batch_size, None], name='enc_padding_mask')
    enc_batch_extend_vocab = tf.placeholder(tf.int32, [hps.batch_size, None], name='enc_batch_extend_vocab')
    dec_batch = tf.placeholder(tf.int32, [hps.batch_size, hps.max_dec_steps], name='dec_batch')
    target_batch = tf.placeholder(tf.int32, [hps.batch_size, hps.max_dec_steps], name='target_batch')
    dec_padding_mask = tf.placeholder(tf.float32, [hps.batch_size, hps.max_dec_steps], name='dec_padding_mask')
    with tf.variable_scope('seq2seq'):
        rand_unif_init = tf.random_uniform_initializer(-hps.rand_unif_init_mag, hps.rand_unif_init_mag, seed=123)
        trunc_norm_init = tf.truncated_normal_initializer(stddev=hps.trunc_norm_init_std)
        with tf.variable_scope('embedding'):
            embedding = tf.get_variable('embedding', [hps.vocab_size, hps.emb_dim], dtype=tf.float32, initializer=trunc_norm_init)
            emb_enc_inputs = tf.nn.embedding_lookup(embedding, enc_batch)
            emb_dec_inputs = [tf.nn.embedding_lookup(embedding, x) for x in tf.unstack(dec_batch, axis=1)]
        with tf.variable_scope('encoder'):
            cell_fw = tf.contrib.rnn.LSTMCell(hps.hidden_dim, initializer=rand_unif_init, state_is_tuple=True)
            cell_bw = tf.contrib.rnn.LSTMCell(hps.hidden_dim, initializer=rand_unif_init, state_is_tuple=True)
            (encoder_outputs, (fw_st, bw_st)) = tf.nn.bidirectional_dynamic_rnn(cell_fw, cell_bw, emb_enc_inputs, dtype=tf.float32, sequence_length=enc_lens, swap_memory=True)
            enc_states = tf.concat(axis=2, values=encoder_outputs)
        with tf.variable_scope('reduce_final_st'):
            w_reduce_c = tf.get_variable('w_reduce_c', [hps.hidden_dim * 2, hps.hidden_dim], dtype=tf.float32, initializer=trunc_norm_init)
            w_reduce_h = tf.get_variable('w_reduce_h', [hps.hidden_dim * 2, hps.hidden_dim], dtype=tf.float32, initializer=trunc_norm_init)
            bias_reduce_c = tf.get_variable('bias_reduce_c', [hps.hidden_dim], dtype=tf.float32, initializer=trunc_norm_init)
            bias_reduce_h = tf.get_variable('bias_reduce_h', [hps.hidden_dim], dtype=tf.float32, initializer=trunc_norm_init)
            old_c = tf.concat(axis=1, values=[fw_st.c, bw_st.c])
            old_h = tf.concat(axis=1, values=[fw_st.h, bw_st.h])
            new_c = tf.nn.relu(tf.matmul(old_c, w_reduce_c) + bias_reduce_c)
            new_h = tf.nn.relu(tf.matmul(old_h, w_reduce_h) + bias_reduce_h)
            dec_in_state = tf.contrib.rnn.LSTMStateTuple(new_c, new_h)
        with tf.variable_scope('decoder'):
            cell = tf.contrib.rnn.LSTMCell(hps.hidden_dim, state_is_tuple=True, initializer=rand_unif_init)
            decoder_outputs, dec_out_state, attn_dists, p_gens, coverage = attention_decoder(
                emb_dec_inputs, dec_in_state, enc_states, enc_padding_mask, cell, initial_state_attention=False,
                pointer_gen=hps.pointer_gen, use_coverage=hps.coverage, prev_coverage=None)
        with tf.variable_scope('output_projection'):
            w = tf.get_variable('w', [hps.hidden_dim, hps.vocab_size], dtype=tf.float32, initializer=trunc_norm_init)
            v = tf.get_variable('v', [hps.vocab_size], dtype=tf.float32, initializer=trunc_norm_init)
            vocab_scores = []
            for i, output in enumerate(decoder_outputs):
                if i > 0:
                    tf.get_variable_scope().reuse_variables()
                vocab_scores.append(tf.nn.xw_plus_b(output, w, v))
            vocab_dists = [tf.nn.softmax(s) for s in vocab_scores]
        with tf.variable_scope('final_distribution'):
            vocab_dists = [p_gen * dist for (p_gen, dist) in zip(p_gens, vocab_dists)]
            attn_dists_w = [(1 - p_gen) * dist for (p_gen, dist) in zip(p_gens, attn_dists)]
            extended_vsize = hps.vocab_size + max_art_oovs
            extra_zeros = tf.zeros((hps.batch_size, max_art_oovs))
            vocab_dists_extended = [tf.concat(axis=1, values=[dist, extra_zeros]) for dist in vocab_dists]
            batch_nums = tf.range(0, limit=hps.batch_size)
            batch_nums = tf.expand_dims(batch_nums, 1)
            attn_len = tf.shape(enc_batch_extend_vocab)[1]
            batch_nums = tf.tile(batch_nums, [1, attn_len])
            indices = tf.stack((batch_nums, enc_batch_extend_vocab), axis=2)
            shape = [hps.batch_size, extended_vsize]
            attn_dists_projected = [tf.scatter_nd(indices, copy_dist, shape) for copy_dist in attn_dists_w]
            final_dists = [vocab_dist + copy_dist for (vocab_dist, copy_dist) in zip(vocab_dists_extended, attn_dists_projected)]
        with tf.variable_scope('loss'):
            loss_per_step = []
            batch_nums = tf.range(0, limit=hps.batch_size)
            for dec_step, dist in enumerate(final_dists):
                targets = target_batch[:, dec_step]
                indices = tf.stack((batch_nums, targets), axis=1)
                gold_probs = tf.gather_nd(dist, indices)
                losses = -tf.log(gold_probs)
                loss_per_step.append(losses)
            loss = _mask_and_avg(loss_per_step, dec_padding_mask)
            tf.summary.scalar('loss', loss)
            coverage_loss = _coverage_loss(attn_dists, dec_padding_mask)
            tf.summary.scalar('coverage_loss', coverage_loss)
            total_loss = loss + hps.cov_loss_wt * coverage_loss
        topk_probs, topk_ids = tf.nn.top_k(final_dists[0], hps.batch_size * 2)
        topk_log_probs = tf.log(topk_probs)
    global_step = tf.Variable(0, name='global_step', trainable=False)
    tvars = tf.trainable_variables()
    gradients = tf.gradients(total_loss, tvars, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)
    grads, global_norm = tf.clip_by_global_norm(gradients, hps.max_grad_norm)
    tf.summary.scalar('global_norm', global_norm)
    optimizer = tf.train.AdagradOptimizer(hps.lr, initial_accumulator_value=hps.adagrad_init_acc)
    train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=global_step, name='train_step')
    summaries = tf.summary.merge_all()
    print(enc_states, dec_out_state.h, coverage, final_dists[0], [type(g).__name__ for g in gradients[:3]])
    print(len(tvars), [v.name for v in tvars][:6])
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            L = 5
            lens = np.array([5, 3, 4])
            pad = (np.arange(L)[None] < lens[:, None]).astype(np.float32)
            ext = rng.randint(0, hps.vocab_size + max_art_oovs, (3, L))
            fd = {enc_batch: np.minimum(ext, hps.vocab_size - 1), enc_lens: lens, enc_padding_mask: pad, enc_batch_extend_vocab: ext,
                  dec_batch: rng.randint(0, hps.vocab_size, (3, 4)), target_batch: rng.randint(0, hps.vocab_size + max_art_oovs, (3, 4)),
                  dec_padding_mask: (np.arange(4)[None] < np.array([[4], [2], [3]])).astype(np.float32)}
            res = sess.run({'train_op': train_op, 'summaries': summaries, 'loss': loss, 'global_step': global_step, 'coverage_loss': coverage_loss}, fd)
            print('step %d: loss %.5f coverage_loss %.5f' % (res['global_step'], res['loss'], res['coverage_loss']), len(res['summaries']) > 0)
        print(sess.run(topk_ids, fd).tolist(), np.round(sess.run(topk_log_probs, fd)[0], 4).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["pointer_generator"], 0)


def test_pix2pix(capsys):
    # affinelayer/pix2pix-tensorflow pix2pix.py (U-net generator, PatchGAN discriminator, EMA of losses, rgb<->lab, map_fn encode_png, summaries, Supervisor managed_session; argparse -> a class, the image file queue -> constant batches, 32x32 images, ngf/ndf 4)
    # affinelayer/pix2pix-tensorflow pix2pix.py (U-net generator, PatchGAN discriminator, EMA losses, rgb<->lab, map_fn encode_png,
    # summaries, Supervisor managed_session); argparse -> a class, the image file queue -> constant batches, 16x16 images, ngf/ndf 4
    import collections, os, tempfile, random
    class a:
        ngf = 4; ndf = 4; lr = 0.0002; beta1 = 0.5; l1_weight = 100.0; gan_weight = 1.0; separable_conv = False; aspect_ratio = 1.0
        seed = 7; output_dir = tempfile.mkdtemp(); max_steps = 3; progress_freq = 1; summary_freq = 2; trace_freq = 0; display_freq = 3
    EPS = 1e-12
    CROP_SIZE = 32
    Model = collections.namedtuple("Model", "outputs, predict_real, predict_fake, discrim_loss, discrim_grads_and_vars, gen_loss_GAN, gen_loss_L1, gen_grads_and_vars, train")
    def preprocess(image):
        with tf.name_scope("preprocess"):
            return image * 2 - 1
    def deprocess(image):
        with tf.name_scope("deprocess"):
            return (image + 1) / 2
    def discrim_conv(batch_input, out_channels, stride):
        padded_input = tf.pad(batch_input, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="CONSTANT")
        return tf.layers.conv2d(padded_input, out_channels, kernel_size=4, strides=(stride, stride), padding="valid", kernel_initializer=tf.random_normal_initializer(0, 0.02))
    def gen_conv(batch_input, out_channels):
        initializer = tf.random_normal_initializer(0, 0.02)
        return tf.layers.conv2d(batch_input, out_channels, kernel_size=4, strides=(2, 2), padding="same", kernel_initializer=initializer)
    def gen_deconv(batch_input, out_channels):
        initializer = tf.random_normal_initializer(0, 0.02)
        return tf.layers.conv2d_transpose(batch_input, out_channels, kernel_size=4, strides=(2, 2), padding="same", kernel_initializer=initializer)
    def lrelu(x, a):
        with tf.name_scope("lrelu"):
            x = tf.identity(x)
            return (0.5 * (1 + a)) * x + (0.5 * (1 - a)) * tf.abs(x)
    def batchnorm(inputs):
        return tf.layers.batch_normalization(inputs, axis=3, epsilon=1e-5, momentum=0.1, training=True, gamma_initializer=tf.random_normal_initializer(1.0, 0.02))
    def check_image(image):
        assertion = tf.assert_equal(tf.shape(image)[-1], 3, message="image must have 3 color channels")
        with tf.control_dependencies([assertion]):
            image = tf.identity(image)
        if image.get_shape().ndims not in (3, 4):
            raise ValueError("image must be either 3 or 4 dimensions")
        shape = list(image.get_shape())
        shape[-1] = 3
        image.set_shape(shape)
        return image
    def rgb_to_lab(srgb):
        with tf.name_scope("rgb_to_lab"):
            srgb = check_image(srgb)
            srgb_pixels = tf.reshape(srgb, [-1, 3])
            with tf.name_scope("srgb_to_xyz"):
                linear_mask = tf.cast(srgb_pixels <= 0.04045, dtype=tf.float32)
                exponential_mask = tf.cast(srgb_pixels > 0.04045, dtype=tf.float32)
                rgb_pixels = (srgb_pixels / 12.92 * linear_mask) + (((srgb_pixels + 0.055) / 1.055) ** 2.4) * exponential_mask
                rgb_to_xyz = tf.constant([[0.412453, 0.212671, 0.019334], [0.357580, 0.715160, 0.119193], [0.180423, 0.072169, 0.950227]])
                xyz_pixels = tf.matmul(rgb_pixels, rgb_to_xyz)
            with tf.name_scope("xyz_to_cielab"):
                xyz_normalized_pixels = tf.multiply(xyz_pixels, [1 / 0.950456, 1.0, 1 / 1.088754])
                epsilon = 6 / 29
                linear_mask = tf.cast(xyz_normalized_pixels <= (epsilon ** 3), dtype=tf.float32)
                exponential_mask = tf.cast(xyz_normalized_pixels > (epsilon ** 3), dtype=tf.float32)
                fxfyfz_pixels = (xyz_normalized_pixels / (3 * epsilon ** 2) + 4 / 29) * linear_mask + (xyz_normalized_pixels ** (1 / 3)) * exponential_mask
                fxfyfz_to_lab = tf.constant([[0.0, 500.0, 0.0], [116.0, -500.0, 200.0], [0.0, 0.0, -200.0]])
                lab_pixels = tf.matmul(fxfyfz_pixels, fxfyfz_to_lab) + tf.constant([-16.0, 0.0, 0.0])
            return tf.reshape(lab_pixels, tf.shape(srgb))
    def lab_to_rgb(lab):
        with tf.name_scope("lab_to_rgb"):
            lab = check_image(lab)
            lab_pixels = tf.reshape(lab, [-1, 3])
            with tf.name_scope("cielab_to_xyz"):
                lab_to_fxfyfz = tf.constant([[1 / 116.0, 1 / 116.0, 1 / 116.0], [1 / 500.0, 0.0, 0.0], [0.0, 0.0, -1 / 200.0]])
                fxfyfz_pixels = tf.matmul(lab_pixels + tf.constant([16.0, 0.0, 0.0]), lab_to_fxfyfz)
                epsilon = 6 / 29
                linear_mask = tf.cast(fxfyfz_pixels <= epsilon, dtype=tf.float32)
                exponential_mask = tf.cast(fxfyfz_pixels > epsilon, dtype=tf.float32)
                xyz_pixels = (3 * epsilon ** 2 * (fxfyfz_pixels - 4 / 29)) * linear_mask + (fxfyfz_pixels ** 3) * exponential_mask
                xyz_pixels = tf.multiply(xyz_pixels, [0.950456, 1.0, 1.088754])
            with tf.name_scope("xyz_to_srgb"):
                xyz_to_rgb = tf.constant([[3.2404542, -0.9692660, 0.0556434], [-1.5371385, 1.8760108, -0.2040259], [-0.4985314, 0.0415560, 1.0572252]])
                rgb_pixels = tf.matmul(xyz_pixels, xyz_to_rgb)
                rgb_pixels = tf.clip_by_value(rgb_pixels, 0.0, 1.0)
                linear_mask = tf.cast(rgb_pixels <= 0.0031308, dtype=tf.float32)
                exponential_mask = tf.cast(rgb_pixels > 0.0031308, dtype=tf.float32)
                srgb_pixels = (rgb_pixels * 12.92 * linear_mask) + ((rgb_pixels ** (1 / 2.4) * 1.055) - 0.055) * exponential_mask
            return tf.reshape(srgb_pixels, tf.shape(lab))
    def create_generator(generator_inputs, generator_outputs_channels):
        layers = []
        with tf.variable_scope("encoder_1"):
            output = gen_conv(generator_inputs, a.ngf)
            layers.append(output)
        layer_specs = [a.ngf * 2, a.ngf * 4, a.ngf * 8]
        for out_channels in layer_specs:
            with tf.variable_scope("encoder_%d" % (len(layers) + 1)):
                rectified = lrelu(layers[-1], 0.2)
                convolved = gen_conv(rectified, out_channels)
                output = batchnorm(convolved)
                layers.append(output)
        layer_specs = [(a.ngf * 8, 0.5), (a.ngf * 4, 0.0), (a.ngf * 2, 0.0)]
        num_encoder_layers = len(layers)
        for decoder_layer, (out_channels, dropout) in enumerate(layer_specs):
            skip_layer = num_encoder_layers - decoder_layer - 1
            with tf.variable_scope("decoder_%d" % (skip_layer + 1)):
                if decoder_layer == 0:
                    input = layers[-1]
                else:
                    input = tf.concat([layers[-1], layers[skip_layer]], axis=3)
                rectified = tf.nn.relu(input)
                output = gen_deconv(rectified, out_channels)
                output = batchnorm(output)
                if dropout > 0.0:
                    output = tf.nn.dropout(output, keep_prob=1 - dropout)
                layers.append(output)
        with tf.variable_scope("decoder_1"):
            input = tf.concat([layers[-1], layers[0]], axis=3)
            rectified = tf.nn.relu(input)
            output = gen_deconv(rectified, generator_outputs_channels)
            output = tf.tanh(output)
            layers.append(output)
        return layers[-1]
    def create_model(inputs, targets):
        def create_discriminator(discrim_inputs, discrim_targets):
            n_layers = 3
            layers = []
            input = tf.concat([discrim_inputs, discrim_targets], axis=3)
            with tf.variable_scope("layer_1"):
                convolved = discrim_conv(input, a.ndf, stride=2)
                rectified = lrelu(convolved, 0.2)
                layers.append(rectified)
            for i in range(n_layers):
                with tf.variable_scope("layer_%d" % (len(layers) + 1)):
                    out_channels = a.ndf * min(2 ** (i + 1), 8)
                    stride = 1 if i == n_layers - 1 else 2
                    convolved = discrim_conv(layers[-1], out_channels, stride=stride)
                    normalized = batchnorm(convolved)
                    rectified = lrelu(normalized, 0.2)
                    layers.append(rectified)
            with tf.variable_scope("layer_%d" % (len(layers) + 1)):
                convolved = discrim_conv(rectified, out_channels=1, stride=1)
                output = tf.sigmoid(convolved)
                layers.append(output)
            return layers[-1]
        with tf.variable_scope("generator"):
            out_channels = int(targets.get_shape()[-1])
            outputs = create_generator(inputs, out_channels)
        with tf.name_scope("real_discriminator"):
            with tf.variable_scope("discriminator"):
                predict_real = create_discriminator(inputs, targets)
        with tf.name_scope("fake_discriminator"):
            with tf.variable_scope("discriminator", reuse=True):
                predict_fake = create_discriminator(inputs, outputs)
        with tf.name_scope("discriminator_loss"):
            discrim_loss = tf.reduce_mean(-(tf.log(predict_real + EPS) + tf.log(1 - predict_fake + EPS)))
        with tf.name_scope("generator_loss"):
            gen_loss_GAN = tf.reduce_mean(-tf.log(predict_fake + EPS))
            gen_loss_L1 = tf.reduce_mean(tf.abs(targets - outputs))
            gen_loss = gen_loss_GAN * a.gan_weight + gen_loss_L1 * a.l1_weight
        with tf.name_scope("discriminator_train"):
            discrim_tvars = [var for var in tf.trainable_variables() if var.name.startswith("discriminator")]
            discrim_optim = tf.train.AdamOptimizer(a.lr, a.beta1)
            discrim_grads_and_vars = discrim_optim.compute_gradients(discrim_loss, var_list=discrim_tvars)
            discrim_train = discrim_optim.apply_gradients(discrim_grads_and_vars)
        with tf.name_scope("generator_train"):
            with tf.control_dependencies([discrim_train]):
                gen_tvars = [var for var in tf.trainable_variables() if var.name.startswith("generator")]
                gen_optim = tf.train.AdamOptimizer(a.lr, a.beta1)
                gen_grads_and_vars = gen_optim.compute_gradients(gen_loss, var_list=gen_tvars)
                gen_train = gen_optim.apply_gradients(gen_grads_and_vars)
        ema = tf.train.ExponentialMovingAverage(decay=0.99)
        update_losses = ema.apply([discrim_loss, gen_loss_GAN, gen_loss_L1])
        global_step = tf.train.get_or_create_global_step()
        incr_global_step = tf.assign(global_step, global_step + 1)
        return Model(predict_real=predict_real, predict_fake=predict_fake, discrim_loss=ema.average(discrim_loss),
                     discrim_grads_and_vars=discrim_grads_and_vars, gen_loss_GAN=ema.average(gen_loss_GAN),
                     gen_loss_L1=ema.average(gen_loss_L1), gen_grads_and_vars=gen_grads_and_vars, outputs=outputs,
                     train=tf.group(update_losses, incr_global_step, gen_train))
    tf.set_random_seed(a.seed); np.random.seed(a.seed); random.seed(a.seed)
    rng = np.random.RandomState(0)
    raw = tf.constant(rng.rand(2, CROP_SIZE, CROP_SIZE * 2, 3).astype(np.float32))
    width = tf.shape(raw)[2]
    inputs_batch = preprocess(raw[:, :, :width // 2, :]); targets_batch = preprocess(raw[:, :, width // 2:, :])
    inputs_batch.set_shape([2, CROP_SIZE, CROP_SIZE, 3]); targets_batch.set_shape([2, CROP_SIZE, CROP_SIZE, 3])
    paths = tf.constant([b'/data/1.png', b'/data/2.png'])
    model = create_model(inputs_batch, targets_batch)
    print(model.outputs, model.predict_real, model.discrim_loss, model.train.name)
    lab = rgb_to_lab(deprocess(inputs_batch[0]))
    back = lab_to_rgb(lab)
    roundtrip = tf.reduce_max(tf.abs(back - deprocess(inputs_batch[0])))
    inputs = deprocess(inputs_batch); targets = deprocess(targets_batch); outputs = deprocess(model.outputs)
    def convert(image):
        return tf.image.convert_image_dtype(image, dtype=tf.uint8, saturate=True)
    with tf.name_scope("convert_outputs"):
        converted_outputs = convert(outputs)
    with tf.name_scope("encode_images"):
        display_fetches = {"paths": paths, "outputs": tf.map_fn(tf.image.encode_png, converted_outputs, dtype=tf.string, name="output_pngs")}
    with tf.name_scope("outputs_summary"):
        tf.summary.image("outputs", converted_outputs)
    with tf.name_scope("predict_real_summary"):
        tf.summary.image("predict_real", tf.image.convert_image_dtype(model.predict_real, dtype=tf.uint8))
    tf.summary.scalar("discriminator_loss", model.discrim_loss)
    tf.summary.scalar("generator_loss_GAN", model.gen_loss_GAN)
    for var in tf.trainable_variables():
        tf.summary.histogram(var.op.name + "/values", var)
    for grad, var in model.discrim_grads_and_vars + model.gen_grads_and_vars:
        tf.summary.histogram(var.op.name + "/gradients", grad)
    with tf.name_scope("parameter_count"):
        parameter_count = tf.reduce_sum([tf.reduce_prod(tf.shape(v)) for v in tf.trainable_variables()])
    saver = tf.train.Saver(max_to_keep=1)
    sv = tf.train.Supervisor(logdir=a.output_dir, save_summaries_secs=0, saver=None)
    with sv.managed_session() as sess:
        print("parameter_count =", sess.run(parameter_count))
        print(np.round(sess.run(lab)[0, 0], 3).tolist(), sess.run(roundtrip) < 1e-3)
        max_steps = a.max_steps
        for step in range(max_steps):
            def should(freq):
                return freq > 0 and ((step + 1) % freq == 0 or step == max_steps - 1)
            fetches = {"train": model.train, "global_step": sv.global_step}
            if should(a.progress_freq):
                fetches["discrim_loss"] = model.discrim_loss
                fetches["gen_loss_GAN"] = model.gen_loss_GAN
                fetches["gen_loss_L1"] = model.gen_loss_L1
            if should(a.summary_freq):
                fetches["summary"] = sv.summary_op
            if should(a.display_freq):
                fetches["display"] = display_fetches
            results = sess.run(fetches)
            if should(a.summary_freq):
                print("recording summary")
                sv.summary_writer.add_summary(results["summary"], results["global_step"])
            if should(a.display_freq):
                print("saving display images", [p.decode() for p in results["display"]["paths"]], [r[:4] for r in results["display"]["outputs"]])
            if should(a.progress_freq):
                print("progress  step %d" % (results["global_step"]))
                print("discrim_loss %.6f" % results["discrim_loss"])
                print("gen_loss_GAN %.6f" % results["gen_loss_GAN"])
                print("gen_loss_L1 %.6f" % results["gen_loss_L1"])
        print(saver.save(sess, os.path.join(a.output_dir, "model"), global_step=sv.global_step).endswith('model-3'))
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["pix2pix"], 0)


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "write_rnn": [
        'Tensor("MultiRNNCellZeroState/MultiRNNCellZeroState/zeros:0", shape=(4, 32), dtype=float32) Tensor("rnnlm_1/rnnlm/multi_rnn_cell/concat_4:0", shape=(4, 32), dtype=float32) [\'rnnlm/output_w:0\', \'rnnlm/output_b:0\', \'rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0\', \'rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0\', \'rnnlm/multi_rnn_cell/cell_1/basic_lstm_cell/kernel:0\', \'rnnlm/multi_rnn_cell/cell_1/basic_lstm_cell/bias:0\']',
        '0/4 (epoch 0), train_loss = 3.81144',
        '1/4 (epoch 0), train_loss = 3.75499',
        '2/4 (epoch 1), train_loss = 3.58537',
        '3/4 (epoch 1), train_loss = 3.64218',
        '[[13.99899959564209, 38.275001525878906, 0.0], [-6.3480000495910645, -25.0939998626709, 1.0], [-60.09600067138672, -16.445999145507812, 1.0], [-51.255001068115234, 31.50200080871582, 0.0], [1.3669999837875366, 6.4629998207092285, 1.0]]',
    ],
    "pointer_generator": [
        'Tensor("seq2seq/encoder/concat:0", shape=(3, ?, 12), dtype=float32) Tensor("seq2seq/decoder/attention_decoder/lstm_cell/mul_11:0", shape=(3, 6), dtype=float32) Tensor("seq2seq/decoder/attention_decoder/Reshape:0", shape=(3, ?), dtype=float32) Tensor("seq2seq/final_distribution/add:0", shape=(3, 14), dtype=float32) [\'IndexedSlices\', \'Tensor\', \'Tensor\']',
        "24 ['seq2seq/embedding/embedding:0', 'seq2seq/encoder/bidirectional_rnn/fw/lstm_cell/kernel:0', 'seq2seq/encoder/bidirectional_rnn/fw/lstm_cell/bias:0', 'seq2seq/encoder/bidirectional_rnn/bw/lstm_cell/kernel:0', 'seq2seq/encoder/bidirectional_rnn/bw/lstm_cell/bias:0', 'seq2seq/reduce_final_st/w_reduce_c:0']",
        'step 1: loss nan coverage_loss 0.63889 True',
        'step 2: loss 2.72424 coverage_loss 0.63882 True',
        'step 3: loss inf coverage_loss 0.63874 True',
        '[[0, 2, 3, 5, 11, 1], [9, 10, 12, 1, 0, 3], [4, 6, 1, 0, 3, 5]] [-1.9997999668121338, -2.0457000732421875, -2.0481998920440674, -2.0622000694274902, -2.0708999633789062, -2.865000009536743]',
    ],
    "pix2pix": [
        'Tensor("generator/decoder_1/Tanh:0", shape=(2, 32, 32, 3), dtype=float32) Tensor("real_discriminator/discriminator/layer_5/Sigmoid:0", shape=(2, 2, 2, 1), dtype=float32) <tf.Variable \'discriminator_loss/Mean/ExponentialMovingAverage:0\' shape=() dtype=float32_ref> group_deps',
        'parameter_count = 55428',
        '[70.5260009765625, -20.06100082397461, 10.012999534606934] True',
        'progress  step 1',
        'discrim_loss 0.013766',
        'gen_loss_GAN 0.007299',
        'gen_loss_L1 0.004995',
        'recording summary',
        'progress  step 2',
        'discrim_loss 0.026731',
        'gen_loss_GAN 0.014803',
        'gen_loss_L1 0.009929',
        'recording summary',
        "saving display images ['/data/1.png', '/data/2.png'] [b'\\x89PNG', b'\\x89PNG']",
        'progress  step 3',
        'discrim_loss 0.039101',
        'gen_loss_GAN 0.022371',
        'gen_loss_L1 0.014797',
        'True',
    ],
}
