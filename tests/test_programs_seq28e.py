"""TF 1.x sequence labelling, chatbot and audio programs (zh-NER-TF, practical_seq2seq, Tacotron-2's Griffin-Lim) tideflow had not seen, reduced to standalone forms with small synthetic data
(API calls, graph structure and training loops kept; sizes and step counts shrunk; the
repository and path named in each test's first comment). Each prints what TF 1.15
(tensorflow-cpu 1.15.0) printed running the same program with the same seeds (measured),
compared line by line.
practical_seq2seq's second embedding_rnn_seq2seq deep-copies the cell the first one built:
TF 1.15 fails there (a TypeError from pickling the graph's lock), and so does tideflow while
the cell holds a tensor (its keep-prob placeholder); a cell holding only variables tideflow
copies unbuilt (its 0.x-program leniency)."""
# ruff: noqa: BLE001, C417, F821, F841, I001, RUF059, UP004, UP030, UP031, UP032

import numpy as np
import pytest

import tideflow as tf
from tests.printed_programs import same_printed as _same


@pytest.fixture(autouse=True)
def _fresh_graph():
    # (practical_seq2seq calls tf.reset_default_graph itself: no graph context is entered)
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_zh_ner(capsys):
    # Determined22/zh-NER-TF model.py (BiLSTM_CRF: pretrained-embedding Variable, LSTMCell bidirectional_dynamic_rnn, crf_log_likelihood or softmax, clip_by_value on each gradient, optimizer by name) + data.py (pad_sequences, batch_yield), sizes shrunk, random data
    LSTMCell = tf.contrib.rnn.LSTMCell
    crf_log_likelihood = tf.contrib.crf.crf_log_likelihood
    viterbi_decode = tf.contrib.crf.viterbi_decode
    tag2label = {"O": 0, "B-PER": 1, "I-PER": 2, "B-LOC": 3, "I-LOC": 4}
    def pad_sequences(sequences, pad_mark=0):
        max_len = max(map(lambda x : len(x), sequences))
        seq_list, seq_len_list = [], []
        for seq in sequences:
            seq = list(seq)
            seq_ = seq[:max_len] + [pad_mark] * max(max_len - len(seq), 0)
            seq_list.append(seq_)
            seq_len_list.append(min(len(seq), max_len))
        return seq_list, seq_len_list
    def batch_yield(data, batch_size, shuffle=False):
        seqs, labels = [], []
        for (sent_, tag_) in data:
            label_ = [tag2label[tag] for tag in tag_]
            if len(seqs) == batch_size:
                yield seqs, labels
                seqs, labels = [], []
            seqs.append(sent_)
            labels.append(label_)
        if len(seqs) != 0:
            yield seqs, labels
    class BiLSTM_CRF(object):
        def __init__(self, args, embeddings, tag2label, vocab):
            self.batch_size = args.batch_size; self.epoch_num = args.epoch; self.hidden_dim = args.hidden_dim
            self.embeddings = embeddings; self.CRF = args.CRF; self.update_embedding = args.update_embedding
            self.dropout_keep_prob = args.dropout; self.optimizer = args.optimizer; self.lr = args.lr; self.clip_grad = args.clip
            self.tag2label = tag2label; self.num_tags = len(tag2label); self.vocab = vocab; self.shuffle = args.shuffle
        def build_graph(self):
            self.add_placeholders()
            self.lookup_layer_op()
            self.biLSTM_layer_op()
            self.softmax_pred_op()
            self.loss_op()
            self.trainstep_op()
            self.init_op()
        def add_placeholders(self):
            self.word_ids = tf.placeholder(tf.int32, shape=[None, None], name="word_ids")
            self.labels = tf.placeholder(tf.int32, shape=[None, None], name="labels")
            self.sequence_lengths = tf.placeholder(tf.int32, shape=[None], name="sequence_lengths")
            self.dropout_pl = tf.placeholder(dtype=tf.float32, shape=[], name="dropout")
            self.lr_pl = tf.placeholder(dtype=tf.float32, shape=[], name="lr")
        def lookup_layer_op(self):
            with tf.variable_scope("words"):
                _word_embeddings = tf.Variable(self.embeddings, dtype=tf.float32, trainable=self.update_embedding, name="_word_embeddings")
                word_embeddings = tf.nn.embedding_lookup(params=_word_embeddings, ids=self.word_ids, name="word_embeddings")
            self.word_embeddings = tf.nn.dropout(word_embeddings, self.dropout_pl)
        def biLSTM_layer_op(self):
            with tf.variable_scope("bi-lstm"):
                cell_fw = LSTMCell(self.hidden_dim)
                cell_bw = LSTMCell(self.hidden_dim)
                (output_fw_seq, output_bw_seq), _ = tf.nn.bidirectional_dynamic_rnn(cell_fw=cell_fw, cell_bw=cell_bw, inputs=self.word_embeddings, sequence_length=self.sequence_lengths, dtype=tf.float32)
                output = tf.concat([output_fw_seq, output_bw_seq], axis=-1)
                output = tf.nn.dropout(output, self.dropout_pl)
            with tf.variable_scope("proj"):
                W = tf.get_variable(name="W", shape=[2 * self.hidden_dim, self.num_tags], initializer=tf.contrib.layers.xavier_initializer(), dtype=tf.float32)
                b = tf.get_variable(name="b", shape=[self.num_tags], initializer=tf.zeros_initializer(), dtype=tf.float32)
                s = tf.shape(output)
                output = tf.reshape(output, [-1, 2*self.hidden_dim])
                pred = tf.matmul(output, W) + b
                self.logits = tf.reshape(pred, [-1, s[1], self.num_tags])
        def loss_op(self):
            if self.CRF:
                log_likelihood, self.transition_params = crf_log_likelihood(inputs=self.logits, tag_indices=self.labels, sequence_lengths=self.sequence_lengths)
                self.loss = -tf.reduce_mean(log_likelihood)
            else:
                losses = tf.nn.sparse_softmax_cross_entropy_with_logits(logits=self.logits, labels=self.labels)
                mask = tf.sequence_mask(self.sequence_lengths)
                losses = tf.boolean_mask(losses, mask)
                self.loss = tf.reduce_mean(losses)
            tf.summary.scalar("loss", self.loss)
        def softmax_pred_op(self):
            if not self.CRF:
                self.labels_softmax_ = tf.argmax(self.logits, axis=-1)
                self.labels_softmax_ = tf.cast(self.labels_softmax_, tf.int32)
        def trainstep_op(self):
            with tf.variable_scope("train_step"):
                self.global_step = tf.Variable(0, name="global_step", trainable=False)
                if self.optimizer == 'Adam':
                    optim = tf.train.AdamOptimizer(learning_rate=self.lr_pl)
                elif self.optimizer == 'Adadelta':
                    optim = tf.train.AdadeltaOptimizer(learning_rate=self.lr_pl)
                elif self.optimizer == 'Adagrad':
                    optim = tf.train.AdagradOptimizer(learning_rate=self.lr_pl)
                elif self.optimizer == 'RMSProp':
                    optim = tf.train.RMSPropOptimizer(learning_rate=self.lr_pl)
                elif self.optimizer == 'Momentum':
                    optim = tf.train.MomentumOptimizer(learning_rate=self.lr_pl, momentum=0.9)
                elif self.optimizer == 'SGD':
                    optim = tf.train.GradientDescentOptimizer(learning_rate=self.lr_pl)
                else:
                    optim = tf.train.GradientDescentOptimizer(learning_rate=self.lr_pl)
                grads_and_vars = optim.compute_gradients(self.loss)
                grads_and_vars_clip = [[tf.clip_by_value(g, -self.clip_grad, self.clip_grad), v] for g, v in grads_and_vars]
                self.train_op = optim.apply_gradients(grads_and_vars_clip, global_step=self.global_step)
        def init_op(self):
            self.init_op = tf.global_variables_initializer()
        def add_summary(self, sess):
            self.merged = tf.summary.merge_all()
        def get_feed_dict(self, seqs, labels=None, lr=None, dropout=None):
            word_ids, seq_len_list = pad_sequences(seqs, pad_mark=0)
            feed_dict = {self.word_ids: word_ids, self.sequence_lengths: seq_len_list}
            if labels is not None:
                labels_, _ = pad_sequences(labels, pad_mark=0)
                feed_dict[self.labels] = labels_
            if lr is not None:
                feed_dict[self.lr_pl] = lr
            if dropout is not None:
                feed_dict[self.dropout_pl] = dropout
            return feed_dict, seq_len_list
        def run_one_epoch(self, sess, train, dev, tag2label, epoch, saver):
            num_batches = (len(train) + self.batch_size - 1) // self.batch_size
            batches = batch_yield(train, self.batch_size, shuffle=self.shuffle)
            for step, (seqs, labels) in enumerate(batches):
                step_num = epoch * num_batches + step + 1
                feed_dict, _ = self.get_feed_dict(seqs, labels, self.lr, self.dropout_keep_prob)
                _, loss_train, summary, step_num_ = sess.run([self.train_op, self.loss, self.merged, self.global_step], feed_dict=feed_dict)
                print('epoch {}, step {}, loss: {:.4}, global_step: {}'.format(epoch + 1, step + 1, loss_train, step_num))
            label_list_dev, seq_len_list_dev = self.dev_one_epoch(sess, dev)
            print([l[:n] for l, n in zip(label_list_dev, seq_len_list_dev)])
        def dev_one_epoch(self, sess, dev):
            label_list, seq_len_list = [], []
            for seqs, labels in batch_yield(dev, self.batch_size, shuffle=False):
                label_list_, seq_len_list_ = self.predict_one_batch(sess, seqs)
                label_list.extend(label_list_)
                seq_len_list.extend(seq_len_list_)
            return label_list, seq_len_list
        def predict_one_batch(self, sess, seqs):
            feed_dict, seq_len_list = self.get_feed_dict(seqs, dropout=1.0)
            if self.CRF:
                logits, transition_params = sess.run([self.logits, self.transition_params], feed_dict=feed_dict)
                label_list = []
                for logit, seq_len in zip(logits, seq_len_list):
                    viterbi_seq, _ = viterbi_decode(logit[:seq_len], transition_params)
                    label_list.append(viterbi_seq)
                return label_list, seq_len_list
            else:
                label_list = sess.run(self.labels_softmax_, feed_dict=feed_dict)
                return [list(map(int, l)) for l in label_list], seq_len_list
    class args:
        batch_size = 3; epoch = 2; hidden_dim = 4; update_embedding = True; dropout = 0.5; lr = 0.01; clip = 5.0; shuffle = False
    rng = np.random.RandomState(7)
    tags = list(tag2label)
    train = [(list(rng.randint(1, 15, size=n)), [tags[t] for t in rng.randint(0, 5, size=n)]) for n in [4, 6, 3, 5, 2, 6, 4]]
    dev = train[:4]
    for crf, opt in [(True, 'Adam'), (False, 'Momentum'), (True, 'Adadelta')]:
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            args.CRF = crf; args.optimizer = opt
            embeddings = np.float32(np.random.RandomState(1).uniform(-0.25, 0.25, (15, 5)))
            model = BiLSTM_CRF(args, embeddings, tag2label, None)
            model.build_graph()
            saver = tf.train.Saver(tf.global_variables())
            print(opt, model.logits, model.loss, [v.name for v in tf.global_variables()][-4:])
            with tf.Session() as sess:
                sess.run(model.init_op)
                model.add_summary(sess)
                for epoch in range(model.epoch_num):
                    model.run_one_epoch(sess, train, dev, tag2label, epoch, saver)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["zh_ner"]


