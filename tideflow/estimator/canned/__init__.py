"""Canned estimators: DNN, linear, combined and baseline models over feature columns."""
