"""TF 1.x research programs tideflow had not seen, reduced as in
``test_programs_research27b.py``: XLNet, improved-GAN's inception score and ops, VAT, and the conversion errors they met. Each prints what TF 1.15 printed
running it with the same seeds (measured), compared by ``same_printed``."""
# ruff: noqa: F841, UP008, UP031, UP032, RUF059, UP004, UP034, BLE001, RUF046

import sys

import numpy as np
import pytest

import tideflow as tf
from tests.printed_programs import same_printed as _same


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield




def test_xlnet(capsys):
    # zihangdai/xlnet modeling.py (relative attention with einsum, rel_shift, segment encoding, mems, gelu FFN, tied lm_loss)
    # zihangdai/xlnet modeling.py (relative attention with einsum, rel_shift, segment encoding, mems, gelu FFN), sizes shrunk
    def gelu(x):
        cdf = 0.5 * (1.0 + tf.tanh((np.sqrt(2 / np.pi) * (x + 0.044715 * tf.pow(x, 3)))))
        return x * cdf
    def embedding_lookup(x, n_token, d_embed, initializer, use_tpu=True, scope='embedding', reuse=None, dtype=tf.float32):
        with tf.variable_scope(scope, reuse=reuse):
            lookup_table = tf.get_variable('lookup_table', [n_token, d_embed], dtype=dtype, initializer=initializer)
            if use_tpu:
                one_hot_idx = tf.one_hot(x, n_token, dtype=dtype)
                if one_hot_idx.shape.ndims == 2:
                    return tf.einsum('in,nd->id', one_hot_idx, lookup_table), lookup_table
                else:
                    return tf.einsum('ibn,nd->ibd', one_hot_idx, lookup_table), lookup_table
            else:
                return tf.nn.embedding_lookup(lookup_table, x), lookup_table
    def positional_embedding(pos_seq, inv_freq, bsz=None):
        sinusoid_inp = tf.einsum('i,d->id', pos_seq, inv_freq)
        pos_emb = tf.concat([tf.sin(sinusoid_inp), tf.cos(sinusoid_inp)], -1)
        pos_emb = pos_emb[:, None, :]
        if bsz is not None:
            pos_emb = tf.tile(pos_emb, [1, bsz, 1])
        return pos_emb
    def positionwise_ffn(inp, d_model, d_inner, dropout, kernel_initializer, activation_type='relu', scope='ff', is_training=True, reuse=None):
        activation = tf.nn.relu if activation_type == 'relu' else gelu
        output = inp
        with tf.variable_scope(scope, reuse=reuse):
            output = tf.layers.dense(output, d_inner, activation=activation, kernel_initializer=kernel_initializer, name='layer_1')
            output = tf.layers.dropout(output, dropout, training=is_training, name='drop_1')
            output = tf.layers.dense(output, d_model, kernel_initializer=kernel_initializer, name='layer_2')
            output = tf.layers.dropout(output, dropout, training=is_training, name='drop_2')
            output = tf.contrib.layers.layer_norm(output + inp, begin_norm_axis=-1, scope='LayerNorm')
        return output
    def head_projection(h, d_model, n_head, d_head, kernel_initializer, name):
        proj_weight = tf.get_variable('{}/kernel'.format(name), [d_model, n_head, d_head], dtype=h.dtype, initializer=kernel_initializer)
        head = tf.einsum('ibh,hnd->ibnd', h, proj_weight)
        return head
    def post_attention(h, attn_vec, d_model, n_head, d_head, dropout, is_training, kernel_initializer, residual=True):
        proj_o = tf.get_variable('o/kernel', [d_model, n_head, d_head], dtype=h.dtype, initializer=kernel_initializer)
        attn_out = tf.einsum('ibnd,hnd->ibh', attn_vec, proj_o)
        attn_out = tf.layers.dropout(attn_out, dropout, training=is_training)
        if residual:
            output = tf.contrib.layers.layer_norm(attn_out + h, begin_norm_axis=-1, scope='LayerNorm')
        else:
            output = tf.contrib.layers.layer_norm(attn_out, begin_norm_axis=-1, scope='LayerNorm')
        return output
    def rel_shift(x, klen=-1):
        x_size = tf.shape(x)
        x = tf.reshape(x, [x_size[1], x_size[0], x_size[2], x_size[3]])
        x = tf.slice(x, [1, 0, 0, 0], [-1, -1, -1, -1])
        x = tf.reshape(x, [x_size[0], x_size[1] - 1, x_size[2], x_size[3]])
        x = tf.slice(x, [0, 0, 0, 0], [-1, klen, -1, -1])
        return x
    def rel_attn_core(q_head, k_head_h, v_head_h, k_head_r, seg_embed, seg_mat, r_w_bias, r_r_bias, r_s_bias, attn_mask, dropatt, is_training, scale):
        ac = tf.einsum('ibnd,jbnd->ijbn', q_head + r_w_bias, k_head_h)
        bd = tf.einsum('ibnd,jbnd->ijbn', q_head + r_r_bias, k_head_r)
        bd = rel_shift(bd, klen=tf.shape(ac)[1])
        if seg_mat is None:
            ef = 0
        else:
            ef = tf.einsum('ibnd,snd->ibns', q_head + r_s_bias, seg_embed)
            ef = tf.einsum('ijbs,ibns->ijbn', seg_mat, ef)
        attn_score = (ac + bd + ef) * scale
        if attn_mask is not None:
            attn_score = attn_score - 1e30 * attn_mask
        attn_prob = tf.nn.softmax(attn_score, 1)
        attn_prob = tf.layers.dropout(attn_prob, dropatt, training=is_training)
        attn_vec = tf.einsum('ijbn,jbnd->ibnd', attn_prob, v_head_h)
        return attn_vec
    def _create_mask(qlen, mlen, dtype=tf.float32, same_length=False):
        attn_mask = tf.ones([qlen, qlen], dtype=dtype)
        mask_u = tf.matrix_band_part(attn_mask, 0, -1)
        mask_dia = tf.matrix_band_part(attn_mask, 0, 0)
        attn_mask_pad = tf.zeros([qlen, mlen], dtype=dtype)
        ret = tf.concat([attn_mask_pad, mask_u - mask_dia], 1)
        if same_length:
            mask_l = tf.matrix_band_part(attn_mask, -1, 0)
            ret = tf.concat([ret[:, :qlen] + mask_l - mask_dia, ret[:, qlen:]], 1)
        return ret
    def _cache_mem(curr_out, prev_mem, mem_len, reuse_len=None):
        if mem_len is None or mem_len == 0:
            return None
        else:
            if reuse_len is not None and reuse_len > 0:
                curr_out = curr_out[:reuse_len]
            if prev_mem is None:
                new_mem = curr_out[-mem_len:]
            else:
                new_mem = tf.concat([prev_mem, curr_out], 0)[-mem_len:]
        return tf.stop_gradient(new_mem)
    def relative_positional_encoding(qlen, klen, d_model, clamp_len, attn_type, bi_data, bsz=None, dtype=None):
        freq_seq = tf.range(0, d_model, 2.0)
        if dtype is not None and dtype != tf.float32:
            freq_seq = tf.cast(freq_seq, dtype=dtype)
        inv_freq = 1 / (10000 ** (freq_seq / d_model))
        if attn_type == 'bi':
            beg, end = klen, -qlen
        elif attn_type == 'uni':
            beg, end = klen, -1
        fwd_pos_seq = tf.range(beg, end, -1.0)
        if clamp_len > 0:
            fwd_pos_seq = tf.clip_by_value(fwd_pos_seq, -clamp_len, clamp_len)
        pos_emb = positional_embedding(fwd_pos_seq, inv_freq, bsz)
        return pos_emb
    def transformer_xl(inp_k, n_token, n_layer, d_model, n_head, d_head, d_inner, dropout, dropatt, attn_type, bi_data, initializer,
                       is_training, mem_len=None, inp_q=None, mems=None, same_length=False, clamp_len=-1, untie_r=False, use_tpu=True,
                       input_mask=None, perm_mask=None, seg_id=None, reuse_len=None, ff_activation='relu', target_mapping=None,
                       use_bfloat16=False, scope='transformer', **kwargs):
        tf_float = tf.float32
        new_mems = []
        with tf.variable_scope(scope):
            if untie_r:
                r_w_bias = tf.get_variable('r_w_bias', [n_layer, n_head, d_head], dtype=tf_float, initializer=initializer)
                r_r_bias = tf.get_variable('r_r_bias', [n_layer, n_head, d_head], dtype=tf_float, initializer=initializer)
            else:
                r_w_bias = tf.get_variable('r_w_bias', [n_head, d_head], dtype=tf_float, initializer=initializer)
                r_r_bias = tf.get_variable('r_r_bias', [n_head, d_head], dtype=tf_float, initializer=initializer)
            bsz = tf.shape(inp_k)[1]
            qlen = tf.shape(inp_k)[0]
            mlen = tf.shape(mems[0])[0] if mems is not None else 0
            klen = mlen + qlen
            if attn_type == 'uni':
                attn_mask = _create_mask(qlen, mlen, tf_float, same_length)
                attn_mask = attn_mask[:, :, None, None]
            else:
                attn_mask = None
            if input_mask is not None and perm_mask is not None:
                data_mask = input_mask[None] + perm_mask
            elif input_mask is not None and perm_mask is None:
                data_mask = input_mask[None]
            else:
                data_mask = None
            if data_mask is not None:
                mems_mask = tf.zeros([tf.shape(data_mask)[0], mlen, bsz], dtype=tf_float)
                data_mask = tf.concat([mems_mask, data_mask], 1)
                if attn_mask is None:
                    attn_mask = data_mask[:, :, :, None]
                else:
                    attn_mask += data_mask[:, :, :, None]
            if attn_mask is not None:
                attn_mask = tf.cast(attn_mask > 0, dtype=tf_float)
            if attn_mask is not None:
                non_tgt_mask = -tf.eye(qlen, dtype=tf_float)
                non_tgt_mask = tf.concat([tf.zeros([qlen, mlen], dtype=tf_float), non_tgt_mask], axis=-1)
                non_tgt_mask = tf.cast((attn_mask + non_tgt_mask[:, :, None, None]) > 0, dtype=tf_float)
            else:
                non_tgt_mask = None
            word_emb_k, lookup_table = embedding_lookup(x=inp_k, n_token=n_token, d_embed=d_model, initializer=initializer,
                                                        use_tpu=use_tpu, dtype=tf_float, scope='word_embedding')
            output_h = tf.layers.dropout(word_emb_k, dropout, training=is_training)
            if seg_id is not None:
                if untie_r:
                    r_s_bias = tf.get_variable('r_s_bias', [n_layer, n_head, d_head], dtype=tf_float, initializer=initializer)
                else:
                    r_s_bias = tf.get_variable('r_s_bias', [n_head, d_head], dtype=tf_float, initializer=initializer)
                seg_embed = tf.get_variable('seg_embed', [n_layer, 2, n_head, d_head], dtype=tf_float, initializer=initializer)
                mem_pad = tf.zeros([mlen, bsz], dtype=tf.int32)
                cat_ids = tf.concat([mem_pad, seg_id], 0)
                seg_mat = tf.cast(tf.logical_not(tf.equal(seg_id[:, None], cat_ids[None, :])), tf.int32)
                seg_mat = tf.one_hot(seg_mat, 2, dtype=tf_float)
            else:
                seg_mat = None
            pos_emb = relative_positional_encoding(qlen, klen, d_model, clamp_len, attn_type, bi_data, bsz=bsz, dtype=tf_float)
            pos_emb = tf.layers.dropout(pos_emb, dropout, training=is_training)
            if mems is None:
                mems = [None] * n_layer
            for i in range(n_layer):
                new_mems.append(_cache_mem(output_h, mems[i], mem_len, reuse_len))
                if seg_id is None:
                    r_s_bias_i = None
                    seg_embed_i = None
                else:
                    r_s_bias_i = r_s_bias if not untie_r else r_s_bias[i]
                    seg_embed_i = seg_embed[i]
                with tf.variable_scope('layer_{}'.format(i)):
                    with tf.variable_scope('rel_attn'):
                        scale = 1 / (d_head ** 0.5)
                        cat = tf.concat([mems[i], output_h], 0) if mems[i] is not None and mems[i].shape.ndims > 1 else output_h
                        q_head_h = head_projection(output_h, d_model, n_head, d_head, initializer, 'q')
                        k_head_h = head_projection(cat, d_model, n_head, d_head, initializer, 'k')
                        v_head_h = head_projection(cat, d_model, n_head, d_head, initializer, 'v')
                        k_head_r = head_projection(pos_emb, d_model, n_head, d_head, initializer, 'r')
                        attn_vec = rel_attn_core(q_head_h, k_head_h, v_head_h, k_head_r, seg_embed_i, seg_mat,
                                                 r_w_bias if not untie_r else r_w_bias[i], r_r_bias if not untie_r else r_r_bias[i],
                                                 r_s_bias_i, non_tgt_mask, dropatt, is_training, scale)
                        output_h = post_attention(output_h, attn_vec, d_model, n_head, d_head, dropout, is_training, initializer)
                    output_h = positionwise_ffn(inp=output_h, d_model=d_model, d_inner=d_inner, dropout=dropout, kernel_initializer=initializer,
                                                activation_type=ff_activation, is_training=is_training)
            output = tf.layers.dropout(output_h, dropout, training=is_training)
            return output, new_mems, lookup_table
    def lm_loss(hidden, target, n_token, d_model, initializer, lookup_table=None, tie_weight=False, bi_data=True, use_tpu=False):
        with tf.variable_scope('lm_loss'):
            if tie_weight:
                softmax_w = lookup_table
            else:
                softmax_w = tf.get_variable('weight', [n_token, d_model], dtype=hidden.dtype, initializer=initializer)
            softmax_b = tf.get_variable('bias', [n_token], dtype=hidden.dtype, initializer=tf.zeros_initializer())
            logits = tf.einsum('ibd,nd->ibn', hidden, softmax_w) + softmax_b
            if use_tpu:
                one_hot_target = tf.one_hot(target, n_token, dtype=logits.dtype)
                loss = -tf.reduce_sum(tf.nn.log_softmax(logits) * one_hot_target, -1)
            else:
                loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logits)
            return loss
    tf.set_random_seed(2)
    S, B, V = 5, 2, 11
    inp = tf.placeholder(tf.int32, [S, B]); seg = tf.placeholder(tf.int32, [S, B]); tgt = tf.placeholder(tf.int32, [S, B])
    inmask = tf.placeholder(tf.float32, [S, B]); perm = tf.placeholder(tf.float32, [S, S, B])
    mems_in = [tf.placeholder(tf.float32, [3, B, 8]) for _ in range(2)]
    initializer = tf.initializers.random_normal(stddev=0.02, seed=None)
    out, new_mems, lt = transformer_xl(inp, V, 2, 8, 2, 4, 16, 0.0, 0.0, 'bi', False, initializer, True, mem_len=3, mems=mems_in,
                                       seg_id=seg, input_mask=inmask, perm_mask=perm, ff_activation='gelu', untie_r=True)
    print(out, [m.name for m in new_mems], lt)
    loss = tf.reduce_mean(lm_loss(out, tgt, V, 8, initializer, lookup_table=lt, tie_weight=True, use_tpu=True))
    print([v.name for v in tf.trainable_variables()])
    global_step = tf.train.get_or_create_global_step()
    learning_rate = tf.train.polynomial_decay(1e-2, global_step, 10, end_learning_rate=0.0)
    optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate, epsilon=1e-6)
    grads_and_vars = optimizer.compute_gradients(loss)
    gradients, variables = zip(*grads_and_vars)
    clipped, gnorm = tf.clip_by_global_norm(gradients, 1.0)
    train_op = optimizer.apply_gradients(zip(clipped, variables), global_step=global_step)
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        mems_val = [np.zeros([3, B, 8], np.float32) for _ in range(2)]
        for step in range(3):
            fd = {inp: rng.randint(0, V, (S, B)), seg: np.array([[0, 0], [0, 0], [1, 0], [1, 1], [1, 1]]), tgt: rng.randint(0, V, (S, B)),
                  inmask: (rng.rand(S, B) < 0.2).astype(np.float32), perm: (rng.rand(S, S, B) < 0.3).astype(np.float32)}
            fd.update(dict(zip(mems_in, mems_val)))
            l, g, _, mems_val = sess.run([loss, gnorm, train_op, new_mems], fd)
            print('step %d loss %.5f gnorm %.5f' % (step, l, g), mems_val[1].shape, np.round(mems_val[1][0, 0, :3], 4).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["xlnet"], 0)


