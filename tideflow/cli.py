"""The ``tideflow`` command: ``launch`` (a whole local cluster of processes), ``server`` (one
task's ``tf.train.Server``), ``k8s`` (Kubernetes manifests for a cluster), ``train`` /
``eval`` (the image trainer and its evaluation job, ``examples/image_train.py`` and
``examples/image_eval.py``), and ``run`` (a program that imports ``tensorflow``, on tideflow:
``tideflow.tensorflow_alias``)."""

import argparse
import importlib
import importlib.util
import json
import sys

_USAGE_EXAMPLES = """examples:
  tideflow run train.py --epochs 3        (a program that does `import tensorflow as tf`)
  tideflow launch --ps 1 --workers 2 -- python train.py --steps 1000
  tideflow server --cluster '{"ps": ["localhost:2222"], "worker": ["localhost:2223"]}' \\
      --job ps --task 0
  tideflow k8s --ps 1 --workers 2 --image registry/train:1 -- python train.py > cluster.yaml
  tideflow launch --ps 1 --workers 3 -- tideflow train --model digits_cnn --data_dir DIR \\
      --sync_replicas --replicas_to_aggregate 2
  tideflow eval --model digits_cnn --data_dir DIR --train_dir /tmp/image_train --once
"""

# the programs behind `tideflow train` and `tideflow eval`
_PROGRAMS = {"train": "image_train.py", "eval": "image_eval.py"}


