"""TF 1.x research programs tideflow had not seen (neural style transfer, fast style transfer,
DeepDream, Glow, ELMo's biLM, XLNet), reduced to standalone forms with small synthetic data: API
calls, graph structure and training loops kept, sizes and step counts shrunk, no downloads. Each
test runs the reduced program and compares what it prints, line by line, with what TF 1.15
(tensorflow-cpu 1.15.0) printed running the same program with the same seeds (measured). Where
a program trains through convolutions its numbers may differ from TF 1.15 in the last float32
digits (summation order), so those are compared to a stated relative tolerance; all text is
compared exactly. The programs keep their authors' code style, hence the lint exemptions."""
# ruff: noqa: UP031, UP032, UP034

import re

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


_NUM = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


def _same(printed, expected, rtol):
    """Lines equal as text with numbers masked, and numbers equal within rtol (0: exactly)."""
    assert len(printed) == len(expected), (printed, expected)
    for got, want in zip(printed, expected):
        if rtol == 0:
            assert got == want
            continue
        assert _NUM.sub("#", got) == _NUM.sub("#", want), (got, want)
        g = [float(x) for x in _NUM.findall(got)]
        w = [float(x) for x in _NUM.findall(want)]
        np.testing.assert_allclose(g, w, rtol=rtol, err_msg=want)


def test_xlnet(capsys):
    # zihangdai/xlnet modeling.py (relative attention with einsum, rel_shift, segment encoding, mems, gelu FFN, tied lm_loss)
    # zihangdai/xlnet modeling.py (relative attention with einsum, rel_shift, segment encoding, mems, gelu FFN), sizes shrunk
    import numpy as np
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


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "xlnet": [
        'Tensor("transformer/layer_1/ff/LayerNorm/batchnorm/add_1:0", shape=(5, 2, 8), dtype=float32) [\'transformer/StopGradient:0\', \'transformer/StopGradient_1:0\'] <tf.Variable \'transformer/word_embedding/lookup_table:0\' shape=(11, 8) dtype=float32_ref>',
        "['transformer/r_w_bias:0', 'transformer/r_r_bias:0', 'transformer/word_embedding/lookup_table:0', 'transformer/r_s_bias:0', 'transformer/seg_embed:0', 'transformer/layer_0/rel_attn/q/kernel:0', 'transformer/layer_0/rel_attn/k/kernel:0', 'transformer/layer_0/rel_attn/v/kernel:0', 'transformer/layer_0/rel_attn/r/kernel:0', 'transformer/layer_0/rel_attn/o/kernel:0', 'transformer/layer_0/rel_attn/LayerNorm/beta:0', 'transformer/layer_0/rel_attn/LayerNorm/gamma:0', 'transformer/layer_0/ff/layer_1/kernel:0', 'transformer/layer_0/ff/layer_1/bias:0', 'transformer/layer_0/ff/layer_2/kernel:0', 'transformer/layer_0/ff/layer_2/bias:0', 'transformer/layer_0/ff/LayerNorm/beta:0', 'transformer/layer_0/ff/LayerNorm/gamma:0', 'transformer/layer_1/rel_attn/q/kernel:0', 'transformer/layer_1/rel_attn/k/kernel:0', 'transformer/layer_1/rel_attn/v/kernel:0', 'transformer/layer_1/rel_attn/r/kernel:0', 'transformer/layer_1/rel_attn/o/kernel:0', 'transformer/layer_1/rel_attn/LayerNorm/beta:0', 'transformer/layer_1/rel_attn/LayerNorm/gamma:0', 'transformer/layer_1/ff/layer_1/kernel:0', 'transformer/layer_1/ff/layer_1/bias:0', 'transformer/layer_1/ff/layer_2/kernel:0', 'transformer/layer_1/ff/layer_2/bias:0', 'transformer/layer_1/ff/LayerNorm/beta:0', 'transformer/layer_1/ff/LayerNorm/gamma:0', 'lm_loss/bias:0']",
        'step 0 loss 2.44315 gnorm 1.51408 (3, 2, 8) [0.30630001425743103, 0.5360000133514404, -0.27720001339912415]',
        'step 1 loss 2.41539 gnorm 1.04394 (3, 2, 8) [1.6674000024795532, -1.42739999294281, -0.6571999788284302]',
        'step 2 loss 2.37817 gnorm 1.01877 (3, 2, 8) [-2.0885000228881836, 0.8133000135421753, -0.13740000128746033]',
    ],
}
