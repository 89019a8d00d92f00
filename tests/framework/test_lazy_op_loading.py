"""A graph read from a file may use ops that ``import tideflow`` does not load: importing it
loads every op module first (a SavedModel with crossed feature columns, a beam-search graph)."""

import subprocess
import sys
import textwrap


def test_import_graph_def_loads_op_modules_on_demand(tmp_path):
    path = tmp_path / "graph.pb"
    build = textwrap.dedent(f"""
        import tideflow as tf
        from tideflow.ops import seq2seq_beam_search
        # [time 2, batch 1, beam 2]: at step 1 beam 0 continues beam 1, beam 1 beam 0
        ids = tf.constant([[[1, 2]], [[3, 4]]], name="ids")
        parents = tf.constant([[[0, 0]], [[1, 0]]], name="parents")
        out = seq2seq_beam_search.gather_tree(ids, parents, max_sequence_lengths=[2],
                                              end_token=9)
        tf.identity(out, name="out")
        tf.train.write_graph(tf.get_default_graph(), {str(tmp_path)!r}, "graph.pb",
                             as_text=False)
    """)
    use = textwrap.dedent(f"""
        import tideflow as tf
        from tideflow.framework import op_registry
        assert op_registry.lookup("GatherTree") is None, "already loaded: the test is moot"
        gd = tf.GraphDef()
        gd.ParseFromString(open({str(path)!r}, "rb").read())
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            print(sess.run("out:0").tolist())
    """)
    subprocess.run([sys.executable, "-c", build], check=True, timeout=120)
    out = subprocess.run([sys.executable, "-c", use], check=True, timeout=120,
                         capture_output=True, text=True).stdout
    # beam 0 is 2 then 3 (its parent was beam 1), beam 1 is 1 then 4
    assert out.strip() == "[[[2, 1]], [[3, 4]]]"
