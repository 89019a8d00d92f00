#!/usr/bin/env bash
# Sets up the environment (first run only) and runs the main job.
source "$(dirname "$0")/env.sh"
python examples/demo_cluster.py "$@"