def test_inception_score(capsys):
    # openai/improved-gan inception_score/model.py (inception-2015-12-05 .pb -> a small classifier GraphDef with its node names; set_shape over the imported outputs; 10 images)
    # openai/improved-gan inception_score/model.py (inception-2015-12-05 .pb -> a small classifier GraphDef with the same node names; 10 images)
    import math
    with tf.Graph().as_default() as mg:
        inp = tf.placeholder(tf.float32, [1, 8, 8, 3], name='DecodeJpeg')
        x = tf.expand_dims(inp[0], 0)  # ExpandDims:0, shape (1, 8, 8, 3)
        rng = np.random.RandomState(3)
        h = tf.nn.relu(tf.nn.conv2d(x, tf.constant(rng.randn(3, 3, 3, 6).astype(np.float32) * 0.05), [1, 2, 2, 1], 'SAME', name='conv'))
        pool3 = tf.nn.avg_pool(h, [1, 4, 4, 1], [1, 1, 1, 1], 'VALID', name='pool_3')
        with tf.variable_scope('softmax'):
            w = tf.constant(rng.randn(6, 5).astype(np.float32), name='weights')
            logits = tf.matmul(tf.reshape(pool3, [1, 6]), w, name='logits/MatMul')
        tf.nn.softmax(logits, name='softmax')
        graph_bytes = mg.as_graph_def().SerializeToString()
    softmax = None
    def get_inception_score(images, splits=10):
        assert(type(images) == list)
        assert(type(images[0]) == np.ndarray)
        assert(len(images[0].shape) == 3)
        assert(np.max(images[0]) > 10)
        assert(np.min(images[0]) >= 0.0)
        inps = []
        for img in images:
            img = img.astype(np.float32)
            inps.append(np.expand_dims(img, 0))
        bs = 3
        with tf.Session() as sess:
            preds = []
            n_batches = int(math.ceil(float(len(inps)) / float(bs)))
            for i in range(n_batches):
                sys.stdout.write(".")
                sys.stdout.flush()
                inp = inps[(i * bs):min((i + 1) * bs, len(inps))]
                inp = np.concatenate(inp, 0)
                pred = sess.run(softmax, {'ExpandDims:0': inp})
                preds.append(pred)
            print()
            preds = np.concatenate(preds, 0)
            print(preds.shape, preds.dtype)
            scores = []
            for i in range(splits):
                part = preds[(i * preds.shape[0] // splits):((i + 1) * preds.shape[0] // splits), :]
                kl = part * (np.log(part) - np.log(np.expand_dims(np.mean(part, 0), 0)))
                kl = np.mean(np.sum(kl, 1))
                scores.append(np.exp(kl))
            return np.mean(scores), np.std(scores)
    def _init_inception():
        nonlocal softmax  # the repository: global (a module there)
        graph_def = tf.GraphDef()
        graph_def.ParseFromString(graph_bytes)
        _ = tf.import_graph_def(graph_def, name='')
        print(_)
        with tf.Session() as sess:
            pool3 = sess.graph.get_tensor_by_name('pool_3:0')
            ops = pool3.graph.get_operations()
            print(len(ops), pool3)
            for op_idx, op in enumerate(ops):
                for o in op.outputs:
                    shape = o.get_shape()
                    shape = [s.value for s in shape]
                    new_shape = []
                    for j, s in enumerate(shape):
                        if s == 1 and j == 0:
                            new_shape.append(None)
                        else:
                            new_shape.append(s)
                    o.set_shape(tf.TensorShape(new_shape))
            print(pool3, sess.graph.get_tensor_by_name('ExpandDims:0'))
            w = sess.graph.get_operation_by_name("softmax/logits/MatMul").inputs[1]
            print(w)
            logits = tf.matmul(tf.squeeze(pool3, [1, 2]), w)
            softmax = tf.nn.softmax(logits)
            print(logits, softmax)
    if softmax is None:
        _init_inception()
    rng = np.random.RandomState(0)
    images = [rng.uniform(0, 255, (8, 8, 3)) for _ in range(10)]
    try:
        print(get_inception_score(images, splits=2))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["inception_score"], 0)


def test_improved_gan_ops(capsys):
    # openai/improved-gan imagenet/ops.py (batch_norm_with_global_normalization, conv_batch_norm with EMA, deconv2d, special_deconv2d, lrelu, maxout, linear) in a small DCGAN; Python 2 prints made calls
    # openai/improved-gan imagenet/ops.py (batch_norm via batch_norm_with_global_normalization, conv_batch_norm with EMA, deconv2d,
    # special_deconv2d, lrelu, maxout, linear) in a small generator/discriminator, one Adam step; py2 prints made calls
    rng = np.random.RandomState([2016, 6, 1])
    class batch_norm(object):
        def __init__(self, batch_size, epsilon=1e-5, momentum=0.1, name="batch_norm", half=None):
            del momentum
            with tf.variable_scope(name) as scope:
                self.epsilon = epsilon
                self.batch_size = batch_size
                self.name = name
        def __call__(self, x, train=True):
            shape = x.get_shape().as_list()
            needs_reshape = len(shape) != 4
            if needs_reshape:
                orig_shape = shape
                if len(shape) == 2:
                    x = tf.reshape(x, [shape[0], 1, 1, shape[1]])
                shape = x.get_shape().as_list()
            with tf.variable_scope(self.name) as scope:
                self.gamma = tf.get_variable("gamma", [shape[-1]], initializer=tf.random_normal_initializer(1., 0.02))
                self.beta = tf.get_variable("beta", [shape[-1]], initializer=tf.constant_initializer(0.))
                self.mean, self.variance = tf.nn.moments(x, [0, 1, 2])
                out = tf.nn.batch_norm_with_global_normalization(x, self.mean, self.variance, self.beta, self.gamma, self.epsilon, scale_after_normalization=True)
                if needs_reshape:
                    out = tf.reshape(out, orig_shape)
                return out
    TRAIN_MODE = True
    class conv_batch_norm(object):
        def __init__(self, name="batch_norm", epsilon=1e-5, momentum=0.1, in_dim=None):
            with tf.variable_scope(name) as scope:
                self.epsilon = epsilon
                self.momentum = momentum
                self.name = name
                self.in_dim = in_dim
                self.train = TRAIN_MODE
                self.ema = tf.train.ExponentialMovingAverage(decay=0.9)
                print("initing %s in train: %s" % (scope.name, self.train))
        def __call__(self, x):
            shape = x.get_shape()
            shp = self.in_dim or shape[-1]
            with tf.variable_scope(self.name) as scope:
                self.gamma = tf.get_variable("gamma", [shp], initializer=tf.random_normal_initializer(1., 0.02))
                self.beta = tf.get_variable("beta", [shp], initializer=tf.constant_initializer(0.))
                self.mean, self.variance = tf.nn.moments(x, [0, 1, 2])
                self.mean.set_shape((shp,))
                self.variance.set_shape((shp,))
                self.ema_apply_op = self.ema.apply([self.mean, self.variance])
                if self.train:
                    normalized_x = tf.nn.batch_norm_with_global_normalization(x, self.mean, self.variance, self.beta, self.gamma, self.epsilon, scale_after_normalization=True)
                else:
                    normalized_x = tf.nn.batch_norm_with_global_normalization(x, self.ema.average(self.mean), self.ema.average(self.variance), self.beta,
                                                                              self.gamma, self.epsilon, scale_after_normalization=True)
                return normalized_x
    class fc_batch_norm(conv_batch_norm):
        def __call__(self, fc_x):
            ori_shape = fc_x.get_shape().as_list()
            if ori_shape[0] is None:
                ori_shape[0] = -1
            new_shape = [ori_shape[0], 1, 1, ori_shape[1]]
            x = tf.reshape(fc_x, new_shape)
            normalized_x = super(fc_batch_norm, self).__call__(x)
            return tf.reshape(normalized_x, ori_shape)
    def conv2d(input_, output_dim, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="conv2d"):
        with tf.variable_scope(name):
            w = tf.get_variable('w', [k_h, k_w, input_.get_shape()[-1], output_dim], initializer=tf.truncated_normal_initializer(stddev=stddev))
            conv = tf.nn.conv2d(input_, w, strides=[1, d_h, d_w, 1], padding='SAME')
            biases = tf.get_variable('biases', [output_dim], initializer=tf.constant_initializer(0.0))
            conv = tf.nn.bias_add(conv, biases)
            return conv
    def deconv2d(input_, output_shape, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="deconv2d", with_w=False, init_bias=0.):
        with tf.variable_scope(name):
            w = tf.get_variable('w', [k_h, k_w, output_shape[-1], input_.get_shape()[-1]], initializer=tf.random_normal_initializer(stddev=stddev))
            try:
                deconv = tf.nn.conv2d_transpose(input_, w, output_shape=output_shape, strides=[1, d_h, d_w, 1])
            except AttributeError:
                deconv = tf.nn.deconv2d(input_, w, output_shape=output_shape, strides=[1, d_h, d_w, 1])
            biases = tf.get_variable('biases', [output_shape[-1]], initializer=tf.constant_initializer(init_bias))
            deconv = tf.reshape(tf.nn.bias_add(deconv, biases), deconv.get_shape())
            if with_w:
                return deconv, w, biases
            else:
                return deconv
    def special_deconv2d(input_, output_shape, k_h=6, k_w=6, d_h=2, d_w=2, stddev=0.02, name="deconv2d", with_w=False, init_bias=0.):
        assert k_h % d_h == 0
        assert k_w % d_w == 0
        with tf.variable_scope(name):
            w = tf.get_variable('w', [k_h, k_w, output_shape[-1], input_.get_shape()[-1]], initializer=tf.random_normal_initializer(stddev=stddev))
            def check_shape(h_size, im_size, stride):
                if h_size != (im_size + stride - 1) // stride:
                    print("Need h_size == (im_size + stride - 1) // stride")
                    raise ValueError()
            check_shape(int(input_.get_shape()[1]), output_shape[1] + k_h, d_h)
            check_shape(int(input_.get_shape()[2]), output_shape[2] + k_w, d_w)
            deconv = tf.nn.conv2d_transpose(input_, w, output_shape=[output_shape[0], output_shape[1] + k_h, output_shape[2] + k_w, output_shape[3]], strides=[1, d_h, d_w, 1])
            deconv = tf.slice(deconv, [0, k_h // 2, k_w // 2, 0], output_shape)
            biases = tf.get_variable('biases', [output_shape[-1]], initializer=tf.constant_initializer(init_bias))
            deconv = tf.reshape(tf.nn.bias_add(deconv, biases), deconv.get_shape())
            if with_w:
                return deconv, w, biases
            else:
                return deconv
    def lrelu(x, leak=0.2, name="lrelu"):
        with tf.variable_scope(name):
            f1 = 0.5 * (1 + leak)
            f2 = 0.5 * (1 - leak)
            return f1 * x + f2 * abs(x)
    def maxout(x, k=2):
        shape = [int(e) for e in x.get_shape()]
        ax = len(shape)
        ch = shape[-1]
        assert ch % k == 0
        shape[-1] = ch / k
        shape.append(k)
        x = tf.reshape(x, shape)
        return tf.reduce_max(x, ax)
    def linear(input_, output_size, scope=None, mean=0., stddev=0.02, bias_start=0.0, with_w=False):
        shape = input_.get_shape().as_list()
        with tf.variable_scope(scope or "Linear"):
            matrix = tf.get_variable("Matrix", [shape[1], output_size], tf.float32, tf.random_normal_initializer(mean=mean, stddev=stddev))
            bias = tf.get_variable("bias", [output_size], initializer=tf.constant_initializer(bias_start))
            if with_w:
                return tf.matmul(input_, matrix) + bias, matrix, bias
            else:
                return tf.matmul(input_, matrix) + bias
    tf.set_random_seed(5)
    B = 4
    z = tf.placeholder(tf.float32, [B, 6], name='z')
    images = tf.placeholder(tf.float32, [B, 8, 8, 3], name='images')
    with tf.variable_scope('generator'):
        g_bn0 = batch_norm(B, name='g_bn0'); g_bn1 = conv_batch_norm(name='g_bn1')
        h0, w0, b0 = linear(z, 4 * 4 * 8, 'g_h0_lin', with_w=True)
        h0 = tf.nn.relu(g_bn0(tf.reshape(h0, [B, 4, 4, 8])))
        h1 = tf.nn.relu(g_bn1(deconv2d(h0, [B, 7, 7, 6], name='g_h1')))
        G = tf.nn.tanh(special_deconv2d(h1, [B, 8, 8, 3], name='g_h2'))
    print(h0, h1, G, g_bn1.ema_apply_op.name)
    def discriminator(image, reuse=False):
        with tf.variable_scope('discriminator', reuse=reuse):
            d_bn1 = batch_norm(B, name='d_bn1')
            h0 = lrelu(conv2d(image, 4, name='d_h0_conv'))
            h1 = linear(tf.reshape(h0, [B, -1]), 8, 'd_h1_lin')
            h1 = lrelu(d_bn1(h1), name='lrelu1')
            h2 = linear(h1, 1, 'd_h2_lin')
            return tf.nn.sigmoid(h2), h2
    D, D_logits = discriminator(images)
    D_, D_logits_ = discriminator(G, reuse=True)
    d_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_logits, labels=tf.ones_like(D))) + \
        tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_logits_, labels=tf.zeros_like(D_)))
    g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_logits_, labels=tf.ones_like(D_)))
    t_vars = tf.trainable_variables()
    d_vars = [var for var in t_vars if 'd_' in var.name]
    g_vars = [var for var in t_vars if 'g_' in var.name]
    print([v.name for v in g_vars])
    print([v.name for v in tf.global_variables() if 'ExponentialMovingAverage' in v.name])
    d_optim = tf.train.AdamOptimizer(0.0002, beta1=0.5).minimize(d_loss, var_list=d_vars)
    g_optim = tf.train.AdamOptimizer(0.0002, beta1=0.5).minimize(g_loss, var_list=g_vars)
    try:
        with tf.variable_scope('discriminator', reuse=True):
            fc_batch_norm(name='d_bn2')(tf.zeros([B, 3]))
    except ValueError as e:
        print(type(e).__name__, str(e).splitlines()[0])
    try:
        maxout(h1)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    print(lrelu(tf.constant([-1.0, 2.0])).name)
    data = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for it in range(3):
            fd = {z: data.uniform(-1, 1, (B, 6)), images: data.uniform(-1, 1, (B, 8, 8, 3))}
            _, dl = sess.run([d_optim, d_loss], fd)
            _, gl, _ = sess.run([g_optim, g_loss, g_bn1.ema_apply_op], fd)
            print('%d d_loss %.5f g_loss %.5f' % (it, dl, gl))
        print(np.round(sess.run(g_bn1.ema.average(g_bn1.mean)), 5).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["improved_gan_ops"], 0)


