# Sourced by the other scripts: makes (once) and activates the project's virtual environment.
# TIDEFLOW_VENV overrides its location (default: .venv in the repository).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TIDEFLOW_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "[tideflow] creating virtual environment in $VENV"
  "$PY" -m venv "$VENV"
fi
STAMP="$VENV/.tideflow-installed"
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
  echo "[tideflow] installing tideflow and its test dependencies into $VENV"
  LOG="$VENV/install.log"
  if ! { "$VENV/bin/python" -m pip install -q --upgrade pip &&
         "$VENV/bin/python" -m pip install -q -e "$ROOT[test]"; } >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "[tideflow] installation failed (log above, also in $LOG)" >&2
    exit 1
  fi
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
