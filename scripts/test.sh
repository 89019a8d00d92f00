#!/usr/bin/env bash
# Sets up the environment (first run only) and runs the linter and the whole test suite.
source "$(dirname "$0")/env.sh"
ruff check tideflow tests benchmarks examples
python -m pytest -q "$@"
