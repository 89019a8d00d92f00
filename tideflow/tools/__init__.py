"""``tensorflow.tools``: the graph tools TF 1.x exposes outside ``tensorflow.python``
(``graph_transforms.TransformGraph``)."""
