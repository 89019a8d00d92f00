"""TF 1.x sequence labelling, CTC, language-model and text-classification programs tideflow had not seen, reduced to standalone forms with small synthetic data
(API calls, graph structure and training loops kept; sizes and step counts shrunk; the
repository and path named in each test's first comment). Each prints what TF 1.15
(tensorflow-cpu 1.15.0) printed running the same program with the same seeds (measured),
compared line by line."""
# ruff: noqa: C417, F401, F841, I001, RUF059, UP004, UP031, UP032

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_sequence_tagging(capsys):
    # guillaumegenthial/sequence_tagging model/ner_model.py + model/base_model.py + model/data_utils.py (pad_sequences, minibatches), char BiLSTM + word BiLSTM + CRF (and softmax), sizes shrunk
    def _pad_sequences(sequences, pad_tok, max_length):
        sequence_padded, sequence_length = [], []
        for seq in sequences:
            seq = list(seq)
            seq_ = seq[:max_length] + [pad_tok]*max(max_length - len(seq), 0)
            sequence_padded += [seq_]
            sequence_length += [min(len(seq), max_length)]
        return sequence_padded, sequence_length
    def pad_sequences(sequences, pad_tok, nlevels=1):
        if nlevels == 1:
            max_length = max(map(lambda x : len(x), sequences))
            sequence_padded, sequence_length = _pad_sequences(sequences, pad_tok, max_length)
        elif nlevels == 2:
            max_length_word = max([max(map(lambda x: len(x), seq)) for seq in sequences])
            sequence_padded, sequence_length = [], []
            for seq in sequences:
                sp, sl = _pad_sequences(seq, pad_tok, max_length_word)
                sequence_padded += [sp]
                sequence_length += [sl]
            max_length_sentence = max(map(lambda x : len(x), sequences))
            sequence_padded, _ = _pad_sequences(sequence_padded, [pad_tok]*max_length_word, max_length_sentence)
            sequence_length, _ = _pad_sequences(sequence_length, 0, max_length_sentence)
        return sequence_padded, sequence_length
    def minibatches(data, minibatch_size):
        x_batch, y_batch = [], []
        for (x, y) in data:
            if len(x_batch) == minibatch_size:
                yield x_batch, y_batch
                x_batch, y_batch = [], []
            if type(x[0]) == tuple:
                x = zip(*x)
            x_batch += [x]
            y_batch += [y]
        if len(x_batch) != 0:
            yield x_batch, y_batch
    class Config:
        nwords = 12; nchars = 9; ntags = 4; dim_word = 5; dim_char = 3; hidden_size_char = 2; hidden_size_lstm = 4
        embeddings = None; train_embeddings = False; use_chars = True; lr_method = 'adam'; lr = 0.01; clip = 1.0; dropout = 1.0
    class NERModel(object):
        def __init__(self, config):
            self.config = config
            self.idx_to_tag = {0: 'O', 1: 'B-PER', 2: 'I-PER', 3: 'B-LOC'}
        def add_placeholders(self):
            self.word_ids = tf.placeholder(tf.int32, shape=[None, None], name="word_ids")
            self.sequence_lengths = tf.placeholder(tf.int32, shape=[None], name="sequence_lengths")
            self.char_ids = tf.placeholder(tf.int32, shape=[None, None, None], name="char_ids")
            self.word_lengths = tf.placeholder(tf.int32, shape=[None, None], name="word_lengths")
            self.labels = tf.placeholder(tf.int32, shape=[None, None], name="labels")
            self.dropout = tf.placeholder(dtype=tf.float32, shape=[], name="dropout")
            self.lr = tf.placeholder(dtype=tf.float32, shape=[], name="lr")
        def get_feed_dict(self, words, labels=None, lr=None, dropout=None):
            if self.config.use_chars:
                char_ids, word_ids = zip(*words)
                word_ids, sequence_lengths = pad_sequences(word_ids, 0)
                char_ids, word_lengths = pad_sequences(char_ids, pad_tok=0, nlevels=2)
            else:
                word_ids, sequence_lengths = pad_sequences(words, 0)
            feed = {self.word_ids: word_ids, self.sequence_lengths: sequence_lengths}
            if self.config.use_chars:
                feed[self.char_ids] = char_ids
                feed[self.word_lengths] = word_lengths
            if labels is not None:
                labels, _ = pad_sequences(labels, 0)
                feed[self.labels] = labels
            if lr is not None:
                feed[self.lr] = lr
            if dropout is not None:
                feed[self.dropout] = dropout
            return feed, sequence_lengths
        def add_word_embeddings_op(self):
            with tf.variable_scope("words"):
                if self.config.embeddings is None:
                    _word_embeddings = tf.get_variable(name="_word_embeddings", dtype=tf.float32, shape=[self.config.nwords, self.config.dim_word])
                else:
                    _word_embeddings = tf.Variable(self.config.embeddings, name="_word_embeddings", dtype=tf.float32, trainable=self.config.train_embeddings)
                word_embeddings = tf.nn.embedding_lookup(_word_embeddings, self.word_ids, name="word_embeddings")
            with tf.variable_scope("chars"):
                if self.config.use_chars:
                    _char_embeddings = tf.get_variable(name="_char_embeddings", dtype=tf.float32, shape=[self.config.nchars, self.config.dim_char])
                    char_embeddings = tf.nn.embedding_lookup(_char_embeddings, self.char_ids, name="char_embeddings")
                    s = tf.shape(char_embeddings)
                    char_embeddings = tf.reshape(char_embeddings, shape=[s[0]*s[1], s[-2], self.config.dim_char])
                    word_lengths = tf.reshape(self.word_lengths, shape=[s[0]*s[1]])
                    cell_fw = tf.contrib.rnn.LSTMCell(self.config.hidden_size_char, state_is_tuple=True)
                    cell_bw = tf.contrib.rnn.LSTMCell(self.config.hidden_size_char, state_is_tuple=True)
                    _output = tf.nn.bidirectional_dynamic_rnn(cell_fw, cell_bw, char_embeddings, sequence_length=word_lengths, dtype=tf.float32)
                    _, ((_, output_fw), (_, output_bw)) = _output
                    output = tf.concat([output_fw, output_bw], axis=-1)
                    output = tf.reshape(output, shape=[s[0], s[1], 2*self.config.hidden_size_char])
                    word_embeddings = tf.concat([word_embeddings, output], axis=-1)
            self.word_embeddings = tf.nn.dropout(word_embeddings, self.dropout)
        def add_logits_op(self):
            with tf.variable_scope("bi-lstm"):
                cell_fw = tf.contrib.rnn.LSTMCell(self.config.hidden_size_lstm)
                cell_bw = tf.contrib.rnn.LSTMCell(self.config.hidden_size_lstm)
                (output_fw, output_bw), _ = tf.nn.bidirectional_dynamic_rnn(cell_fw, cell_bw, self.word_embeddings, sequence_length=self.sequence_lengths, dtype=tf.float32)
                output = tf.concat([output_fw, output_bw], axis=-1)
                output = tf.nn.dropout(output, self.dropout)
            with tf.variable_scope("proj"):
                W = tf.get_variable("W", dtype=tf.float32, shape=[2*self.config.hidden_size_lstm, self.config.ntags])
                b = tf.get_variable("b", shape=[self.config.ntags], dtype=tf.float32, initializer=tf.zeros_initializer())
                nsteps = tf.shape(output)[1]
                output = tf.reshape(output, [-1, 2*self.config.hidden_size_lstm])
                pred = tf.matmul(output, W) + b
                self.logits = tf.reshape(pred, [-1, nsteps, self.config.ntags])
        def add_pred_op(self):
            if not self.config.use_crf:
                self.labels_pred = tf.cast(tf.argmax(self.logits, axis=-1), tf.int32)
        def add_loss_op(self):
            if self.config.use_crf:
                log_likelihood, trans_params = tf.contrib.crf.crf_log_likelihood(self.logits, self.labels, self.sequence_lengths)
                self.trans_params = trans_params
                self.loss = tf.reduce_mean(-log_likelihood)
            else:
                losses = tf.nn.sparse_softmax_cross_entropy_with_logits(logits=self.logits, labels=self.labels)
                mask = tf.sequence_mask(self.sequence_lengths)
                losses = tf.boolean_mask(losses, mask)
                self.loss = tf.reduce_mean(losses)
            tf.summary.scalar("loss", self.loss)
        def add_train_op(self, lr_method, lr, loss, clip=-1):
            _lr_m = lr_method.lower()
            with tf.variable_scope("train_step"):
                if _lr_m == 'adam':
                    optimizer = tf.train.AdamOptimizer(lr)
                elif _lr_m == 'adagrad':
                    optimizer = tf.train.AdagradOptimizer(lr)
                elif _lr_m == 'sgd':
                    optimizer = tf.train.GradientDescentOptimizer(lr)
                elif _lr_m == 'rmsprop':
                    optimizer = tf.train.RMSPropOptimizer(lr)
                else:
                    raise NotImplementedError("Unknown method {}".format(_lr_m))
                if clip > 0:
                    grads, vs = zip(*optimizer.compute_gradients(loss))
                    grads, gnorm = tf.clip_by_global_norm(grads, clip)
                    self.train_op = optimizer.apply_gradients(zip(grads, vs))
                else:
                    self.train_op = optimizer.minimize(loss)
        def build(self):
            self.add_placeholders()
            self.add_word_embeddings_op()
            self.add_logits_op()
            self.add_pred_op()
            self.add_loss_op()
            self.add_train_op(self.config.lr_method, self.lr, self.loss, self.config.clip)
            self.sess = tf.Session()
            self.sess.run(tf.global_variables_initializer())
            self.saver = tf.train.Saver()
        def predict_batch(self, words):
            fd, sequence_lengths = self.get_feed_dict(words, dropout=1.0)
            if self.config.use_crf:
                viterbi_sequences = []
                logits, trans_params = self.sess.run([self.logits, self.trans_params], feed_dict=fd)
                for logit, sequence_length in zip(logits, sequence_lengths):
                    logit = logit[:sequence_length]
                    viterbi_seq, viterbi_score = tf.contrib.crf.viterbi_decode(logit, trans_params)
                    viterbi_sequences += [viterbi_seq]
                return viterbi_sequences, sequence_lengths
            else:
                labels_pred = self.sess.run(self.labels_pred, feed_dict=fd)
                return labels_pred, sequence_lengths
        def run_epoch(self, train, epoch):
            for i, (words, labels) in enumerate(minibatches(train, 2)):
                fd, _ = self.get_feed_dict(words, labels, self.config.lr, self.config.dropout)
                _, train_loss, summary = self.sess.run([self.train_op, self.loss, self.merged], feed_dict=fd)
                print('epoch', epoch, 'batch', i, 'train loss %.5f' % train_loss)
    rng = np.random.RandomState(2)
    data = []
    for n in [3, 5, 2, 4, 4]:
        words = [(list(rng.randint(1, 9, size=rng.randint(1, 5))), int(rng.randint(1, 12))) for _ in range(n)]
        tags = list(rng.randint(0, 4, size=n))
        data.append((words, tags))
    for use_crf in (True, False):
        with tf.Graph().as_default():
            tf.set_random_seed(11)
            Config.use_crf = use_crf
            model = NERModel(Config)
            model.build()
            model.merged = tf.summary.merge_all()
            print(model.logits, model.loss, [v.name for v in tf.trainable_variables()])
            for epoch in range(2):
                model.run_epoch(data, epoch)
            preds, lens = model.predict_batch([list(zip(*d[0])) for d in data[:3]])
            print([list(map(int, p[:l])) for p, l in zip(preds, lens)])
            model.sess.close()
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["sequence_tagging"]


