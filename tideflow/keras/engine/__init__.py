"""The Keras engine: Layer, Node, InputLayer, Network, Model, Sequential."""