def test_practical_seq2seq(capsys, tmp_path):
    # suriyadeepan/practical_seq2seq seq2seq_wrapper.py (Seq2Seq: legacy_seq2seq.embedding_rnn_seq2seq over stacked DropoutWrapper(BasicLSTMCell), feed_previous decode graph sharing variables, sequence_loss) + data_utils.py (rand_batch_gen), sizes shrunk, random data
    import sys, os
    class Seq2Seq(object):
        def __init__(self, xseq_len, yseq_len, xvocab_size, yvocab_size, emb_dim, num_layers, ckpt_path, lr=0.0001, epochs=100000, model_name='seq2seq_model'):
            self.xseq_len = xseq_len
            self.yseq_len = yseq_len
            self.ckpt_path = ckpt_path
            self.epochs = epochs
            self.model_name = model_name
            def __graph__():
                tf.reset_default_graph()
                tf.set_random_seed(12)
                self.enc_ip = [tf.placeholder(shape=[None,], dtype=tf.int64, name='ei_{}'.format(t)) for t in range(xseq_len)]
                self.labels = [tf.placeholder(shape=[None,], dtype=tf.int64, name='ei_{}'.format(t)) for t in range(yseq_len)]
                self.dec_ip = [tf.zeros_like(self.enc_ip[0], dtype=tf.int64, name='GO')] + self.labels[:-1]
                self.keep_prob = tf.placeholder(tf.float32)
                basic_cell = tf.contrib.rnn.DropoutWrapper(tf.contrib.rnn.BasicLSTMCell(emb_dim, state_is_tuple=True), output_keep_prob=self.keep_prob)
                stacked_lstm = tf.contrib.rnn.MultiRNNCell([basic_cell]*num_layers, state_is_tuple=True)
                with tf.variable_scope('decoder') as scope:
                    self.decode_outputs, self.decode_states = tf.contrib.legacy_seq2seq.embedding_rnn_seq2seq(self.enc_ip, self.dec_ip, stacked_lstm, xvocab_size, yvocab_size, emb_dim)
                    scope.reuse_variables()
                    self.decode_outputs_test, self.decode_states_test = tf.contrib.legacy_seq2seq.embedding_rnn_seq2seq(self.enc_ip, self.dec_ip, stacked_lstm, xvocab_size, yvocab_size, emb_dim, feed_previous=True)
                loss_weights = [tf.ones_like(label, dtype=tf.float32) for label in self.labels]
                self.loss = tf.contrib.legacy_seq2seq.sequence_loss(self.decode_outputs, self.labels, loss_weights, yvocab_size)
                self.train_op = tf.train.AdamOptimizer(learning_rate=lr).minimize(self.loss)
            print('<log> Building Graph ', end='')
            __graph__()
            print('</log>')
        def get_feed(self, X, Y, keep_prob):
            feed_dict = {self.enc_ip[t]: X[t] for t in range(self.xseq_len)}
            feed_dict.update({self.labels[t]: Y[t] for t in range(self.yseq_len)})
            feed_dict[self.keep_prob] = keep_prob
            return feed_dict
        def train_batch(self, sess, train_batch_gen):
            batchX, batchY = train_batch_gen.__next__()
            feed_dict = self.get_feed(batchX, batchY, keep_prob=0.5)
            _, loss_v = sess.run([self.train_op, self.loss], feed_dict)
            return loss_v
        def eval_step(self, sess, eval_batch_gen):
            batchX, batchY = eval_batch_gen.__next__()
            feed_dict = self.get_feed(batchX, batchY, keep_prob=1.)
            loss_v, dec_op_v = sess.run([self.loss, self.decode_outputs_test], feed_dict)
            dec_op_v = np.array(dec_op_v).transpose([1,0,2])
            return loss_v, dec_op_v, batchX, batchY
        def eval_batches(self, sess, eval_batch_gen, num_batches):
            losses = []
            for i in range(num_batches):
                loss_v, dec_op_v, batchX, batchY = self.eval_step(sess, eval_batch_gen)
                losses.append(loss_v)
            return np.mean(losses)
        def train(self, train_set, valid_set, sess=None):
            saver = tf.train.Saver()
            if not sess:
                sess = tf.Session()
                sess.run(tf.global_variables_initializer())
            print('\n<log> Training started </log>\n')
            for i in range(self.epochs):
                try:
                    l = self.train_batch(sess, train_set)
                    if i and i % 3 == 0:
                        saver.save(sess, self.ckpt_path + self.model_name + '.ckpt', global_step=i)
                        val_loss = self.eval_batches(sess, valid_set, 2)
                        print('\nModel saved to disk at iteration #{}'.format(i))
                        print('val   loss : {0:.6f}'.format(val_loss))
                        sys.stdout.flush()
                except KeyboardInterrupt:
                    print('Interrupted by user at iteration {}'.format(i))
                    self.session = sess
                    return sess
            return sess
        def restore_last_session(self):
            saver = tf.train.Saver()
            sess = tf.Session()
            ckpt = tf.train.get_checkpoint_state(self.ckpt_path)
            if ckpt and ckpt.model_checkpoint_path:
                saver.restore(sess, ckpt.model_checkpoint_path)
            return sess
        def predict(self, sess, X):
            feed_dict = {self.enc_ip[t]: X[t] for t in range(self.xseq_len)}
            feed_dict[self.keep_prob] = 1.
            dec_op_v = sess.run(self.decode_outputs_test, feed_dict)
            dec_op_v = np.array(dec_op_v).transpose([1,0,2])
            return np.argmax(dec_op_v, axis=2)
    def rand_batch_gen(x, y, batch_size):
        while True:
            sample_idx = np.random.choice(list(np.arange(len(x))), batch_size)
            yield x[sample_idx].T, y[sample_idx].T
    np.random.seed(1)
    rng = np.random.RandomState(3)
    trainX = rng.randint(1, 12, size=(20, 5)); trainY = rng.randint(1, 10, size=(20, 4))
    ckpt = os.path.join(str(tmp_path), 'ckpt') + '/'
    try:
        model = Seq2Seq(xseq_len=5, yseq_len=4, xvocab_size=12, yvocab_size=10, ckpt_path=ckpt, emb_dim=6, num_layers=2, lr=0.01, epochs=7)
    except TypeError as e:  # (the built cell's deepcopy for the feed_previous graph)
        print()
        print(type(e).__name__, 'pickle' in str(e))
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["practical_seq2seq"]


