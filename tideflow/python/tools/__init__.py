"""``tensorflow.python.tools``: the graph tools TF 1.x programs call from Python
(``freeze_graph``, ``inspect_checkpoint``, ``optimize_for_inference_lib``, ``strip_unused_lib``,
``saved_model_utils``, ``saved_model_cli``'s ``show`` and ``scan``), written on tideflow's
GraphDef, Saver and checkpoint APIs."""
