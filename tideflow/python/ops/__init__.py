"""``tensorflow.python.ops``: the generated-op modules TF 1.x programs import directly."""