def _split_command(argv):
    """(tideflow's own arguments, the program after the first '--')."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def _parser():
    p = argparse.ArgumentParser(
        prog="tideflow", description="Run tideflow clusters.", epilog=_USAGE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    launch = sub.add_parser(
        "launch", help="run a local cluster: every task a process on a loopback port",
        description="Starts --ps parameter servers and --workers workers on this machine, each "
        "told its task through TF_CONFIG, TIDEFLOW_JOB and TIDEFLOW_TASK; streams their output "
        "prefixed by [job:task]; exits with the chief's (worker 0's) status. Usage: tideflow "
        "launch [options] -- PROGRAM [ARGS...]")
    launch.add_argument("--ps", type=int, default=1, help="parameter server tasks (default 1)")
    launch.add_argument("--workers", type=int, default=2, help="worker tasks (default 2)")
    launch.add_argument("--port-base", type=int, default=None,
                        help="use ports PORT_BASE, PORT_BASE+1, ... (default: free ports)")
    launch.add_argument("--host", default="localhost",
                        help="the host name in the cluster addresses (default localhost)")
    launch.add_argument("--ps-program", action="store_true",
                        help="ps tasks run PROGRAM too (default: they run `tideflow server`)")
    launch.add_argument("--grace", type=float, default=10.0,
                        help="seconds between the stop signal and SIGKILL (default 10)")

    server = sub.add_parser(
        "server", help="run one task's tf.train.Server until killed",
        description="Serves task --task of job --job of the cluster given by --cluster (JSON) "
        "or, when left out, by the TF_CONFIG environment variable.")
    server.add_argument("--cluster", default=None,
                        help='the cluster as JSON: {"ps": ["host:port"], "worker": [...]}')
    server.add_argument("--job", default=None, help="this task's job (e.g. ps)")
    server.add_argument("--task", type=int, default=None, help="this task's index")

    k8s = sub.add_parser(
        "k8s", help="print Kubernetes manifests for a cluster (YAML)",
        description="Prints a headless Service and a StatefulSet per job; pod NAME-JOB-i is "
        "task i, at NAME-JOB-i.NAME-JOB:PORT. Usage: tideflow k8s [options] -- PROGRAM [ARGS...]")
    k8s.add_argument("--ps", type=int, default=1, help="parameter server tasks (default 1)")
    k8s.add_argument("--workers", type=int, default=2, help="worker tasks (default 2)")
    k8s.add_argument("--image", required=True, help="the container image (with tideflow)")
    k8s.add_argument("--name", default="tideflow", help="name prefix (default tideflow)")
    k8s.add_argument("--port", type=int, default=2222, help="the gRPC port (default 2222)")
    k8s.add_argument("--namespace", default=None, help="the namespace (default: none set)")
    for name, script in _PROGRAMS.items():
        sub.add_parser(name, add_help=False,
                       help=f"run examples/{script} (its own flags follow; --help lists them)")
    sub.add_parser("run", add_help=False,
                   help="run a program (or -m module) that imports tensorflow, on tideflow")
    return p


def _run_program(name, argv):
    """Runs the example program behind ``tideflow NAME`` with ``argv`` as its arguments."""
    import os
    import runpy

    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "examples", _PROGRAMS[name])
    if not os.path.exists(script):
        print(f"tideflow {name}: {script} is not there (it ships with the source tree)",
              file=sys.stderr)
        return 2
    sys.argv = [script, *argv]
    sys.path.insert(0, os.path.dirname(script))
    runpy.run_path(script, run_name="__main__")
    return 0


def _launch(args, program):
    from tideflow.distributed.launcher import Launcher

    if not program:
        print("tideflow launch: give the program after '--', e.g. "
              "tideflow launch -- python train.py", file=sys.stderr)
        return 2
    try:
        launcher = Launcher(program, num_ps=args.ps, num_workers=args.workers,
                            port_base=args.port_base, ps_program=args.ps_program,
                            host=args.host, grace=args.grace)
    except ValueError as e:
        print(f"tideflow launch: {e}", file=sys.stderr)
        return 2
    try:
        return launcher.run()
    except OSError as e:
        print(f"tideflow launch: cannot start {program[0]!r}: {e}", file=sys.stderr)
        launcher.stop()
        return 127


def _server_task(args):
    """(cluster, job, task) from the flags, falling back on TF_CONFIG and TIDEFLOW_JOB/TASK."""
    from tideflow import env
    from tideflow.distributed.cluster import ClusterSpec, tf_config_from_env

    config = tf_config_from_env()
    if args.cluster is not None:
        try:
            cluster = ClusterSpec(json.loads(args.cluster))
        except (ValueError, TypeError) as e:
            raise ValueError(f"--cluster is not a cluster description: {e}") from None
    elif config is not None and config.cluster:
        cluster = config.cluster
    else:
        raise ValueError("no cluster: pass --cluster or set TF_CONFIG")
    env_job, env_task = env.cluster_task()
    job = args.job or (config.task_type if config else None) or env_job
    task = args.task
    if task is None:
        task = config.task_index if config and config.task_index is not None else env_task
    if job is None or task is None:
        raise ValueError("no task: pass --job and --task or set TF_CONFIG's task")
    cluster.task_address(job, task)  # ValueError naming an unknown job or task
    return cluster, job, task


def _server(args):
    try:
        cluster, job, task = _server_task(args)
    except ValueError as e:
        print(f"tideflow server: {e}", file=sys.stderr)
        return 2
    if importlib.util.find_spec("tideflow.distributed.server") is None:
        print(
            f"tideflow server: cannot serve {job}:{task} ({cluster.task_address(job, task)}): "
            "tf.train.Server is not available in this tideflow build yet (no "
            "tideflow.distributed.server). Run the ps tasks' program yourself (tideflow launch "
            "--ps-program) until it lands.", file=sys.stderr)
        return 2
    server_lib = importlib.import_module("tideflow.distributed.server")
    server = server_lib.Server(cluster, job_name=job, task_index=task, start=True)
    print(f"tideflow server: serving {job}:{task} at {cluster.task_address(job, task)}",
          file=sys.stderr, flush=True)
    try:
        server.join()
    except KeyboardInterrupt:
        return 130
    return 0


def _k8s(args, program):
    from tideflow.distributed import k8s

    try:
        docs = k8s.manifests(program, args.image, name=args.name, num_ps=args.ps,
                             num_workers=args.workers, port=args.port,
                             namespace=args.namespace)
    except ValueError as e:
        print(f"tideflow k8s: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(k8s.to_yaml(docs))
    return 0


def main(argv=None):
    """Runs the ``tideflow`` command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in _PROGRAMS:
        return _run_program(argv[0], argv[1:])
    if argv and argv[0] == "run":
        from tideflow import tensorflow_alias

        tensorflow_alias.run(argv[1:])
        return 0
    own, program = _split_command(argv)
    args = _parser().parse_args(own)
    if args.command == "launch":
        return _launch(args, program)
    if args.command == "server":
        if program:
            print("tideflow server: takes no program", file=sys.stderr)
            return 2
        return _server(args)
    return _k8s(args, program)


if __name__ == "__main__":
    sys.exit(main())
