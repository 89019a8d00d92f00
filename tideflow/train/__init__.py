"""``tf.train``: optimizers, learning-rate schedules, moving averages, the global step and
graph writing (explicit re-exports only)."""

from tideflow.distributed.cluster import ClusterDef, ClusterSpec, JobDef, ServerDef
from tideflow.distributed.server import Server
from tideflow.framework.graph_io import write_graph
from tideflow.ops.sdca_ops import sdca_fprint, sdca_optimizer, sdca_shrink_l1
from tideflow.protos.example_pb2 import Example, SequenceExample
from tideflow.protos.feature_pb2 import (
    BytesList,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
)
from tideflow.protos.saver_pb2 import SaverDef
from tideflow.summary.summary_iterator import summary_iterator
from tideflow.summary.writer import FileWriterCache as SummaryWriterCache
from tideflow.summary.writer import SummaryWriter
from tideflow.train import experimental, queue_runner
from tideflow.train.adadelta import AdadeltaOptimizer
from tideflow.train.adagrad import AdagradOptimizer
from tideflow.train.adagrad_da import AdagradDAOptimizer
from tideflow.train.adam import AdamOptimizer
from tideflow.train.basic_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from tideflow.train.basic_loops import basic_train_loop
from tideflow.train.checkpoint_management import (
    checkpoint_exists,
    generate_checkpoint_state_proto,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    remove_checkpoint,
    update_checkpoint_state,
)
from tideflow.train.checkpoint_utils import (
    NewCheckpointReader,
    init_from_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from tideflow.train.coordinator import Coordinator, LooperThread
from tideflow.train.device_setter import replica_device_setter
from tideflow.train.ftrl import FtrlOptimizer
from tideflow.train.gradient_descent import GradientDescentOptimizer
from tideflow.train.input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    match_filenames_once,
    maybe_batch,
    maybe_batch_join,
    maybe_shuffle_batch,
    maybe_shuffle_batch_join,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from tideflow.train.learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    piecewise_constant,
    polynomial_decay,
)
from tideflow.train.learning_rate_decay import piecewise_constant as piecewise_constant_decay
from tideflow.train.momentum import MomentumOptimizer
from tideflow.train.monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SessionCreator,
    SingularMonitoredSession,
    WorkerSessionCreator,
)
from tideflow.train.moving_averages import ExponentialMovingAverage, assign_moving_average
from tideflow.train.optimizer import Optimizer
from tideflow.train.profiler_hook import ProfilerHook
from tideflow.train.progress_hook import ProgressHook
from tideflow.train.proximal_adagrad import ProximalAdagradOptimizer
from tideflow.train.proximal_gradient_descent import ProximalGradientDescentOptimizer
from tideflow.train.quantize_training import do_quantize_training_on_graphdef
from tideflow.train.queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from tideflow.train.rmsprop import RMSPropOptimizer
from tideflow.train.saver import Saver, export_meta_graph, import_meta_graph
from tideflow.train.session_manager import SessionManager
from tideflow.train.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from tideflow.train.supervisor import Supervisor
from tideflow.train.sync_replicas_optimizer import SyncReplicasOptimizer, SyncReplicasOptimizerV2
from tideflow.train.trackable_checkpoint import Checkpoint, CheckpointManager, CheckpointOptions
from tideflow.train.train_extras import checkpoints_iterator, noisy_linear_cosine_decay
from tideflow.train.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)
from tideflow.train.warm_starting import VocabInfo, warm_start