def test_vat(capsys):
    # takerum/vat_tf vat.py + layers.py + cnn.py + train_semisup.py (virtual adversarial training; widths and image size shrunk; tf.app.flags values as a plain class since pytest owns argv)
    # takerum/vat_tf vat.py + layers.py + cnn.py + train_semisup.py graph (virtual adversarial training; conv widths and image
    # size shrunk; tf.app.flags values as a plain class, since pytest owns argv)
    import numpy
    class FLAGS:
        epsilon = 8.0; num_power_iterations = 1; xi = 1e-1
        # xi: the repository's 1e-6 makes the finite difference float32 rounding noise, in TF too
        bn_stats_decay_factor = 0.99; keep_prob_hidden = 0.5; lrelu_a = 0.1; top_bn = False
    class L:
        @staticmethod
        def lrelu(x, a=0.1):
            if a < 1e-16:
                return tf.nn.relu(x)
            else:
                return tf.maximum(x, a * x)
        @staticmethod
        def bn(x, dim, is_training=True, update_batch_stats=True, collections=None, name="bn"):
            params_shape = (dim,)
            n = tf.to_float(tf.reduce_prod(tf.shape(x)[:-1]))
            axis = list(range(int(tf.shape(x).get_shape().as_list()[0]) - 1))
            mean = tf.reduce_mean(x, axis)
            var = tf.reduce_mean(tf.pow(x - mean, 2.0), axis)
            avg_mean = tf.get_variable(name=name + "_mean", shape=params_shape, initializer=tf.constant_initializer(0.0), collections=collections, trainable=False)
            avg_var = tf.get_variable(name=name + "_var", shape=params_shape, initializer=tf.constant_initializer(1.0), collections=collections, trainable=False)
            gamma = tf.get_variable(name=name + "_gamma", shape=params_shape, initializer=tf.constant_initializer(1.0), collections=collections)
            beta = tf.get_variable(name=name + "_beta", shape=params_shape, initializer=tf.constant_initializer(0.0), collections=collections)
            if is_training:
                avg_mean_assign_op = tf.no_op()
                avg_var_assign_op = tf.no_op()
                if update_batch_stats:
                    avg_mean_assign_op = tf.assign(avg_mean, FLAGS.bn_stats_decay_factor * avg_mean + (1 - FLAGS.bn_stats_decay_factor) * mean)
                    avg_var_assign_op = tf.assign(avg_var, FLAGS.bn_stats_decay_factor * avg_var + (n / (n - 1)) * (1 - FLAGS.bn_stats_decay_factor) * var)
                with tf.control_dependencies([avg_mean_assign_op, avg_var_assign_op]):
                    z = (x - mean) / tf.sqrt(1e-6 + var)
            else:
                z = (x - avg_mean) / tf.sqrt(1e-6 + avg_var)
            return gamma * z + beta
        @staticmethod
        def fc(x, dim_in, dim_out, seed=None, name='fc'):
            weights_initializer = tf.contrib.layers.variance_scaling_initializer(seed=seed)
            weights = tf.get_variable(name + '_W', shape=[dim_in, dim_out], initializer=weights_initializer)
            biases = tf.get_variable(name + '_b', shape=[dim_out], initializer=tf.constant_initializer(0.0))
            return tf.nn.xw_plus_b(x, weights, biases)
        @staticmethod
        def conv(x, ksize, stride, f_in, f_out, padding='SAME', use_bias=False, seed=None, name='conv'):
            shape = [ksize, ksize, f_in, f_out]
            initializer = tf.contrib.layers.variance_scaling_initializer(seed=seed)
            weights = tf.get_variable(name + '_W', shape=shape, dtype='float', initializer=initializer)
            x = tf.nn.conv2d(x, weights, [1, stride, stride, 1], padding=padding)
            if use_bias:
                bias = tf.get_variable(name + '_b', shape=[f_out], dtype='float', initializer=tf.zeros_initializer)
                return tf.nn.bias_add(x, bias)
            else:
                return x
        @staticmethod
        def max_pool(x, ksize=2, stride=2):
            return tf.nn.max_pool(x, ksize=[1, ksize, ksize, 1], strides=[1, stride, stride, 1], padding='SAME')
        @staticmethod
        def ce_loss(logit, y):
            return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logit, labels=y))
        @staticmethod
        def accuracy(logit, y):
            pred = tf.argmax(logit, 1)
            true = tf.argmax(y, 1)
            return tf.reduce_mean(tf.to_float(tf.equal(pred, true)))
        @staticmethod
        def logsoftmax(x):
            xdev = x - tf.reduce_max(x, 1, keep_dims=True)
            lsm = xdev - tf.log(tf.reduce_sum(tf.exp(xdev), 1, keep_dims=True))
            return lsm
        @staticmethod
        def kl_divergence_with_logit(q_logit, p_logit):
            q = tf.nn.softmax(q_logit)
            qlogq = tf.reduce_mean(tf.reduce_sum(q * L.logsoftmax(q_logit), 1))
            qlogp = tf.reduce_mean(tf.reduce_sum(q * L.logsoftmax(p_logit), 1))
            return qlogq - qlogp
        @staticmethod
        def entropy_y_x(logit):
            p = tf.nn.softmax(logit)
            return -tf.reduce_mean(tf.reduce_sum(p * L.logsoftmax(logit), 1))
    def cnn_logit(x, is_training=True, update_batch_stats=True, stochastic=True, seed=1234):
        h = x
        rng = numpy.random.RandomState(seed)
        h = L.conv(h, ksize=3, stride=1, f_in=3, f_out=8, seed=rng.randint(123456), name='c1')
        h = L.lrelu(L.bn(h, 8, is_training=is_training, update_batch_stats=update_batch_stats, name='b1'), FLAGS.lrelu_a)
        h = L.max_pool(h, ksize=2, stride=2)
        h = tf.nn.dropout(h, keep_prob=FLAGS.keep_prob_hidden, seed=rng.randint(123456)) if stochastic else h
        h = L.conv(h, ksize=3, stride=1, f_in=8, f_out=8, seed=rng.randint(123456), padding="VALID", name='c7')
        h = L.lrelu(L.bn(h, 8, is_training=is_training, update_batch_stats=update_batch_stats, name='b7'), FLAGS.lrelu_a)
        h = tf.reduce_mean(h, reduction_indices=[1, 2])
        h = L.fc(h, 8, 10, seed=rng.randint(123456), name='fc')
        return h
    def logit(x, is_training=True, update_batch_stats=True, stochastic=True, seed=1234):
        return cnn_logit(x, is_training=is_training, update_batch_stats=update_batch_stats, stochastic=stochastic, seed=seed)
    def forward(x, is_training=True, update_batch_stats=True, seed=1234):
        if is_training:
            return logit(x, is_training=True, update_batch_stats=update_batch_stats, stochastic=True, seed=seed)
        else:
            return logit(x, is_training=False, update_batch_stats=update_batch_stats, stochastic=False, seed=seed)
    def get_normalized_vector(d):
        d /= (1e-12 + tf.reduce_max(tf.abs(d), range(1, len(d.get_shape())), keep_dims=True))
        d /= tf.sqrt(1e-6 + tf.reduce_sum(tf.pow(d, 2.0), range(1, len(d.get_shape())), keep_dims=True))
        return d
    def generate_virtual_adversarial_perturbation(x, logit, is_training=True):
        d = tf.random_normal(shape=tf.shape(x))
        for _ in range(FLAGS.num_power_iterations):
            d = FLAGS.xi * get_normalized_vector(d)
            logit_p = logit
            logit_m = forward(x + d, update_batch_stats=False, is_training=is_training)
            dist = L.kl_divergence_with_logit(logit_p, logit_m)
            grad = tf.gradients(dist, [d], aggregation_method=2)[0]
            d = tf.stop_gradient(grad)
        return FLAGS.epsilon * get_normalized_vector(d)
    def virtual_adversarial_loss(x, logit, is_training=True, name="vat_loss"):
        r_vadv = generate_virtual_adversarial_perturbation(x, logit, is_training=is_training)
        logit = tf.stop_gradient(logit)
        logit_p = logit
        logit_m = forward(x + r_vadv, update_batch_stats=False, is_training=is_training)
        loss = L.kl_divergence_with_logit(logit_p, logit_m)
        return tf.identity(loss, name=name)
    def generate_adversarial_perturbation(x, loss):
        grad = tf.gradients(loss, [x], aggregation_method=2)[0]
        grad = tf.stop_gradient(grad)
        return FLAGS.epsilon * get_normalized_vector(grad)
    def adversarial_loss(x, y, loss, is_training=True, name="at_loss"):
        r_adv = generate_adversarial_perturbation(x, loss)
        logit = forward(x + r_adv, is_training=is_training, update_batch_stats=False)
        loss = L.ce_loss(logit, y)
        return loss
    tf.set_random_seed(11)
    x = tf.placeholder(tf.float32, [4, 8, 8, 3]); y = tf.placeholder(tf.float32, [4, 10]); ul_x = tf.placeholder(tf.float32, [6, 8, 8, 3])
    lr = tf.placeholder(tf.float32, shape=[], name="learning_rate")
    mom = tf.placeholder(tf.float32, shape=[], name="momentum")
    global_step = tf.get_variable(name="global_step", shape=[], dtype=tf.float32, initializer=tf.constant_initializer(0.0), trainable=False)
    try:  # the repository's Python 2 code: a range is a list there, not in Python 3
        get_normalized_vector(tf.ones([2, 3, 4]))
    except ValueError as e:
        print(type(e).__name__, e)
    def get_normalized_vector(d):  # as Python 3 ports write it
        d /= (1e-12 + tf.reduce_max(tf.abs(d), list(range(1, len(d.get_shape()))), keep_dims=True))
        d /= tf.sqrt(1e-6 + tf.reduce_sum(tf.pow(d, 2.0), list(range(1, len(d.get_shape()))), keep_dims=True))
        return d
    with tf.variable_scope("CNN") as scope:
        logit_l = forward(x)
        nll_loss = L.ce_loss(logit_l, y)
        scope.reuse_variables()
        ul_logit = forward(ul_x, is_training=True, update_batch_stats=False)
        vat_loss = virtual_adversarial_loss(ul_x, ul_logit)
        ent_loss = L.entropy_y_x(ul_logit)
        at_loss = adversarial_loss(x, y, nll_loss)
        loss = nll_loss + vat_loss + ent_loss + at_loss
    opt = tf.train.AdamOptimizer(learning_rate=lr, beta1=mom)
    tvars = tf.trainable_variables()
    grads_and_vars = opt.compute_gradients(loss, tvars)
    train_op = opt.apply_gradients(grads_and_vars, global_step=global_step)
    with tf.variable_scope("CNN", reuse=True) as scope:
        logit_eval = forward(x, is_training=False, update_batch_stats=False)
        acc = L.accuracy(logit_eval, y)
    print(vat_loss, at_loss, [v.name for v in tvars])
    print([v.name for v in tf.global_variables() if not v.trainable][:4])
    rng = numpy.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer(), feed_dict={mom: 0.9})  # beta1_power starts from the fed momentum
        for it in range(3):
            fd = {x: rng.randn(4, 8, 8, 3), y: numpy.eye(10)[rng.randint(0, 10, 4)], ul_x: rng.randn(6, 8, 8, 3), lr: 0.001, mom: 0.9}
            _, l, vl, al = sess.run([train_op, loss, vat_loss, at_loss], fd)
            print('%d loss %.5f vat %.6f at %.5f' % (it, l, vl, al))
        print(sess.run(global_step), sess.run(acc, fd), numpy.round(sess.run('CNN/b1_mean:0'), 5).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["vat"], 0.0002)


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "xlnet": [
        'Tensor("transformer/layer_1/ff/LayerNorm/batchnorm/add_1:0", shape=(5, 2, 8), dtype=float32) [\'transformer/StopGradient:0\', \'transformer/StopGradient_1:0\'] <tf.Variable \'transformer/word_embedding/lookup_table:0\' shape=(11, 8) dtype=float32_ref>',
        "['transformer/r_w_bias:0', 'transformer/r_r_bias:0', 'transformer/word_embedding/lookup_table:0', 'transformer/r_s_bias:0', 'transformer/seg_embed:0', 'transformer/layer_0/rel_attn/q/kernel:0', 'transformer/layer_0/rel_attn/k/kernel:0', 'transformer/layer_0/rel_attn/v/kernel:0', 'transformer/layer_0/rel_attn/r/kernel:0', 'transformer/layer_0/rel_attn/o/kernel:0', 'transformer/layer_0/rel_attn/LayerNorm/beta:0', 'transformer/layer_0/rel_attn/LayerNorm/gamma:0', 'transformer/layer_0/ff/layer_1/kernel:0', 'transformer/layer_0/ff/layer_1/bias:0', 'transformer/layer_0/ff/layer_2/kernel:0', 'transformer/layer_0/ff/layer_2/bias:0', 'transformer/layer_0/ff/LayerNorm/beta:0', 'transformer/layer_0/ff/LayerNorm/gamma:0', 'transformer/layer_1/rel_attn/q/kernel:0', 'transformer/layer_1/rel_attn/k/kernel:0', 'transformer/layer_1/rel_attn/v/kernel:0', 'transformer/layer_1/rel_attn/r/kernel:0', 'transformer/layer_1/rel_attn/o/kernel:0', 'transformer/layer_1/rel_attn/LayerNorm/beta:0', 'transformer/layer_1/rel_attn/LayerNorm/gamma:0', 'transformer/layer_1/ff/layer_1/kernel:0', 'transformer/layer_1/ff/layer_1/bias:0', 'transformer/layer_1/ff/layer_2/kernel:0', 'transformer/layer_1/ff/layer_2/bias:0', 'transformer/layer_1/ff/LayerNorm/beta:0', 'transformer/layer_1/ff/LayerNorm/gamma:0', 'lm_loss/bias:0']",
        'step 0 loss 2.44315 gnorm 1.51408 (3, 2, 8) [0.30630001425743103, 0.5360000133514404, -0.27720001339912415]',
        'step 1 loss 2.41539 gnorm 1.04394 (3, 2, 8) [1.6674000024795532, -1.42739999294281, -0.6571999788284302]',
        'step 2 loss 2.37817 gnorm 1.01877 (3, 2, 8) [-2.0885000228881836, 0.8133000135421753, -0.13740000128746033]',
    ],
    "inception_score": [
        'None',
        '16 Tensor("pool_3:0", shape=(1, 1, 1, 6), dtype=float32)',
        'Tensor("pool_3:0", shape=(1, 1, 1, 6), dtype=float32) Tensor("ExpandDims:0", shape=(1, 8, 8, 3), dtype=float32)',
        'Tensor("softmax/weights:0", shape=(6, 5), dtype=float32)',
        'Tensor("MatMul:0", shape=(1, 5), dtype=float32) Tensor("Softmax:0", shape=(1, 5), dtype=float32)',
        ".ValueError Cannot feed value of shape (3, 8, 8, 3) for Tensor 'ExpandDims:0', which has shape '(1, 8, 8, 3)'",
    ],
    "improved_gan_ops": [
        'initing generator/g_bn1 in train: True',
        'Tensor("generator/Relu:0", shape=(4, 4, 4, 8), dtype=float32) Tensor("generator/Relu_1:0", shape=(4, 7, 7, 6), dtype=float32) Tensor("generator/Tanh:0", shape=(4, 8, 8, 3), dtype=float32) generator/g_bn1_1/ExponentialMovingAverage',
        "['generator/g_h0_lin/Matrix:0', 'generator/g_h0_lin/bias:0', 'generator/g_bn0/gamma:0', 'generator/g_bn0/beta:0', 'generator/g_h1/w:0', 'generator/g_h1/biases:0', 'generator/g_bn1/gamma:0', 'generator/g_bn1/beta:0', 'generator/g_h2/w:0', 'generator/g_h2/biases:0']",
        "['generator/g_bn1/generator/g_bn1_1/moments/Squeeze/ExponentialMovingAverage:0', 'generator/g_bn1/generator/g_bn1_1/moments/Squeeze_1/ExponentialMovingAverage:0']",
        'initing discriminator/d_bn2 in train: True',
        'ValueError Variable discriminator/d_bn2/gamma does not exist, or was not created with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?',
        "TypeError Value passed to parameter 'shape' has DataType float32 not in list of allowed values: int32, int64",
        'lrelu/add:0',
        '0 d_loss 1.37592 g_loss 0.68971',
        '1 d_loss 1.37703 g_loss 0.68864',
        '2 d_loss 1.37961 g_loss 0.68780',
        '[0.0009599999757483602, 0.005030000116676092, -0.0038999998942017555, -0.007240000180900097, -0.00419999985024333, -0.005319999996572733]',
    ],
    "vat": [
        "ValueError Tried to convert 'reduction_indices' to a tensor and failed. Error: Argument must be a dense tensor: range(1, 3) - got shape [2], but wanted [].",
        'Tensor("CNN/vat_loss:0", shape=(), dtype=float32) Tensor("CNN/Mean_31:0", shape=(), dtype=float32) [\'CNN/c1_W:0\', \'CNN/b1_gamma:0\', \'CNN/b1_beta:0\', \'CNN/c7_W:0\', \'CNN/b7_gamma:0\', \'CNN/b7_beta:0\', \'CNN/fc_W:0\', \'CNN/fc_b:0\']',
        "['global_step:0', 'CNN/b1_mean:0', 'CNN/b1_var:0', 'CNN/b7_mean:0']",
        '0 loss 7.08890 vat 0.352804 at 2.76171',
        '1 loss 8.51091 vat 0.401510 at 3.73453',
        '2 loss 7.44154 vat 0.276240 at 3.09141',
        '3.0 0.0 [0.00016999999934341758, -0.001879999996162951, -4.999999873689376e-05, -0.0009800000116229057, 0.0013500000350177288, -0.001019999966956675, -0.00016999999934341758, -0.0006600000197067857]',
    ],
}


