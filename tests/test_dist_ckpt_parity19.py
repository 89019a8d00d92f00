"""Distributed training, checkpoints and summaries as TF 1.x programs use them, against TF 1.15's
own answers (the same programs run under real TF 1.15; its printed results are the literals)."""

import tideflow as tf


def _graph():
    return tf.Graph().as_default()


def test_partitioned_embedding_lookup_of_constant_ids_knows_its_rows():
    # TF 1.15's shape inference evaluates the constant Range -> DynamicPartition subgraph, so
    # the stitched lookup is (3, 3) and its Reshape gradient reads a Const shape
    with _graph():
        with tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(2)):
            emb = tf.get_variable("emb", [6, 3])
        x = tf.nn.embedding_lookup(emb, [0, 3, 5])
        g = tf.get_default_graph()
        assert g.get_tensor_by_name("embedding_lookup:0").get_shape().as_list() == [3, 3]
        assert x.get_shape().as_list() == [3, 3]
        assert g.get_tensor_by_name("embedding_lookup/DynamicPartition:0").get_shape(
        ).as_list() == [None]
        tf.gradients(tf.reduce_sum(x), list(emb))
        assert g.get_operation_by_name("gradients/embedding_lookup/Reshape_1_grad/Shape"
                                       ).type == "Const"
        ids = tf.placeholder(tf.int32, [None])
        assert tf.nn.embedding_lookup(emb, ids).get_shape().as_list() == [None, 3]


def test_saver_reads_partitioned_slices_through_their_read_ops():
    # TF 1.15 saves a ref variable's slices through the Variable (its "<part>/read" value),
    # a whole variable through its ref tensor
    with _graph():
        with tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(2)):
            tf.get_variable("emb", [6, 3])
        tf.get_variable("w", [3, 1])
        tf.train.Saver()
        save = tf.get_default_graph().get_operation_by_name("save/SaveV2")
        assert [t.name for t in save.inputs][3:] == ["m/emb/part_0/read:0",
                                                     "m/emb/part_1/read:0", "w:0"]