def test_signal_graphs(capsys):
    # tf.signal (tf.contrib.signal) frame, stft and inverse_stft build TF 1.15's graphs op for op: their result names and the op seed (seed2) of the next random op
    tf.set_random_seed(1)
    s = tf.placeholder(tf.float32, [None, None])
    for name, f in [('stft', lambda: tf.contrib.signal.stft(s, 64, 16, 64)), ('frame_pad', lambda: tf.contrib.signal.frame(s, 32, 8, pad_end=True)),
                    ('frame', lambda: tf.contrib.signal.frame(s, 32, 8)), ('frame_known', lambda: tf.contrib.signal.frame(tf.zeros([2, 100]), 30, 12)), ('istft', lambda: tf.contrib.signal.inverse_stft(tf.zeros([1, 5, 33], tf.complex64), 64, 16, 64))]:
        t = f()
        r = tf.random_normal([2])
        print(name, t.name, t.shape, r.op.inputs[0].op.inputs[0].op.get_attr('seed2'))
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["signal_graphs"]


def test_signal_graphs_more(capsys):
    # tf.signal (tf.contrib.signal, tf.spectral) mel matrix, MFCCs, overlap_and_add, inverse_stft_window_fn, stft/inverse_stft, windows and (i)dct build TF 1.15's graphs op for op: result names and the op seed (seed2) of the next random op
    tf.set_random_seed(1)
    s = tf.placeholder(tf.float32, [None, None, 10])
    sig = tf.placeholder(tf.float32, [None, None])
    for name, f in [('mel', lambda: tf.contrib.signal.linear_to_mel_weight_matrix(10, 33, 8000, 80., 3000.)),
                    ('mfcc', lambda: tf.contrib.signal.mfccs_from_log_mel_spectrograms(s)),
                    ('oa', lambda: tf.contrib.signal.overlap_and_add(tf.zeros([2, 5, 8]), 3)),
                    ('oa2', lambda: tf.contrib.signal.overlap_and_add(s, 4)),
                    ('iswf', lambda: tf.contrib.signal.inverse_stft_window_fn(16)(64, tf.float32)),
                    ('istft2', lambda: tf.contrib.signal.inverse_stft(tf.zeros([1, 5, 33], tf.complex64), 64, 16, 64, window_fn=tf.contrib.signal.inverse_stft_window_fn(16))),
                    ('stft_pe', lambda: tf.contrib.signal.stft(sig, 50, 20, pad_end=True)),
                    ('istft3', lambda: tf.contrib.signal.inverse_stft(tf.zeros([1, 5, 33], tf.complex64), 50, 16)),
                    ('hann', lambda: tf.contrib.signal.hann_window(20)),
                    ('dct', lambda: tf.spectral.dct(s)),
                    ('dct_ortho', lambda: tf.spectral.dct(s, n=8, norm='ortho')),
                    ('idct', lambda: tf.spectral.idct(s, type=3, norm='ortho')),
                    ('mfccs_sig', lambda: tf.signal.mfccs_from_log_mel_spectrograms(tf.log(tf.tensordot(tf.abs(tf.signal.stft(sig, 32, 8)), tf.signal.linear_to_mel_weight_matrix(8, 17, 8000), 1) + 1e-6)))]:
        try:
            t = f()
            r = tf.random_normal([2])
            print(name, t.name, t.shape, r.op.inputs[0].op.inputs[0].op.get_attr('seed2'))
        except Exception as e:
            print(name, type(e).__name__, e)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["signal_graphs_more"]