def test_ctc_example(capsys):
    # igormq/ctc_tensorflow_example ctc_tensorflow_example.py + utils.py (sparse_tuple_from, pad_sequences), features random instead of a wav
    import time
    SPACE_TOKEN = '<space>'; SPACE_INDEX = 0; FIRST_INDEX = ord('a') - 1
    num_features = 6; num_classes = ord('z') - ord('a') + 1 + 1 + 1
    num_epochs = 6; num_hidden = 8; num_layers = 1; batch_size = 1; initial_learning_rate = 1e-2; momentum = 0.9
    num_examples = 1; num_batches_per_epoch = int(num_examples/batch_size)
    def sparse_tuple_from(sequences, dtype=np.int32):
        indices = []
        values = []
        for n, seq in enumerate(sequences):
            indices.extend(zip([n]*len(seq), range(len(seq))))
            values.extend(seq)
        indices = np.asarray(indices, dtype=np.int64)
        values = np.asarray(values, dtype=dtype)
        shape = np.asarray([len(sequences), np.asarray(indices).max(0)[1]+1], dtype=np.int64)
        return indices, values, shape
    rng = np.random.RandomState(5)
    inputs = rng.randn(30, num_features)
    train_inputs = np.asarray(inputs[np.newaxis, :])
    train_inputs = (train_inputs - np.mean(train_inputs))/np.std(train_inputs)
    train_seq_len = [train_inputs.shape[1]]
    original = 'he is ok'
    targets = original.replace(' ', '  ')
    targets = targets.split(' ')
    targets = np.hstack([SPACE_TOKEN if x == '' else list(x) for x in targets])
    targets = np.asarray([SPACE_INDEX if x == SPACE_TOKEN else ord(x) - FIRST_INDEX for x in targets])
    train_targets = sparse_tuple_from([targets])
    val_inputs, val_targets, val_seq_len = train_inputs, train_targets, train_seq_len
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        inputs = tf.placeholder(tf.float32, [None, None, num_features])
        targets = tf.sparse_placeholder(tf.int32)
        seq_len = tf.placeholder(tf.int32, [None])
        cells = []
        for _ in range(num_layers):
            cell = tf.contrib.rnn.LSTMCell(num_hidden)
            cells.append(cell)
        stack = tf.contrib.rnn.MultiRNNCell(cells)
        outputs, _ = tf.nn.dynamic_rnn(stack, inputs, seq_len, dtype=tf.float32)
        shape = tf.shape(inputs)
        batch_s, max_timesteps = shape[0], shape[1]
        outputs = tf.reshape(outputs, [-1, num_hidden])
        W = tf.Variable(tf.truncated_normal([num_hidden, num_classes], stddev=0.1))
        b = tf.Variable(tf.constant(0., shape=[num_classes]))
        logits = tf.matmul(outputs, W) + b
        logits = tf.reshape(logits, [batch_s, -1, num_classes])
        logits = tf.transpose(logits, (1, 0, 2))
        loss = tf.nn.ctc_loss(targets, logits, seq_len)
        cost = tf.reduce_mean(loss)
        optimizer = tf.train.MomentumOptimizer(initial_learning_rate, 0.9).minimize(cost)
        decoded, log_prob = tf.nn.ctc_greedy_decoder(logits, seq_len)
        ler = tf.reduce_mean(tf.edit_distance(tf.cast(decoded[0], tf.int32), targets))
        print(logits, loss, decoded[0], log_prob, ler)
    with tf.Session(graph=graph) as session:
        tf.global_variables_initializer().run()
        for curr_epoch in range(num_epochs):
            train_cost = train_ler = 0
            for batch in range(num_batches_per_epoch):
                feed = {inputs: train_inputs, targets: train_targets, seq_len: train_seq_len}
                batch_cost, _ = session.run([cost, optimizer], feed)
                train_cost += batch_cost*batch_size
                train_ler += session.run(ler, feed_dict=feed)*batch_size
            train_cost /= num_examples
            train_ler /= num_examples
            val_feed = {inputs: val_inputs, targets: val_targets, seq_len: val_seq_len}
            val_cost, val_ler = session.run([cost, ler], feed_dict=val_feed)
            log = "Epoch {}/{}, train_cost = {:.3f}, train_ler = {:.3f}, val_cost = {:.3f}, val_ler = {:.3f}"
            print(log.format(curr_epoch+1, num_epochs, train_cost, train_ler, val_cost, val_ler))
        d = session.run(decoded[0], feed_dict=feed)
        str_decoded = ''.join([chr(x) for x in np.asarray(d[1]) + FIRST_INDEX])
        str_decoded = str_decoded.replace(chr(ord('z') + 1), '')
        str_decoded = str_decoded.replace(chr(ord('a') - 1), ' ')
        print('Original:\n%s' % original)
        print('Decoded:\n%s' % str_decoded)
        print(d)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["ctc_example"]


