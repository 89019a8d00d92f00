"""All differential cases, by group; and the differences from TF we knowingly keep."""
from tests.compat.cases_math import MATH

GROUPS = {
    "math": MATH,
}

# case name -> why tideflow still differs from TF there (the TF comparison is then xfail).
KNOWN_DIFFERENCES = {}