def test_constant_of_a_range_is_not_dense():
    # TF 1.15's make_tensor_proto (measured): NumPy reads a range as a row, TF's dense shape of
    # the value does not, so a range anywhere (alone, in a list, as an op's list input) is a
    # ValueError; an op input says which argument it was converting
    cases = [
        (lambda: tf.constant(range(3)), "Argument must be a dense tensor: range(0, 3) - got shape [3], but wanted []."),
        (lambda: tf.constant(range(3), dtype=tf.int64), "Argument must be a dense tensor: range(0, 3) - got shape [3], but wanted []."),
        (lambda: tf.constant([range(2)], dtype=tf.int32), "Argument must be a dense tensor: [range(0, 2)] - got shape [1, 2], but wanted [1]."),
        (lambda: tf.convert_to_tensor(range(0)), "Argument must be a dense tensor: range(0, 0) - got shape [0], but wanted []."),
        (lambda: tf.reduce_max(tf.ones([2, 3, 4]), range(1, 3), keep_dims=True),
         "Tried to convert 'reduction_indices' to a tensor and failed. Error: Argument must be a dense tensor: range(1, 3) - got shape [2], but wanted []."),
        (lambda: tf.transpose(tf.ones([2, 3, 4]), range(3)),
         "Tried to convert 'perm' to a tensor and failed. Error: Argument must be a dense tensor: range(0, 3) - got shape [3], but wanted []."),
    ]
    for make, message in cases:
        with pytest.raises(ValueError) as e:
            make()
        assert str(e.value) == message
    assert tf.constant(list(range(3))).shape.as_list() == [3]


def test_placeholder_with_default_conversion_errors_name_the_input():
    # TF 1.15's op wrapper converting the default (measured): a ValueError says it was
    # converting 'input'
    for value, error in [
        (None, "None values not supported."),
        ([[1], [2, 3]], "Argument must be a dense tensor: [[1], [2, 3]] - got shape [2], but wanted [2, 1]."),
        (range(2), "Argument must be a dense tensor: range(0, 2) - got shape [2], but wanted []."),
    ]:
        with pytest.raises(ValueError) as e:
            tf.placeholder_with_default(value, [2])
        assert str(e.value) == "Tried to convert 'input' to a tensor and failed. Error: " + error
