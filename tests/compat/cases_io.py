"""Cases: queues, input pipelines with QueueRunners, Session helpers, RNN cells, tf.io parsing."""

IO = {
    "fifo_queue": """
        q = tf.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], [2]])
        enq = q.enqueue_many(([1, 2, 3], [[1., 1.], [2., 2.], [3., 3.]]))
        deq = q.dequeue(); deqm = q.dequeue_many(2); size = q.size(); close = q.close()
        rec("names", [q.name if isinstance(q.name, str) else q.name.decode(), deq[0].name])
        rec("shapes", [deqm[0].get_shape(), deqm[1].get_shape()])
        with tf.Session() as s:
            s.run(enq); rec("size", s.run(size)); rec("deq", s.run(deq)); rec("deqm", s.run(deqm))
            s.run(close)
            rec("closed_deq", err(lambda: s.run(deq))); rec("closed_enq", err(lambda: s.run(enq)))
        q2 = tf.FIFOQueue(2, tf.int32)
        rec("dtype_err", err(lambda: q2.enqueue(1.5)))
        pq = tf.PaddingFIFOQueue(4, [tf.int32], shapes=[[None]])
        with tf.Session() as s:
            s.run(pq.enqueue([[1, 2, 3]])); s.run(pq.enqueue([[4]]))
            rec("padded", s.run(pq.dequeue_many(2)))
        rq = tf.RandomShuffleQueue(10, 0, tf.int32, shapes=[[]], seed=3)
        with tf.Session() as s:
            s.run(rq.enqueue_many([list(range(8))]))
            rec("rsq_sorted", sorted(s.run(rq.dequeue_many(8)).tolist()), ref=list(range(8)))
        pq2 = tf.PriorityQueue(5, [tf.string], shapes=[[]])
        with tf.Session() as s:
            s.run(pq2.enqueue_many(([3, 1, 2], [b"c", b"a", b"b"])))
            rec("prio", s.run(pq2.dequeue_many(3)))
    """,
    "input_producers_batch": """
        q = tf.train.string_input_producer(["a", "b", "c"], shuffle=False, num_epochs=2)
        x = q.dequeue()
        r = tf.train.range_input_producer(5, shuffle=False).dequeue()
        sl = tf.train.slice_input_producer([tf.constant([1, 2, 3]), tf.constant([10, 20, 30])], shuffle=False)
        b = tf.train.batch(sl, 2, num_threads=1, capacity=10)
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(s, coord=coord)
            out = []
            try:
                for _ in range(10):
                    out.append(s.run(x))
            except tf.errors.OutOfRangeError:
                out.append("END")
            rec("strings", out); rec("range", [s.run(r) for _ in range(7)])
            rec("batch", [s.run(b) for _ in range(2)])
            coord.request_stop(); coord.join(threads, stop_grace_period_secs=5)
        rec("names", [q.name if isinstance(q.name, str) else q.name.decode()])
        rec("qr_count", len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)))
    """,
    "session_helpers": """
        a = tf.placeholder(tf.float32, []); b = a * 2; c = b + 1
        with tf.Session() as s:
            f = s.make_callable([b, c], feed_list=[a]); rec("callable", f(3.))
            f2 = s.make_callable(c, feed_list=[a]); rec("callable_single", f2(1.))
            rec("graph_is", s.graph is tf.get_default_graph())
            rec("list_devices", [d.device_type for d in s.list_devices()])
            with s.as_default():
                rec("eval", c.eval({a: 2.})); rec("default", tf.get_default_session() is s)
        rec("no_default", tf.get_default_session() is None)
        rec("eval_no_sess", err(lambda: c.eval({a: 1.})))
        isess = tf.InteractiveSession(); rec("interactive", c.eval({a: 5.})); isess.close()
        cfg = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False, inter_op_parallelism_threads=2)
        cfg.gpu_options.allow_growth = True
        with tf.Session(config=cfg) as s:
            rec("cfg_run", s.run(c, {a: 0.}))
        ro = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE); md = tf.RunMetadata()
        with tf.Session() as s:
            rec("run_opts", s.run(c, {a: 1.}, options=ro, run_metadata=md)); rec("has_stats", len(md.step_stats.dev_stats) > 0)
    """,
    "parse_example": """
        ex = tf.train.Example(features=tf.train.Features(feature={
            "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2])),
            "b": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5])),
            "c": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"hi"]))})).SerializeToString()
        ex2 = tf.train.Example(features=tf.train.Features(feature={
            "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[3, 4]))})).SerializeToString()
        spec = {"a": tf.FixedLenFeature([2], tf.int64), "b": tf.FixedLenFeature([], tf.float32, default_value=-1.),
                "c": tf.VarLenFeature(tf.string)}
        p = tf.parse_example([ex, ex2], spec)
        p1 = tf.parse_single_example(ex, spec)
        with tf.Session() as s:
            rec("batch", s.run(p)); rec("single", s.run(p1))
            rec("missing", err(lambda: s.run(tf.parse_single_example(ex2, {"b": tf.FixedLenFeature([], tf.float32)}))))
        rec("shapes", {k: (v.get_shape() if hasattr(v, "get_shape") else "sparse") for k, v in p.items()})
        rec("decode_raw", 0)
        with tf.Session() as s:
            rec("raw", s.run(tf.decode_raw(tf.constant([b"\\x01\\x00\\x02\\x00"]), tf.int16)))
            rec("csv", s.run(tf.decode_csv(["1,2.5,x", "3,,y"], [[0], [0.], ["d"]])))
            rec("json_like", s.run(tf.io.decode_csv(["a;b"], [[""], [""]], field_delim=";")))
    """,
    "tfrecord_roundtrip": """
        import tempfile, os
        path = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(3):
                w.write(b"rec%d" % i)
        rec("iter", list(tf.python_io.tf_record_iterator(path)))
        ds = tf.data.TFRecordDataset(path)
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as s:
            rec("ds", [s.run(nxt) for _ in range(3)])
        reader = tf.TFRecordReader()
        fq = tf.train.string_input_producer([path], shuffle=False, num_epochs=1)
        k, v = reader.read(fq)
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator(); th = tf.train.start_queue_runners(s, coord=coord)
            rec("reader", [s.run(v) for _ in range(3)])
            coord.request_stop(); coord.join(th)
        rec("key_suffix", 0)
    """,
}

