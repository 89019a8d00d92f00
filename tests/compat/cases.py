"""All differential cases, by group; and the differences from TF we knowingly keep."""
from tests.compat.cases_array import ARRAY
from tests.compat.cases_control import CONTROL
from tests.compat.cases_core import CORE
from tests.compat.cases_e2e import E2E
from tests.compat.cases_grads import GRADS
from tests.compat.cases_io import IO
from tests.compat.cases_math import MATH
from tests.compat.cases_misc import MISC
from tests.compat.cases_more import MORE
from tests.compat.cases_nn import NN
from tests.compat.cases_train import TRAIN

GROUPS = {
    "math": MATH,
    "array": ARRAY,
    "train": TRAIN,
    "core": CORE,
    "control": CONTROL,
    "nn": NN,
    "misc": MISC,
    "more": MORE,
    "grads": GRADS,
    "io": IO,
    "e2e": E2E,
}

# case name -> why tideflow still differs from TF there (the TF comparison is then xfail).
KNOWN_DIFFERENCES = {
    "stricter_static_checks": "tideflow rejects at graph build (ValueError) a reshape to "
                              "[-1, -1] and a repeated transpose perm; TF builds them and fails "
                              "only when run (a too-large REFLECT padding now builds, as TF)",
    "gradient_names_dense": "gate_gradients: tideflow gates only the gradients it keeps (it never "
                            "computes MatMul's gradient for the input placeholder), so no "
                            "gradients/MatMul_grad/tuple/* ops where TF gates both",
    "gradient_names_sgd": "same gating difference: no gradients/sub_grad/tuple/* (the constant's "
                          "gradient is pruned)",
    "resource_variables": "use_resource=True makes a reference variable (no .handle)",
    "graph_seed_only": "a graph seed without op seeds: tideflow derives op seeds as TF 1.x "
                       "(graph._last_id, the op count); TF 2's graph mode counts random ops",
    "graph_seed_and_op_seed_mix": "same: the unseeded dropout's derived op seed (TF 1.x rule)",
    "adagrad_da_update_ops": "the step + 1 is an Add op where TF 1.15's + makes AddV2 (the "
                             "ApplyAdagradDA ops and the rest match)",
}