def test_ctc_loss_v2_sparse(capsys):
    # tf.nn.ctc_loss_v2 of SparseTensor labels is TF 1.15's: no scope of its own ('CTCLoss'), blank_index required, the blank moved last, ctc_loss's defaults (a label longer than its input is an error)
    rng = np.random.RandomState(0)
    logits = tf.constant(rng.randn(4, 2, 5).astype(np.float32))
    sl = tf.constant([4, 2])
    lab = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], tf.constant([1, 3, 0, 2, 1], tf.int32), [2, 3])
    try:
        tf.nn.ctc_loss_v2(labels=lab, logits=logits, label_length=None, logit_length=sl)
    except ValueError as e:
        print('ValueError', e)
    for bi in (0, 2, -1, 4):
        v = tf.nn.ctc_loss_v2(labels=lab, logits=logits, label_length=None, logit_length=sl, blank_index=bi)
        with tf.Session() as s:
            try:
                print(bi, v.name, np.round(s.run(v), 4).tolist())
            except tf.errors.InvalidArgumentError as e:
                print(bi, v.name, type(e).__name__, e.message.splitlines()[0])
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["ctc_loss_v2_sparse"]


def test_contrib_rnn_cells(capsys):
    # contrib.rnn cells speech/sequence programs use (LayerNormBasicLSTMCell with recurrent dropout, TimeFreqLSTMCell, GridLSTMCell, UGRNN, IntersectionRNN, NASCell, GLSTMCell, CoupledInputForgetGateLSTMCell, IndRNN, SRU, HighwayWrapper, AttentionCellWrapper) in dynamic_rnn, trained a few steps: outputs, variable names and the next random op's seed (LSTMBlockCell and GRUBlockCellV2 left out: TF 1.15 runs them as fused LSTMBlockCell/GRUBlockCell ops, tideflow as their primitive ops, so the op seeds after them differ)
    c = tf.contrib.rnn
    makers = [
        ('ln_lstm', lambda: c.LayerNormBasicLSTMCell(4, dropout_keep_prob=0.7, dropout_prob_seed=3)),
        ('timefreq', lambda: c.TimeFreqLSTMCell(3, feature_size=2, frequency_skip=1)),
        ('grid', lambda: c.GridLSTMCell(3, feature_size=2, frequency_skip=2, num_frequency_blocks=[3])),
        ('ugrnn', lambda: c.UGRNNCell(4)), ('inter', lambda: c.IntersectionRNNCell(6)), ('nas', lambda: c.NASCell(4, num_proj=3)),
        ('glstm', lambda: c.GLSTMCell(4, number_of_groups=2)), ('cifg', lambda: c.CoupledInputForgetGateLSTMCell(4, use_peepholes=True)),
        ('indrnn', lambda: c.IndRNNCell(4)),
        ('sru', lambda: c.SRUCell(6)), ('highway', lambda: c.HighwayWrapper(c.GRUCell(6))),
        ('attn', lambda: c.AttentionCellWrapper(c.LSTMCell(4), attn_length=2, state_is_tuple=True)),
    ]
    x = np.random.RandomState(0).randn(2, 5, 6).astype(np.float32)
    for name, mk in makers:
        with tf.Graph().as_default():
            tf.set_random_seed(2)
            try:
                cell = mk()
                out, st = tf.nn.dynamic_rnn(cell, tf.constant(x), sequence_length=[5, 3], dtype=tf.float32)
                loss = tf.reduce_sum(tf.square(out))
                train = tf.train.AdamOptimizer(0.05).minimize(loss)
                r = tf.random_uniform([1])
                seed2 = r.op.inputs[0].op.inputs[0].op.get_attr('seed2')
                names = [v.name for v in tf.trainable_variables()]
                with tf.Session() as s:
                    s.run(tf.global_variables_initializer())
                    ls = [s.run([loss, train])[0] for _ in range(3)]
                    o = s.run(out)
                print(name, out.shape, seed2, names, np.round(ls, 4).tolist(), np.round(o[1, 2], 4).tolist())
            except Exception as e:
                print(name, type(e).__name__, str(e)[:150])
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["contrib_rnn_cells"]