IO.update({
    "random_shuffle_queue_order": """
        q = tf.RandomShuffleQueue(10, 0, tf.int32, shapes=[[]], seed=3)
        enq = q.enqueue_many([list(range(8))]); deq = q.dequeue_many(8); one = q.dequeue()
        q2 = tf.RandomShuffleQueue(20, 2, [tf.int32, tf.string], shapes=[[], []], seed=5)
        enq2 = q2.enqueue_many([list(range(10)), [str(i) for i in range(10)]]); deq2 = q2.dequeue_many(4)
        with tf.Session() as s:
            s.run(enq); rec("a", s.run(deq)); s.run(enq); rec("b", [s.run(one) for _ in range(8)])
            s.run(enq2); rec("c", s.run(deq2)); rec("d", s.run(deq2))
    """,
    "monitored_session": """
        import tempfile, os
        d = tempfile.mkdtemp()
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer([1., 2.]))
        gs = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * w), global_step=gs)
        steps = []
        with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=[tf.train.StopAtStepHook(last_step=5)],
                                               save_checkpoint_steps=2, save_summaries_steps=None, log_step_count_steps=None) as s:
            while not s.should_stop():
                steps.append(s.run([gs, train])[0])
        rec("steps", steps)
        rec("ckpts", sorted(f for f in os.listdir(d) if f.endswith(".index")))
        rec("latest", os.path.basename(tf.train.latest_checkpoint(d)))
        with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=[tf.train.StopAtStepHook(num_steps=2)],
                                               save_summaries_steps=None, log_step_count_steps=None) as s:
            rec("restored_step", s.run(gs))
            wv = None
            while not s.should_stop():
                wv = s.run([w, train])[0]
            rec("w_final", wv)
        sess = tf.train.SingularMonitoredSession(checkpoint_dir=d)
        rec("singular", sess.run(gs)); sess.close()
    """,
    "scaffold_and_session_manager": """
        v = tf.Variable(3.0, name="v")
        sm = tf.train.SessionManager()
        s = sm.prepare_session("", init_op=tf.global_variables_initializer())
        rec("v", s.run(v)); s.close()
        rec("ready_op", tf.report_uninitialized_variables().name)
        sc = tf.train.Scaffold(); sc.finalize()
        rec("scaffold", [sc.ready_op.dtype, sc.init_op.type, sc.saver is not None])
    """,
})

IO.update({
    "gfile_ops": """
        import tempfile, os
        d = tempfile.mkdtemp()
        G = tf.gfile
        p = os.path.join(d, "a", "b"); G.MakeDirs(p)
        rec("exists", [G.Exists(p), G.Exists(os.path.join(d, "zz")), G.IsDirectory(p)])
        f = os.path.join(p, "x.txt")
        with G.GFile(f, "w") as fh:
            fh.write("hello\\nworld\\n")
        with G.GFile(f) as fh:
            rec("read", fh.read())
        with G.GFile(f, "rb") as fh:
            rec("readb", fh.read())
        with G.Open(f) as fh:
            rec("lines", fh.readlines())
        G.Copy(f, os.path.join(p, "y.txt")); G.Rename(os.path.join(p, "y.txt"), os.path.join(p, "z.txt"))
        rec("list", sorted(G.ListDirectory(p))); rec("glob", sorted(os.path.basename(x) for x in G.Glob(os.path.join(p, "*.txt"))))
        rec("stat", G.Stat(f).length)
        rec("walk", [(os.path.relpath(r, d), sorted(ds), sorted(fs)) for r, ds, fs in G.Walk(d)])
        G.Remove(os.path.join(p, "z.txt")); rec("after_remove", sorted(G.ListDirectory(p)))
        rec("copy_exists_err", err(lambda: G.Copy(f, f)))
        rec("missing_read", err(lambda: G.GFile(os.path.join(d, "nope")).read()))
        G.DeleteRecursively(os.path.join(d, "a")); rec("deleted", G.Exists(p))
    """,
})