def test_ptb_word_lm(capsys):
    # tensorflow/models tutorials/rnn/ptb/ptb_word_lm.py + reader.py (ptb_producer with range_input_producer and queue runners), small config shrunk; the "basic" rnn_mode, static_rnn over tf.unstack
    import time
    def ptb_producer(raw_data, batch_size, num_steps, name=None):
      with tf.name_scope(name, "PTBProducer", [raw_data, batch_size, num_steps]):
        raw_data = tf.convert_to_tensor(raw_data, name="raw_data", dtype=tf.int32)
        data_len = tf.size(raw_data)
        batch_len = data_len // batch_size
        data = tf.reshape(raw_data[0 : batch_size * batch_len], [batch_size, batch_len])
        epoch_size = (batch_len - 1) // num_steps
        assertion = tf.assert_positive(epoch_size, message="epoch_size == 0, decrease batch_size or num_steps")
        with tf.control_dependencies([assertion]):
          epoch_size = tf.identity(epoch_size, name="epoch_size")
        i = tf.train.range_input_producer(epoch_size, shuffle=False).dequeue()
        x = tf.strided_slice(data, [0, i * num_steps], [batch_size, (i + 1) * num_steps])
        x.set_shape([batch_size, num_steps])
        y = tf.strided_slice(data, [0, i * num_steps + 1], [batch_size, (i + 1) * num_steps + 1])
        y.set_shape([batch_size, num_steps])
        return x, y
    class PTBInput(object):
      def __init__(self, config, data, name=None):
        self.batch_size = batch_size = config.batch_size
        self.num_steps = num_steps = config.num_steps
        self.epoch_size = ((len(data) // batch_size) - 1) // num_steps
        self.input_data, self.targets = ptb_producer(data, batch_size, num_steps, name=name)
    BASIC = "basic"; BLOCK = "block"
    class PTBModel(object):
      def __init__(self, is_training, config, input_):
        self._is_training = is_training
        self._input = input_
        self._rnn_params = None
        self._cell = None
        self.batch_size = input_.batch_size
        self.num_steps = input_.num_steps
        size = config.hidden_size
        vocab_size = config.vocab_size
        with tf.device("/cpu:0"):
          embedding = tf.get_variable("embedding", [vocab_size, size], dtype=tf.float32)
          inputs = tf.nn.embedding_lookup(embedding, input_.input_data)
        if is_training and config.keep_prob < 1:
          inputs = tf.nn.dropout(inputs, config.keep_prob)
        output, state = self._build_rnn_graph(inputs, config, is_training)
        softmax_w = tf.get_variable("softmax_w", [size, vocab_size], dtype=tf.float32)
        softmax_b = tf.get_variable("softmax_b", [vocab_size], dtype=tf.float32)
        logits = tf.nn.xw_plus_b(output, softmax_w, softmax_b)
        logits = tf.reshape(logits, [self.batch_size, self.num_steps, vocab_size])
        loss = tf.contrib.seq2seq.sequence_loss(logits, input_.targets, tf.ones([self.batch_size, self.num_steps], dtype=tf.float32), average_across_timesteps=False, average_across_batch=True)
        self._cost = tf.reduce_sum(loss)
        self._final_state = state
        if not is_training:
          return
        self._lr = tf.Variable(0.0, trainable=False)
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(self._cost, tvars), config.max_grad_norm)
        optimizer = tf.train.GradientDescentOptimizer(self._lr)
        self._train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=tf.train.get_or_create_global_step())
        self._new_lr = tf.placeholder(tf.float32, shape=[], name="new_learning_rate")
        self._lr_update = tf.assign(self._lr, self._new_lr)
      def _get_lstm_cell(self, config, is_training):
        if config.rnn_mode == BASIC:
          return tf.contrib.rnn.BasicLSTMCell(config.hidden_size, forget_bias=0.0, state_is_tuple=True, reuse=not is_training)
        if config.rnn_mode == BLOCK:
          return tf.contrib.rnn.LSTMBlockCell(config.hidden_size, forget_bias=0.0)
        raise ValueError("rnn_mode %s not supported" % config.rnn_mode)
      def _build_rnn_graph(self, inputs, config, is_training):
        def make_cell():
          cell = self._get_lstm_cell(config, is_training)
          if is_training and config.keep_prob < 1:
            cell = tf.contrib.rnn.DropoutWrapper(cell, output_keep_prob=config.keep_prob)
          return cell
        cell = tf.contrib.rnn.MultiRNNCell([make_cell() for _ in range(config.num_layers)], state_is_tuple=True)
        self._initial_state = cell.zero_state(config.batch_size, tf.float32)
        state = self._initial_state
        inputs = tf.unstack(inputs, num=self.num_steps, axis=1)
        outputs, state = tf.contrib.rnn.static_rnn(cell, inputs, initial_state=self._initial_state)
        output = tf.reshape(tf.concat(outputs, 1), [-1, config.hidden_size])
        return output, state
      def assign_lr(self, session, lr_value):
        session.run(self._lr_update, feed_dict={self._new_lr: lr_value})
      @property
      def input(self): return self._input
      @property
      def initial_state(self): return self._initial_state
      @property
      def cost(self): return self._cost
      @property
      def final_state(self): return self._final_state
      @property
      def lr(self): return self._lr
      @property
      def train_op(self): return self._train_op
    class SmallConfig(object):
      init_scale = 0.1; learning_rate = 1.0; max_grad_norm = 5; num_layers = 2; num_steps = 4; hidden_size = 6
      max_epoch = 2; max_max_epoch = 3; keep_prob = 0.8; lr_decay = 0.5; batch_size = 2; vocab_size = 10; rnn_mode = BASIC
    def run_epoch(session, model, eval_op=None, verbose=False):
      start_time = time.time()
      costs = 0.0
      iters = 0
      state = session.run(model.initial_state)
      fetches = {"cost": model.cost, "final_state": model.final_state}
      if eval_op is not None:
        fetches["eval_op"] = eval_op
      for step in range(model.input.epoch_size):
        feed_dict = {}
        for i, (c, h) in enumerate(model.initial_state):
          feed_dict[c] = state[i].c
          feed_dict[h] = state[i].h
        vals = session.run(fetches, feed_dict)
        cost = vals["cost"]
        state = vals["final_state"]
        costs += cost
        iters += model.input.num_steps
        if verbose:
          print("%.3f perplexity: %.3f" % (step * 1.0 / model.input.epoch_size, np.exp(costs / iters)))
      return np.exp(costs / iters)
    rng = np.random.RandomState(0)
    train_data = list(rng.randint(0, 10, size=40)); valid_data = list(rng.randint(0, 10, size=30))
    config = SmallConfig(); eval_config = SmallConfig(); eval_config.batch_size = 1; eval_config.num_steps = 1
    with tf.Graph().as_default():
      tf.set_random_seed(1)
      initializer = tf.random_uniform_initializer(-config.init_scale, config.init_scale)
      with tf.name_scope("Train"):
        train_input = PTBInput(config=config, data=train_data, name="TrainInput")
        with tf.variable_scope("Model", reuse=None, initializer=initializer):
          m = PTBModel(is_training=True, config=config, input_=train_input)
        tf.summary.scalar("Training Loss", m.cost)
        tf.summary.scalar("Learning Rate", m.lr)
      with tf.name_scope("Valid"):
        valid_input = PTBInput(config=config, data=valid_data, name="ValidInput")
        with tf.variable_scope("Model", reuse=True, initializer=initializer):
          mvalid = PTBModel(is_training=False, config=config, input_=valid_input)
      with tf.name_scope("Test"):
        test_input = PTBInput(config=eval_config, data=valid_data, name="TestInput")
        with tf.variable_scope("Model", reuse=True, initializer=initializer):
          mtest = PTBModel(is_training=False, config=eval_config, input_=test_input)
      print(m.cost, mvalid.cost, mtest.cost, len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)))
      sv = tf.train.Supervisor(logdir=None)
      with sv.managed_session() as session:
        for i in range(config.max_max_epoch):
          lr_decay = config.lr_decay ** max(i + 1 - config.max_epoch, 0.0)
          m.assign_lr(session, config.learning_rate * lr_decay)
          print("Epoch: %d Learning rate: %.3f" % (i + 1, session.run(m.lr)))
          train_perplexity = run_epoch(session, m, eval_op=m.train_op, verbose=True)
          print("Epoch: %d Train Perplexity: %.3f" % (i + 1, train_perplexity))
          valid_perplexity = run_epoch(session, mvalid)
          print("Epoch: %d Valid Perplexity: %.3f" % (i + 1, valid_perplexity))
        test_perplexity = run_epoch(session, mtest)
        print("Test Perplexity: %.3f" % test_perplexity)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["ptb_word_lm"]


