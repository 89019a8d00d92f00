"""All differential cases, by group; and the differences from TF we knowingly keep."""
from tests.compat.cases_array import ARRAY
from tests.compat.cases_math import MATH

GROUPS = {
    "math": MATH,
    "array": ARRAY,
}

# case name -> why tideflow still differs from TF there (the TF comparison is then xfail).
KNOWN_DIFFERENCES = {
    "stricter_static_checks": "tideflow rejects at graph build (ValueError) a REFLECT padding "
                              "too large, a reshape to [-1, -1] and a repeated transpose perm; "
                              "TF builds them and fails only when run",
}
