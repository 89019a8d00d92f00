"""The model zoo: TF 1.x model functions (digits, the CIFAR-10 tutorial CNN, Inception-v3), their
input preprocessing and a TFRecord converter, written with the public ``tf.*`` API only."""