def test_rnn_attention(capsys, tmp_path):
    # ilivans/tf-rnn-attention attention.py + train.py + utils.py (zero_pad, batch_generator), IMDB replaced by random sequences, sizes shrunk
    import os
    from tideflow.python.ops.rnn import bidirectional_dynamic_rnn as bi_rnn
    GRUCell = tf.contrib.rnn.GRUCell
    def attention(inputs, attention_size, time_major=False, return_alphas=False):
        if isinstance(inputs, tuple):
            inputs = tf.concat(inputs, 2)
        if time_major:
            inputs = tf.array_ops.transpose(inputs, [1, 0, 2])
        hidden_size = inputs.shape[2].value
        w_omega = tf.Variable(tf.random_normal([hidden_size, attention_size], stddev=0.1))
        b_omega = tf.Variable(tf.random_normal([attention_size], stddev=0.1))
        u_omega = tf.Variable(tf.random_normal([attention_size], stddev=0.1))
        with tf.name_scope('v'):
            v = tf.tanh(tf.tensordot(inputs, w_omega, axes=1) + b_omega)
        vu = tf.tensordot(v, u_omega, axes=1, name='vu')
        alphas = tf.nn.softmax(vu, name='alphas')
        output = tf.reduce_sum(inputs * tf.expand_dims(alphas, -1), 1)
        if not return_alphas:
            return output
        else:
            return output, alphas
    def zero_pad(X, seq_len):
        return np.array([x[:seq_len - 1] + [0] * max(seq_len - len(x), 1) for x in X])
    def get_vocabulary_size(X):
        return max([max(x) for x in X]) + 1
    def batch_generator(X, y, batch_size):
        size = X.shape[0]
        X_copy = X.copy()
        y_copy = y.copy()
        indices = np.arange(size)
        np.random.shuffle(indices)
        X_copy = X_copy[indices]
        y_copy = y_copy[indices]
        i = 0
        while True:
            if i + batch_size <= size:
                yield X_copy[i:i + batch_size], y_copy[i:i + batch_size]
                i += batch_size
            else:
                i = 0
                indices = np.arange(size)
                np.random.shuffle(indices)
                X_copy = X_copy[indices]
                y_copy = y_copy[indices]
                continue
    NUM_WORDS = 30; INDEX_FROM = 3; SEQUENCE_LENGTH = 8; EMBEDDING_DIM = 5; HIDDEN_SIZE = 4; ATTENTION_SIZE = 3
    KEEP_PROB = 0.8; BATCH_SIZE = 4; NUM_EPOCHS = 3; DELTA = 0.5
    np.random.seed(0)
    rng = np.random.RandomState(1)
    X_train = [list(rng.randint(1, NUM_WORDS, size=rng.randint(3, 12))) for _ in range(12)]
    y_train = rng.randint(0, 2, size=12)
    X_test = [list(rng.randint(1, NUM_WORDS, size=rng.randint(3, 12))) for _ in range(8)]
    y_test = rng.randint(0, 2, size=8)
    vocabulary_size = get_vocabulary_size(X_train)
    X_test = [[w for w in x if w < vocabulary_size] for x in X_test]
    X_train = zero_pad(X_train, SEQUENCE_LENGTH)
    X_test = zero_pad(X_test, SEQUENCE_LENGTH)
    tf.set_random_seed(2)
    with tf.name_scope('Inputs'):
        batch_ph = tf.placeholder(tf.int32, [None, SEQUENCE_LENGTH], name='batch_ph')
        target_ph = tf.placeholder(tf.float32, [None], name='target_ph')
        seq_len_ph = tf.placeholder(tf.int32, [None], name='seq_len_ph')
        keep_prob_ph = tf.placeholder(tf.float32, name='keep_prob_ph')
    with tf.name_scope('Embedding_layer'):
        embeddings_var = tf.Variable(tf.random_uniform([vocabulary_size, EMBEDDING_DIM], -1.0, 1.0), trainable=True)
        tf.summary.histogram('embeddings_var', embeddings_var)
        batch_embedded = tf.nn.embedding_lookup(embeddings_var, batch_ph)
    rnn_outputs, _ = bi_rnn(GRUCell(HIDDEN_SIZE), GRUCell(HIDDEN_SIZE), inputs=batch_embedded, sequence_length=seq_len_ph, dtype=tf.float32)
    tf.summary.histogram('RNN_outputs', rnn_outputs)
    with tf.name_scope('Attention_layer'):
        attention_output, alphas = attention(rnn_outputs, ATTENTION_SIZE, return_alphas=True)
        tf.summary.histogram('alphas', alphas)
    drop = tf.nn.dropout(attention_output, keep_prob_ph)
    with tf.name_scope('Fully_connected_layer'):
        W = tf.Variable(tf.truncated_normal([HIDDEN_SIZE * 2, 1], stddev=0.1))
        b = tf.Variable(tf.constant(0., shape=[1]))
        y_hat = tf.nn.xw_plus_b(drop, W, b)
        y_hat = tf.squeeze(y_hat)
        tf.summary.histogram('W', W)
    with tf.name_scope('Metrics'):
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=y_hat, labels=target_ph))
        tf.summary.scalar('loss', loss)
        optimizer = tf.train.AdamOptimizer(learning_rate=1e-2).minimize(loss)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.round(tf.sigmoid(y_hat)), target_ph), tf.float32))
        tf.summary.scalar('accuracy', accuracy)
    merged = tf.summary.merge_all()
    print(rnn_outputs, attention_output, alphas, y_hat, merged)
    print([n.name for n in tf.get_default_graph().as_graph_def().node if n.op == 'HistogramSummary'])
    train_batch_generator = batch_generator(X_train, y_train, BATCH_SIZE)
    test_batch_generator = batch_generator(X_test, y_test, BATCH_SIZE)
    logdir = str(tmp_path)
    train_writer = tf.summary.FileWriter(os.path.join(logdir, 'train'), accuracy.graph)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print("Start learning...")
        for epoch in range(NUM_EPOCHS):
            loss_train = 0; loss_test = 0; accuracy_train = 0; accuracy_test = 0
            print("epoch: {}\t".format(epoch), end="")
            num_batches = X_train.shape[0] // BATCH_SIZE
            for b in range(num_batches):
                x_batch, y_batch = next(train_batch_generator)
                seq_len = np.array([list(x).index(0) + 1 for x in x_batch])
                loss_tr, acc, _, summary = sess.run([loss, accuracy, optimizer, merged], feed_dict={batch_ph: x_batch, target_ph: y_batch, seq_len_ph: seq_len, keep_prob_ph: KEEP_PROB})
                accuracy_train += acc
                loss_train = loss_tr * DELTA + loss_train * (1 - DELTA)
                train_writer.add_summary(summary, b + num_batches * epoch)
            accuracy_train /= num_batches
            num_batches = X_test.shape[0] // BATCH_SIZE
            for b in range(num_batches):
                x_batch, y_batch = next(test_batch_generator)
                seq_len = np.array([list(x).index(0) + 1 for x in x_batch])
                loss_test_batch, acc, summary = sess.run([loss, accuracy, merged], feed_dict={batch_ph: x_batch, target_ph: y_batch, seq_len_ph: seq_len, keep_prob_ph: 1.0})
                accuracy_test += acc
                loss_test += loss_test_batch
            accuracy_test /= num_batches
            loss_test /= num_batches
            print("loss: {:.3f}, val_loss: {:.3f}, acc: {:.3f}, val_acc: {:.3f}".format(loss_train, loss_test, accuracy_train, accuracy_test))
        train_writer.close()
        print(saver.save(sess, os.path.join(logdir, "model")) == os.path.join(logdir, "model"))
        al = sess.run(alphas, {batch_ph: X_test[:2], seq_len_ph: [8, 8], keep_prob_ph: 1.0})
        print(np.round(al, 4).tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["rnn_attention"]


def test_dual_encoder(capsys):
    # dennybritz/chatbot-retrieval models/dual_encoder.py + udc_model.py + udc_hparams.py (the model_fn pieces: train loss, Adam via contrib.layers.optimize_loss, eval probs), sizes shrunk, random data
    import collections
    HParams = collections.namedtuple("HParams", ["batch_size", "embedding_dim", "eval_batch_size", "learning_rate", "max_context_len", "max_utterance_len", "optimizer", "rnn_dim", "vocab_size", "glove_path", "vocab_path"])
    hparams = HParams(batch_size=4, embedding_dim=5, eval_batch_size=2, learning_rate=0.01, max_context_len=6, max_utterance_len=4, optimizer="Adam", rnn_dim=6, vocab_size=20, glove_path=None, vocab_path=None)
    def get_embeddings(hparams):
      initializer = tf.random_uniform_initializer(-0.25, 0.25)
      return tf.get_variable("word_embeddings", shape=[hparams.vocab_size, hparams.embedding_dim], initializer=initializer)
    def dual_encoder_model(hparams, mode, context, context_len, utterance, utterance_len, targets):
      embeddings_W = get_embeddings(hparams)
      context_embedded = tf.nn.embedding_lookup(embeddings_W, context, name="embed_context")
      utterance_embedded = tf.nn.embedding_lookup(embeddings_W, utterance, name="embed_utterance")
      with tf.variable_scope("rnn") as vs:
        cell = tf.nn.rnn_cell.LSTMCell(hparams.rnn_dim, forget_bias=2.0, use_peepholes=True, state_is_tuple=True)
        rnn_outputs, rnn_states = tf.nn.dynamic_rnn(cell, tf.concat([context_embedded, utterance_embedded], 0), sequence_length=tf.concat([context_len, utterance_len], 0), dtype=tf.float32)
        encoding_context, encoding_utterance = tf.split(rnn_states.h, 2, 0)
      with tf.variable_scope("prediction") as vs:
        M = tf.get_variable("M", shape=[hparams.rnn_dim, hparams.rnn_dim], initializer=tf.truncated_normal_initializer())
        generated_response = tf.matmul(encoding_context, M)
        generated_response = tf.expand_dims(generated_response, 2)
        encoding_utterance = tf.expand_dims(encoding_utterance, 2)
        logits = tf.matmul(generated_response, encoding_utterance, True)
        logits = tf.squeeze(logits, [2])
        probs = tf.sigmoid(logits)
        if mode == tf.contrib.learn.ModeKeys.INFER:
          return probs, None
        losses = tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=tf.to_float(targets))
      mean_loss = tf.reduce_mean(losses, name="mean_loss")
      return probs, mean_loss
    def get_id_feature(features, key, len_key, max_len):
      ids = features[key]
      ids_len = tf.squeeze(features[len_key], [1])
      ids_len = tf.minimum(ids_len, tf.constant(max_len, dtype=tf.int64))
      return ids, ids_len
    tf.set_random_seed(8)
    features = {"context": tf.placeholder(tf.int64, [None, hparams.max_context_len]), "context_len": tf.placeholder(tf.int64, [None, 1]),
                "utterance": tf.placeholder(tf.int64, [None, hparams.max_context_len]), "utterance_len": tf.placeholder(tf.int64, [None, 1])}
    targets = tf.placeholder(tf.int64, [None, 1])
    context, context_len = get_id_feature(features, "context", "context_len", hparams.max_context_len)
    utterance, utterance_len = get_id_feature(features, "utterance", "utterance_len", hparams.max_utterance_len)
    probs, loss = dual_encoder_model(hparams, tf.contrib.learn.ModeKeys.TRAIN, context, context_len, utterance, utterance_len, targets)
    train_op = tf.contrib.layers.optimize_loss(loss=loss, global_step=tf.contrib.framework.get_global_step() or tf.train.get_or_create_global_step(), learning_rate=hparams.learning_rate, clip_gradients=10.0, optimizer=hparams.optimizer)
    print(probs, loss, train_op)
    print(sorted(k for k in tf.get_default_graph().get_all_collection_keys() if k != 'while_context'), [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)])
    rng = np.random.RandomState(6)
    def batch(n):
      return {features["context"]: rng.randint(1, 20, size=(n, 6)), features["context_len"]: rng.randint(1, 7, size=(n, 1)),
              features["utterance"]: rng.randint(1, 20, size=(n, 6)), features["utterance_len"]: rng.randint(1, 7, size=(n, 1)), targets: rng.randint(0, 2, size=(n, 1))}
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      for i in range(6):
        l = sess.run(train_op, batch(4))
        print('loss %.5f' % l)
      print(np.round(sess.run(probs, batch(3)), 5).tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["dual_encoder"]



# What TF 1.15 (tensorflow-cpu 1.15.0) printed running each program (measured).
_TF115_PRINTED = {

    "sequence_tagging": [
        "Tensor(\"proj/Reshape_1:0\", shape=(?, ?, 4), dtype=float32) Tensor(\"Mean:0\", shape=(), dtype=float32) ['words/_word_embeddings:0', 'chars/_char_embeddings:0', 'chars/bidirectional_rnn/fw/lstm_cell/kernel:0', 'chars/bidirectional_rnn/fw/lstm_cell/bias:0', 'chars/bidirectional_rnn/bw/lstm_cell/kernel:0', 'chars/bidirectional_rnn/bw/lstm_cell/bias:0', 'bi-lstm/bidirectional_rnn/fw/lstm_cell/kernel:0', 'bi-lstm/bidirectional_rnn/fw/lstm_cell/bias:0', 'bi-lstm/bidirectional_rnn/bw/lstm_cell/kernel:0', 'bi-lstm/bidirectional_rnn/bw/lstm_cell/bias:0', 'proj/W:0', 'proj/b:0', 'transitions:0']",
        "epoch 0 batch 0 train loss 5.81629",
        "epoch 0 batch 1 train loss 4.43414",
        "epoch 0 batch 2 train loss 5.53655",
        "epoch 1 batch 0 train loss 5.46496",
        "epoch 1 batch 1 train loss 4.29609",
        "epoch 1 batch 2 train loss 5.48021",
        "[[3, 0, 1], [3, 0, 1, 1, 1], [3, 0]]",
        "Tensor(\"proj/Reshape_1:0\", shape=(?, ?, 4), dtype=float32) Tensor(\"Mean:0\", shape=(), dtype=float32) ['words/_word_embeddings:0', 'chars/_char_embeddings:0', 'chars/bidirectional_rnn/fw/lstm_cell/kernel:0', 'chars/bidirectional_rnn/fw/lstm_cell/bias:0', 'chars/bidirectional_rnn/bw/lstm_cell/kernel:0', 'chars/bidirectional_rnn/bw/lstm_cell/bias:0', 'bi-lstm/bidirectional_rnn/fw/lstm_cell/kernel:0', 'bi-lstm/bidirectional_rnn/fw/lstm_cell/bias:0', 'bi-lstm/bidirectional_rnn/bw/lstm_cell/kernel:0', 'bi-lstm/bidirectional_rnn/bw/lstm_cell/bias:0', 'proj/W:0', 'proj/b:0']",
        "epoch 0 batch 0 train loss 1.37973",
        "epoch 0 batch 1 train loss 1.37375",
        "epoch 0 batch 2 train loss 1.45247",
        "epoch 1 batch 0 train loss 1.32656",
        "epoch 1 batch 1 train loss 1.34998",
        "epoch 1 batch 2 train loss 1.41281",
        "[[3, 3, 3], [0, 0, 0, 1, 2], [2, 0]]",
    ],

    "ctc_example": [
        "Tensor(\"transpose:0\", shape=(?, ?, 28), dtype=float32) Tensor(\"CTCLoss:0\", shape=(?,), dtype=float32) SparseTensor(indices=Tensor(\"CTCGreedyDecoder:0\", shape=(?, 2), dtype=int64), values=Tensor(\"CTCGreedyDecoder:1\", shape=(?,), dtype=int64), dense_shape=Tensor(\"CTCGreedyDecoder:2\", shape=(2,), dtype=int64)) Tensor(\"CTCGreedyDecoder:3\", shape=(?, 1), dtype=float32) Tensor(\"Mean_1:0\", shape=(), dtype=float32)",
        "Epoch 1/6, train_cost = 76.299, train_ler = 0.875, val_cost = 74.596, val_ler = 0.875",
        "Epoch 2/6, train_cost = 74.596, train_ler = 1.000, val_cost = 71.032, val_ler = 1.000",
        "Epoch 3/6, train_cost = 71.032, train_ler = 1.000, val_cost = 65.216, val_ler = 1.000",
        "Epoch 4/6, train_cost = 65.216, train_ler = 1.000, val_cost = 56.893, val_ler = 1.000",
        "Epoch 5/6, train_cost = 56.893, train_ler = 1.000, val_cost = 46.538, val_ler = 1.000",
        "Epoch 6/6, train_cost = 46.538, train_ler = 1.000, val_cost = 35.871, val_ler = 1.000",
        "Original:",
        "he is ok",
        "Decoded:",
        "",
        "SparseTensorValue(indices=array([], shape=(0, 2), dtype=int64), values=array([], dtype=int64), dense_shape=array([1, 0]))",
    ],

    "ptb_word_lm": [
        "Tensor(\"Train/Model/Sum:0\", shape=(), dtype=float32) Tensor(\"Valid/Model/Sum:0\", shape=(), dtype=float32) Tensor(\"Test/Model/Sum:0\", shape=(), dtype=float32) 3",
        "Epoch: 1 Learning rate: 1.000",
        "0.000 perplexity: 9.808",
        "0.250 perplexity: 9.572",
        "0.500 perplexity: 10.604",
        "0.750 perplexity: 10.590",
        "Epoch: 1 Train Perplexity: 10.590",
        "Epoch: 1 Valid Perplexity: 12.870",
        "Epoch: 2 Learning rate: 1.000",
        "0.000 perplexity: 9.554",
        "0.250 perplexity: 9.429",
        "0.500 perplexity: 10.448",
        "0.750 perplexity: 10.363",
        "Epoch: 2 Train Perplexity: 10.363",
        "Epoch: 2 Valid Perplexity: 13.018",
        "Epoch: 3 Learning rate: 0.500",
        "0.000 perplexity: 9.630",
        "0.250 perplexity: 9.423",
        "0.500 perplexity: 9.947",
        "0.750 perplexity: 9.457",
        "Epoch: 3 Train Perplexity: 9.457",
        "Epoch: 3 Valid Perplexity: 12.235",
        "Test Perplexity: 12.292",
    ],

    "rnn_attention": [
        "(<tf.Tensor 'bidirectional_rnn/fw/fw/transpose_1:0' shape=(?, 8, 4) dtype=float32>, <tf.Tensor 'ReverseSequence:0' shape=(?, 8, 4) dtype=float32>) Tensor(\"Attention_layer/Sum:0\", shape=(?, 8), dtype=float32) Tensor(\"Attention_layer/alphas:0\", shape=(?, 8), dtype=float32) Tensor(\"Fully_connected_layer/Squeeze:0\", dtype=float32) Tensor(\"Merge/MergeSummary:0\", shape=(), dtype=string)",
        "['Embedding_layer/embeddings_var', 'RNN_outputs', 'Attention_layer/alphas_1', 'Fully_connected_layer/W']",
        "Start learning...",
        "epoch: 0\tloss: 0.606, val_loss: 0.698, acc: 0.500, val_acc: 0.500",
        "epoch: 1\tloss: 0.603, val_loss: 0.699, acc: 0.500, val_acc: 0.500",
        "epoch: 2\tloss: 0.604, val_loss: 0.701, acc: 0.583, val_acc: 0.500",
        "True",
        "[[0.12520000338554382, 0.12470000237226486, 0.12610000371932983, 0.12639999389648438, 0.125, 0.12430000305175781, 0.12409999966621399, 0.12409999966621399], [0.12620000541210175, 0.12549999356269836, 0.12600000202655792, 0.12520000338554382, 0.12449999898672104, 0.12449999898672104, 0.12430000305175781, 0.12380000203847885]]",
    ],

    "dual_encoder": [
        "Tensor(\"prediction/Sigmoid:0\", shape=(?, 1), dtype=float32) Tensor(\"mean_loss:0\", shape=(), dtype=float32) Tensor(\"OptimizeLoss/control_dependency:0\", shape=(), dtype=float32)",
        "['global_step', 'summaries', 'train_op', 'trainable_variables', 'update_ops', 'variables'] ['OptimizeLoss/global_norm/gradient_norm', 'OptimizeLoss/loss', 'OptimizeLoss/global_norm/clipped_gradient_norm']",
        "loss 0.69244",
        "loss 0.69251",
        "loss 0.69243",
        "loss 0.68832",
        "loss 0.69322",
        "loss 0.69265",
        "[[0.499889999628067], [0.5003700256347656], [0.49928998947143555]]",
    ],

}