def test_griffin_lim(capsys):
    # Rayhane-mamah/Tacotron-2 datasets/audio.py (inv_linear_spectrogram_tensorflow, _griffin_lim_tensorflow, _stft_tensorflow, _istft_tensorflow, _denormalize_tensorflow, _db_to_amp_tensorflow) + keithito/tacotron util/audio.py's tf forms, and a tf.contrib.signal log-mel / MFCC front end (stft, linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms, frame, overlap_and_add), sizes shrunk; compared to 1e-5: the FFTs round in the last digits as TF's do not
    class hparams:
        n_fft = 64; hop_size = 16; win_size = 64; sample_rate = 4000; max_abs_value = 4.; min_level_db = -100; ref_level_db = 20
        symmetric_mels = True; allow_clipping_in_normalization = True; power = 1.5; griffin_lim_iters = 5; signal_normalization = True
    def _denormalize_tensorflow(S, hparams):
        if hparams.allow_clipping_in_normalization:
            if hparams.symmetric_mels:
                return (((tf.clip_by_value(S, -hparams.max_abs_value, hparams.max_abs_value) + hparams.max_abs_value) * -hparams.min_level_db / (2 * hparams.max_abs_value)) + hparams.min_level_db)
            else:
                return ((tf.clip_by_value(S, 0, hparams.max_abs_value) * -hparams.min_level_db / hparams.max_abs_value) + hparams.min_level_db)
        if hparams.symmetric_mels:
            return (((S + hparams.max_abs_value) * -hparams.min_level_db / (2 * hparams.max_abs_value)) + hparams.min_level_db)
        else:
            return ((S * -hparams.min_level_db / hparams.max_abs_value) + hparams.min_level_db)
    def _db_to_amp_tensorflow(x):
        return tf.pow(tf.ones(tf.shape(x)) * 10.0, x * 0.05)
    def _stft_tensorflow(signals, hparams):
        return tf.contrib.signal.stft(signals, hparams.win_size, hparams.hop_size, hparams.n_fft, pad_end=False)
    def _istft_tensorflow(stfts, hparams):
        return tf.contrib.signal.inverse_stft(stfts, hparams.win_size, hparams.hop_size, hparams.n_fft)
    def _griffin_lim_tensorflow(S, hparams):
        with tf.variable_scope('griffinlim'):
            S = tf.expand_dims(S, 0)
            S_complex = tf.identity(tf.cast(S, dtype=tf.complex64))
            y = tf.contrib.signal.inverse_stft(S_complex, hparams.win_size, hparams.hop_size, hparams.n_fft)
            for i in range(hparams.griffin_lim_iters):
                est = tf.contrib.signal.stft(y, hparams.win_size, hparams.hop_size, hparams.n_fft)
                angles = est / tf.cast(tf.maximum(1e-8, tf.abs(est)), tf.complex64)
                y = tf.contrib.signal.inverse_stft(S_complex * angles, hparams.win_size, hparams.hop_size, hparams.n_fft)
        return tf.squeeze(y, 0)
    def inv_linear_spectrogram_tensorflow(spectrogram, hparams):
        if hparams.signal_normalization:
            D = _denormalize_tensorflow(spectrogram, hparams)
        else:
            D = linear_spectrogram
        S = tf.pow(_db_to_amp_tensorflow(D + hparams.ref_level_db), (1/hparams.power))
        return _griffin_lim_tensorflow(tf.pow(S, hparams.power), hparams)
    spec = tf.placeholder(tf.float32, [None, hparams.n_fft // 2 + 1])
    wav = inv_linear_spectrogram_tensorflow(spec, hparams)
    print(wav)
    signals = tf.placeholder(tf.float32, [None, None])
    stfts = tf.contrib.signal.stft(signals, frame_length=64, frame_step=16, fft_length=64)
    power_spectrograms = tf.real(stfts * tf.conj(stfts))
    magnitude_spectrograms = tf.abs(stfts)
    num_spectrogram_bins = magnitude_spectrograms.shape[-1].value
    lower_edge_hertz, upper_edge_hertz, num_mel_bins = 80.0, 1800.0, 10
    linear_to_mel_weight_matrix = tf.contrib.signal.linear_to_mel_weight_matrix(num_mel_bins, num_spectrogram_bins, hparams.sample_rate, lower_edge_hertz, upper_edge_hertz)
    mel_spectrograms = tf.tensordot(magnitude_spectrograms, linear_to_mel_weight_matrix, 1)
    mel_spectrograms.set_shape(magnitude_spectrograms.shape[:-1].concatenate(linear_to_mel_weight_matrix.shape[-1:]))
    log_offset = 1e-6
    log_mel_spectrograms = tf.log(mel_spectrograms + log_offset)
    num_mfccs = 5
    mfccs = tf.contrib.signal.mfccs_from_log_mel_spectrograms(log_mel_spectrograms)[..., :num_mfccs]
    frames = tf.contrib.signal.frame(signals, 32, 8, pad_end=True, pad_value=0.5)
    recon = tf.contrib.signal.overlap_and_add(frames * tf.contrib.signal.hann_window(32, periodic=True), 8)
    print(stfts, power_spectrograms, mel_spectrograms, mfccs, frames, recon)
    rng = np.random.RandomState(0)
    x = (np.sin(np.arange(400) * 0.2)[None] + 0.1 * rng.randn(2, 400)).astype(np.float32)
    with tf.Session() as sess:
        w = sess.run(wav, {spec: rng.uniform(-4, 4, size=(20, 33)).astype(np.float32)})
        print(w.shape, np.round(w[:6], 4).tolist(), '%.4f' % np.abs(w).sum())
        m, lm, mf, fr, rc = sess.run([mel_spectrograms, log_mel_spectrograms, mfccs, frames, recon], {signals: x})
        print(m.shape, np.round(m[0, 0], 4).tolist())
        print(lm.shape, np.round(lm[1, 2], 4).tolist())
        print(mf.shape, np.round(mf[0, :2], 4).tolist())
        print(fr.shape, rc.shape, np.round(rc[0, -5:], 4).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["griffin_lim"], rtol=1e-05)



# What TF 1.15 (tensorflow-cpu 1.15.0) printed running each program (measured).
_TF115_PRINTED = {

    "zh_ner": [
        "Adam Tensor(\"proj/Reshape_1:0\", shape=(?, ?, 5), dtype=float32) Tensor(\"Neg:0\", shape=(), dtype=float32) ['train_step/proj/b/Adam:0', 'train_step/proj/b/Adam_1:0', 'train_step/transitions/Adam:0', 'train_step/transitions/Adam_1:0']",
        "epoch 1, step 1, loss: 7.603, global_step: 1",
        "epoch 1, step 2, loss: 7.273, global_step: 2",
        "epoch 1, step 3, loss: 5.532, global_step: 3",
        "[[0, 2, 2, 2], [0, 2, 2, 2, 2, 2], [0, 2, 2], [0, 2, 2, 2, 2]]",
        "epoch 2, step 1, loss: 7.434, global_step: 4",
        "epoch 2, step 2, loss: 7.234, global_step: 5",
        "epoch 2, step 3, loss: 5.515, global_step: 6",
        "[[4, 4, 4, 3], [4, 4, 4, 4, 4, 3], [4, 4, 3], [0, 2, 2, 2, 2]]",
        "Momentum Tensor(\"proj/Reshape_1:0\", shape=(?, ?, 5), dtype=float32) Tensor(\"Mean:0\", shape=(), dtype=float32) ['train_step/bi-lstm/bidirectional_rnn/bw/lstm_cell/kernel/Momentum:0', 'train_step/bi-lstm/bidirectional_rnn/bw/lstm_cell/bias/Momentum:0', 'train_step/proj/W/Momentum:0', 'train_step/proj/b/Momentum:0']",
        "epoch 1, step 1, loss: 1.588, global_step: 1",
        "epoch 1, step 2, loss: 1.584, global_step: 2",
        "epoch 1, step 3, loss: 1.575, global_step: 3",
        "[[4, 4, 4, 4], [4, 4, 4, 4, 4, 4], [4, 3, 3], [0, 0, 0, 4, 4]]",
        "epoch 2, step 1, loss: 1.59, global_step: 4",
        "epoch 2, step 2, loss: 1.602, global_step: 5",
        "epoch 2, step 3, loss: 1.616, global_step: 6",
        "[[4, 4, 4, 4], [4, 4, 4, 4, 4, 4], [4, 3, 3], [0, 0, 0, 4, 4]]",
        "Adadelta Tensor(\"proj/Reshape_1:0\", shape=(?, ?, 5), dtype=float32) Tensor(\"Neg:0\", shape=(), dtype=float32) ['train_step/proj/b/Adadelta:0', 'train_step/proj/b/Adadelta_1:0', 'train_step/transitions/Adadelta:0', 'train_step/transitions/Adadelta_1:0']",
        "epoch 1, step 1, loss: 7.603, global_step: 1",
        "epoch 1, step 2, loss: 7.259, global_step: 2",
        "epoch 1, step 3, loss: 5.573, global_step: 3",
        "[[0, 2, 2, 2], [0, 2, 2, 2, 2, 2], [0, 2, 2], [0, 2, 2, 2, 2]]",
        "epoch 2, step 1, loss: 7.612, global_step: 4",
        "epoch 2, step 2, loss: 7.316, global_step: 5",
        "epoch 2, step 3, loss: 5.761, global_step: 6",
        "[[0, 2, 2, 2], [0, 2, 2, 2, 2, 2], [0, 2, 2], [0, 2, 2, 2, 2]]",
    ],

    "practical_seq2seq": [
        "<log> Building Graph ",
        "TypeError True",
    ],

    "signal_graphs": [
        "stft stft/rfft:0 (?, ?, 33) 98",
        "frame_pad frame/Reshape_4:0 (?, ?, 32) 205",
        "frame frame_1/Reshape_4:0 (?, ?, 32) 278",
        "frame_known frame_2/Reshape_4:0 (2, 6, 30) 352",
        "istft inverse_stft/overlap_and_add/strided_slice_4:0 (1, 128) 478",
    ],

    "signal_graphs_more": [
        "mel linear_to_mel_weight_matrix:0 (33, 10) 128",
        "mfcc mfccs_from_log_mel_spectrograms/mul_1:0 (?, ?, 10) 168",
        "oa overlap_and_add/strided_slice_4:0 (2, 20) 266",
        "oa2 overlap_and_add_1/strided_slice_4:0 (?, ?) 363",
        "iswf inverse_stft_window_fn_1/truediv:0 (64,) 419",
        "istft2 inverse_stft/overlap_and_add/strided_slice_4:0 (1, 128) 571",
        "stft_pe stft/rfft:0 (?, ?, 33) 707",
        "istft3 inverse_stft_1/overlap_and_add/strided_slice_4:0 (1, 114) 837",
        "hann hann_window/sub_2:0 (20,) 867",
        "dct dct/Real_1:0 (?, ?, 10) 901",
        "dct_ortho dct_1/mul_6:0 (?, ?, 8) 950",
        "idct dct_2/mul_6:0 (?, ?, 10) 995",
        "mfccs_sig mfccs_from_log_mel_spectrograms_1/mul_1:0 (?, ?, 8) 1281",
    ],

    "ctc_loss_v2_sparse": [
        "ValueError blank_index must be given when using SparseTensor labels.",
        "0 CTCLoss:0 InvalidArgumentError All labels must be nonnegative integers, batch: 1 labels: -1,1,0",
        "2 CTCLoss_1:0 InvalidArgumentError Not enough time for target transition sequence (required: 3, available: 2)1You can turn this error into a warning by using the flag ignore_longer_outputs_than_inputs",
        "-1 CTCLoss_2:0 InvalidArgumentError Not enough time for target transition sequence (required: 3, available: 2)1You can turn this error into a warning by using the flag ignore_longer_outputs_than_inputs",
        "4 CTCLoss_3:0 InvalidArgumentError Not enough time for target transition sequence (required: 3, available: 2)1You can turn this error into a warning by using the flag ignore_longer_outputs_than_inputs",
    ],

    "contrib_rnn_cells": [
        "ln_lstm (2, 5, 4) 1278 ['rnn/layer_norm_basic_lstm_cell/kernel:0', 'rnn/layer_norm_basic_lstm_cell/input/gamma:0', 'rnn/layer_norm_basic_lstm_cell/input/beta:0', 'rnn/layer_norm_basic_lstm_cell/transform/gamma:0', 'rnn/layer_norm_basic_lstm_cell/transform/beta:0', 'rnn/layer_norm_basic_lstm_cell/forget/gamma:0', 'rnn/layer_norm_basic_lstm_cell/forget/beta:0', 'rnn/layer_norm_basic_lstm_cell/output/gamma:0', 'rnn/layer_norm_basic_lstm_cell/output/beta:0', 'rnn/layer_norm_basic_lstm_cell/state/gamma:0', 'rnn/layer_norm_basic_lstm_cell/state/beta:0'] [3.542099952697754, 4.451700210571289, 4.005300045013428] [0.2070000022649765, 0.586899995803833, -0.12160000205039978, -0.4447000026702881]",
        "timefreq ValueError Dimension 1 in both shapes must be equal, but are 3 and 15. Shapes are [2,3] and [2,15]. for 'rnn/while/Select' (op: 'Select') with input shapes: [2],",
        "grid (2, 5, 18) 1154 ['rnn/grid_lstm_cell/W_f_0_0:0', 'rnn/grid_lstm_cell/B_f_0:0', 'rnn/grid_lstm_cell/W_t_0_0:0', 'rnn/grid_lstm_cell/B_t_0:0'] [2.677999973297119, 1.482699990272522, 0.8991000056266785] [-0.11190000176429749, -0.11249999701976776, 0.07680000364780426, -0.0885000005364418, -0.07500000298023224, 0.0949999988079071, 0.08699999749660492, -0.0731000006198883, 0.08349999785423279, -0.11680000275373459, -0.07079999893903732, 0.04410000145435333, 0.015799999237060547, -0.11749999970197678, 0.07280000299215317, -0.12540000677108765, -0.09030000120401382, 0.06759999692440033]",
        "ugrnn (2, 5, 4) 381 ['rnn/ugrnn_cell/kernel:0', 'rnn/ugrnn_cell/bias:0'] [1.341599941253662, 0.6759999990463257, 0.4327000081539154] [0.010300000198185444, -0.0869000032544136, -0.03449999913573265, 0.024700000882148743]",
        "inter (2, 5, 6) 476 ['rnn/intersection_rnn_cell/kernel:0', 'rnn/intersection_rnn_cell/bias:0'] [36.80580139160156, 29.11949920654297, 22.299400329589844] [-0.675000011920929, 1.0918999910354614, -0.30059999227523804, 0.13289999961853027, -1.1232999563217163, 0.5776000022888184]",
        "nas (2, 5, 3) 595 ['rnn/nas_cell/recurrent_kernel:0', 'rnn/nas_cell/kernel:0', 'rnn/nas_cell/projection_weights:0'] [0.03280000016093254, 0.004999999888241291, 0.0019000000320374966] [0.011300000362098217, 0.011099999770522118, 0.0024999999441206455]",
        "glstm (2, 5, 4) 649 ['rnn/glstm_cell/group0/kernel:0', 'rnn/glstm_cell/group1/kernel:0', 'rnn/glstm_cell/bias_i:0', 'rnn/glstm_cell/bias_j:0', 'rnn/glstm_cell/bias_f:0', 'rnn/glstm_cell/bias_o:0'] [0.5770999789237976, 0.3765000104904175, 0.25529998540878296] [-0.17409999668598175, 0.09700000286102295, 0.020999999716877937, -0.01590000092983246]",
        "cifg (2, 5, 4) 528 ['rnn/coupled_input_forget_gate_lstm_cell/W_0:0', 'rnn/coupled_input_forget_gate_lstm_cell/B:0', 'rnn/coupled_input_forget_gate_lstm_cell/W_F_diag:0', 'rnn/coupled_input_forget_gate_lstm_cell/W_O_diag:0'] [0.31679999828338623, 0.2061000019311905, 0.07249999791383743] [0.00279999990016222, -0.09929999709129333, -0.03959999978542328, -0.04410000145435333]",
        "indrnn (2, 5, 4) 352 ['rnn/ind_rnn_cell/kernel_w:0', 'rnn/ind_rnn_cell/kernel_u:0', 'rnn/ind_rnn_cell/bias:0'] [18.11389923095703, 15.965200424194336, 14.015800476074219] [-0.4959999918937683, 0.9894999861717224, -0.3131999969482422, -0.9696000218391418]",
        "sru (2, 5, 6) 431 ['rnn/sru_cell/kernel:0', 'rnn/sru_cell/bias:0'] [6.725800037384033, 2.795300006866455, 1.253999948501587] [0.03720000013709068, -0.01759999990463257, -0.1551000028848648, 0.013700000010430813, 0.02280000038444996, -0.1826000064611435]",
        "highway (2, 5, 6) 579 ['rnn/gru_cell/gates/kernel:0', 'rnn/gru_cell/gates/bias:0', 'rnn/gru_cell/candidate/kernel:0', 'rnn/gru_cell/candidate/bias:0', 'rnn/carry_w:0', 'rnn/carry_b:0'] [29.5674991607666, 25.125499725341797, 21.281600952148438] [-1.604099988937378, 0.44940000772476196, -0.4332999885082245, -0.4318000078201294, -0.3359000086784363, 0.6693999767303467]",
        "attn (2, 5, 4) 961 ['rnn/attention_cell_wrapper/kernel:0', 'rnn/attention_cell_wrapper/bias:0', 'rnn/attention_cell_wrapper/lstm_cell/kernel:0', 'rnn/attention_cell_wrapper/lstm_cell/bias:0', 'rnn/attention_cell_wrapper/attention/attn_w:0', 'rnn/attention_cell_wrapper/attention/attn_v:0', 'rnn/attention_cell_wrapper/attention/kernel:0', 'rnn/attention_cell_wrapper/attention/bias:0', 'rnn/attention_cell_wrapper/attn_output_projection/kernel:0', 'rnn/attention_cell_wrapper/attn_output_projection/bias:0'] [0.3458000123500824, 1.0844999551773071, 0.14650000631809235] [-0.013799999840557575, 0.03869999945163727, 0.08250000327825546, -0.024800000712275505]",
    ],

    "griffin_lim": [
        "Tensor(\"Squeeze:0\", shape=(?,), dtype=float32)",
        "Tensor(\"stft/rfft:0\", shape=(?, ?, 33), dtype=complex64) Tensor(\"Real:0\", shape=(?, ?, 33), dtype=float32) Tensor(\"Tensordot:0\", shape=(?, ?, 10), dtype=float32) Tensor(\"strided_slice:0\", shape=(?, ?, 5), dtype=float32) Tensor(\"frame/Reshape_4:0\", shape=(?, ?, 32), dtype=float32) Tensor(\"overlap_and_add/strided_slice_4:0\", shape=(?, ?), dtype=float32)",
        "(368,) [0.0, -0.00019999999494757503, 0.00430000014603138, 0.00430000014603138, -0.0007999999797903001, 0.0007999999797903001] 139.0333",
        "(2, 22, 10) [14.921299934387207, 2.2764999866485596, 1.0324000120162964, 1.6998000144958496, 2.0908000469207764, 0.5364999771118164, 0.7781999707221985, 1.363700032234192, 1.395300030708313, 2.1642000675201416]",
        "(2, 22, 10) [2.6809000968933105, 0.8902999758720398, 0.49000000953674316, -0.2395000010728836, -0.3578000068664551, 0.4097000062465668, -0.08609999716281891, 0.5615000128746033, 0.41429999470710754, 0.19120000302791595]",
        "(2, 22, 5) [[2.4001998901367188, 1.2137000560760498, 1.6593999862670898, 0.2703000009059906, 0.9473999738693237], [1.5963000059127808, 1.2338999509811401, 1.5967999696731567, 1.0654000043869019, 0.5899999737739563]]",
        "(2, 50, 32) (2, 424) [0.11110000312328339, 0.07320000231266022, 0.042100001126527786, 0.01899999938905239, 0.004800000227987766]",
    ],

}
