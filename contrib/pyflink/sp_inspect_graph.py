#!/usr/bin/env python3
"""Write the graph manifest (sp-inspect/graph-v1) of a PyFlink job without running the job.

    python sp_inspect_graph.py [--output FILE] JOB.py [JOB ARGS...]

Runs JOB.py with StreamExecutionEnvironment.execute() and execute_async() intercepted: at the first call
the stream graph is generated exactly as PyFlink's own execute() generates it (Python operator
configuration and fusion included), turned into Flink's JobGraph, and each operator's IDs, name, uid,
parallelism, explicitly configured max parallelism, inputs, whether it holds state ("stateful": true,
false, or null when not known; see stateful()) and where the job's code created it ("defined_at": file and
line, or null; see _CallSites) are written as JSON. Then the script exits (status 0) instead of running the
job. Use the PyFlink release the job will be deployed on: the IDs are computed by that release's own code
(StreamGraphHasherV2, StreamingJobGraphGenerator). Run it from the repository root for repository-relative
defined_at paths.
"""
import argparse
import functools
import inspect
import json
import os
import runpy
import sys
import threading


class _GraphWritten(BaseException):
    """Raised to stop the job script once the manifest is written."""


def _hierarchy(jclass):
    """Names of a Java class, its superclasses and every interface they implement."""
    out, todo = [], [jclass] if jclass is not None else []
    while todo:
        c = todo.pop()
        name = c.getName()
        if name in out:
            continue
        out.append(name)
        if c.getSuperclass() is not None:
            todo.append(c.getSuperclass())
        todo.extend(c.getInterfaces())
    return out


def _is_a(obj, name):
    return obj is not None and name in _hierarchy(obj.getClass())


def _simple(name):
    return name.replace("$", ".").rsplit(".", 1)[-1]


# Non-keyed Java operators that hold no state of their own: whatever they hold is their user function's
# (CheckpointedFunction / ListCheckpointed), checked first. Matched exactly: a subclass may add state.
_STATELESS_OPERATORS = {
    "org.apache.flink.streaming.api.operators.StreamMap",
    "org.apache.flink.streaming.api.operators.StreamFilter",
    "org.apache.flink.streaming.api.operators.StreamFlatMap",
    "org.apache.flink.streaming.api.operators.ProcessOperator",
    "org.apache.flink.streaming.api.operators.StreamSink",  # legacy SinkFunction sinks: print()
    "org.apache.flink.streaming.runtime.operators.TimestampsAndWatermarksOperator",
}

# Function types of non-keyed Python DataStream functions. Their Java operators (ExternalPythonProcessOperator,
# ExternalPythonCoProcessOperator, the embedded ones) snapshot nothing of their own, and the only operator
# state PyFlink lets Python code create is broadcast state, offered to broadcast functions only.
_STATELESS_PYTHON_FUNCTIONS = {
    "PROCESS", "CO_PROCESS", "MAP", "FLAT_MAP", "CO_MAP", "CO_FLAT_MAP", "FILTER", "REVISE_OUTPUT"}


def _python_function_types(info):
    """Names of the function types of a (fused) Python function chain, or None when one is not known."""
    from pyflink.fn_execution import flink_fn_execution_pb2
    names = flink_fn_execution_pb2.UserDefinedDataStreamFunction.FunctionType
    out, todo = set(), [info] if info is not None else []
    while todo:
        i = todo.pop()
        try:
            out.add(names.Name(i.getFunctionType()))
        except (ValueError, TypeError):
            return None
        for j in i.getInputs() or []:
            if _is_a(j, "org.apache.flink.streaming.api.functions.python.DataStreamPythonFunctionInfo"):
                todo.append(j)
    return out


def stateful(node, source):
    """Whether the stream node's operator holds state in a checkpoint.

    True for sources, keyed operators (a state key serializer: keyed state, timers; PyFlink's keyed Python
    operators among them), windows, Sink V1/V2 writers and committers, broadcast-state operators, user
    functions implementing CheckpointedFunction or ListCheckpointed, and keyed/broadcast/window Python
    functions; False for the known stateless operators whose function declares no state and for non-keyed
    Python functions; None (unknown) otherwise."""
    if source or node.getStateKeySerializer() is not None:
        return True
    factory = node.getOperatorFactory()
    if factory is None:
        return None
    operator = factory.getOperator() \
        if _is_a(factory, "org.apache.flink.streaming.api.operators.SimpleOperatorFactory") else None
    if operator is not None:
        operator_class = operator.getClass()
    else:
        try:
            operator_class = factory.getStreamOperatorClass(factory.getClass().getClassLoader())
        except Exception:  # Py4JJavaError and friends
            operator_class = None
    function = None
    if _is_a(factory, "org.apache.flink.streaming.api.operators.UdfStreamOperatorFactory"):
        function = factory.getUserFunction()
    elif _is_a(operator, "org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator"):
        function = operator.getUserFunction()
    # Flink restores a WrappingFunction's wrapped function's state.
    f = function
    while f is not None:
        names = _hierarchy(f.getClass())
        if ("org.apache.flink.streaming.api.checkpoint.CheckpointedFunction" in names
                or "org.apache.flink.streaming.api.checkpoint.ListCheckpointed" in names):
            return True
        f = f.getWrappedFunction() if any(_simple(n) == "WrappingFunction" for n in names) else None
    names = _hierarchy(factory.getClass()) + _hierarchy(operator_class)
    for name in names:
        if (name in ("org.apache.flink.streaming.api.operators.SourceOperatorFactory",
                     "org.apache.flink.streaming.api.operators.SourceOperator",
                     "org.apache.flink.streaming.api.operators.StreamSource",
                     "org.apache.flink.streaming.api.connector.sink2.GlobalCommitterOperator")
                # Sink V1 (1.12-1.14) and V2 writers, committers, global committers
                or name.startswith("org.apache.flink.streaming.runtime.operators.sink.")
                or "WindowOperator" in _simple(name) or "Broadcast" in _simple(name)):
            return True
    if _is_a(operator, "org.apache.flink.streaming.api.operators.python.DataStreamPythonFunctionOperator"):
        types = _python_function_types(operator.getPythonFunctionInfo())
        if not types:
            return None
        if types <= _STATELESS_PYTHON_FUNCTIONS:
            return False
        if any(w in t for t in types for w in ("KEYED", "BROADCAST", "WINDOW", "REDUCE")):
            return True
        return None
    if operator_class is not None and operator_class.getName() in _STATELESS_OPERATORS \
            and function is not None:
        return False
    return None


class _CallSites:
    """Where the job's code created each Java transformation.

    Every public method of PyFlink's DataStream API classes (DataStream, KeyedStream, DataStreamSink,
    the windowed, connected and broadcast streams, StreamExecutionEnvironment, ...) is wrapped before the
    job runs. The outermost wrapped call (PyFlink's methods call one another: key_by calls process and name)
    notes the innermost stack frame outside PyFlink's package and outside this helper: the line of the job
    that called it. When it returns, every transformation reachable from what it returned (a stream's or
    sink's transformation, then their inputs) that no earlier call produced and that is newer than the
    streams it was given is that call's: get_side_output's side output and identity Map, key_by's
    _stream_key_by_map_operator and partition, print's type-aligning Map."""

    def __init__(self):
        import pyflink
        self.pyflink_dir = os.path.dirname(os.path.abspath(pyflink.__file__)) + os.sep
        self.helper = os.path.abspath(__file__)
        self.by_id = {}  # transformation ID -> (location dict or None, Java transformation)
        self.local = threading.local()

    def location(self):
        f = sys._getframe(2)
        while f is not None:
            name = f.f_code.co_filename
            if name.startswith("<frozen "):
                f = f.f_back
                continue
            path = os.path.abspath(name)
            if path != self.helper and not path.startswith(self.pyflink_dir):
                if name.startswith("<"):
                    return None  # <string>, <stdin>: no file to point at
                return {"file": _display_path(path), "line": f.f_lineno}
            f = f.f_back
        return None

    @staticmethod
    def transformations(obj):
        """The Java transformations a PyFlink object stands for (a stream's, a sink's)."""
        if isinstance(obj, (list, tuple)):
            return [t for o in obj for t in _CallSites.transformations(o)]
        out = []
        if not type(obj).__module__.startswith("pyflink."):  # a py4j JavaObject answers any attribute
            return out
        for attr in ("_j_data_stream", "_j_data_stream_sink"):
            j = getattr(obj, attr, None)
            if j is not None:
                try:
                    out.append(j.getTransformation())
                except Exception:  # not a stream after all
                    pass
        return out

    def record(self, where, result, floor):
        todo = self.transformations(result)
        while todo:
            t = todo.pop()
            tid = t.getId()
            if tid in self.by_id or tid <= floor:
                continue
            self.by_id[tid] = (where, t)
            todo.extend(t.getInputs().toArray())

    def wrap(self, function):
        sites = self

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            depth = getattr(sites.local, "depth", 0)
            if depth:
                return function(*args, **kwargs)
            where = sites.location()
            # Transformations IDs grow: those of the streams passed in, and older, were not made here.
            given = sites.transformations(list(args) + list(kwargs.values()))
            floor = max([t.getId() for t in given], default=-1)
            sites.local.depth = 1
            try:
                result = function(*args, **kwargs)
            finally:
                sites.local.depth = 0
            sites.record(where, result, floor)
            return result
        return wrapper

    def install(self):
        import pyflink.datastream.data_stream as data_stream
        from pyflink.datastream import StreamExecutionEnvironment
        classes = [c for c in vars(data_stream).values()
                   if inspect.isclass(c) and c.__module__ == data_stream.__name__]
        classes.append(StreamExecutionEnvironment)
        try:
            from pyflink.datastream.async_data_stream import AsyncDataStream
            classes.append(AsyncDataStream)
        except ImportError:  # before Flink 2.0
            pass
        for cls in classes:
            for name, attr in list(vars(cls).items()):
                if name.startswith("_"):
                    continue
                if isinstance(attr, staticmethod):
                    setattr(cls, name, staticmethod(self.wrap(attr.__func__)))
                elif isinstance(attr, classmethod):
                    setattr(cls, name, classmethod(self.wrap(attr.__func__)))
                elif inspect.isfunction(attr):
                    setattr(cls, name, self.wrap(attr))

    def python_functions(self):
        """(Java PythonFunction, transformation ID) of each recorded Python operator: the parts a fused
        operator is made of keep their PythonFunction objects."""
        out = []
        for tid, (_, t) in self.by_id.items():
            try:
                info = _python_function_info(t.getOperatorFactory())
            except Exception:  # not a one- or two-input transformation
                info = None
            if info is not None:
                out.append((info.getPythonFunction(), tid))
        return out


def _display_path(path):
    """path relative to the working directory when it is under it (repository-relative when run from a
    repository root), else absolute."""
    for cwd, p in ((os.getcwd(), path), (os.path.realpath(os.getcwd()), os.path.realpath(path))):
        if p == cwd or p.startswith(cwd.rstrip(os.sep) + os.sep):
            return os.path.relpath(p, cwd)
    return path


def _python_function_info(factory):
    if not _is_a(factory, "org.apache.flink.streaming.api.operators.SimpleOperatorFactory"):
        return None
    operator = factory.getOperator()
    if not _is_a(operator, "org.apache.flink.streaming.api.operators.python.DataStreamPythonFunctionOperator"):
        return None
    return operator.getPythonFunctionInfo()


def _first_python_function(info):
    """The PythonFunction of the first part of a (fused) Python function chain."""
    while info is not None:
        inputs = [j for j in info.getInputs() or []
                  if _is_a(j, "org.apache.flink.streaming.api.functions.python.DataStreamPythonFunctionInfo")]
        if not inputs:
            return info.getPythonFunction()
        info = inputs[0]
    return None


def _same(jvm, a, b):
    return jvm.java.lang.System.identityHashCode(a) == jvm.java.lang.System.identityHashCode(b) and a.equals(b)


def defined_at(sites, jvm, sg, functions):
    """Stream node ID -> location of the job's call that made it, or None.

    A node of a recorded transformation: that call. A fused Python operator (a new transformation made when
    the stream graph is generated): the call that made its first part, found by that part's PythonFunction.
    A node of a Sink V2's writer, committer, ... (expanded from the sink's transformation when the stream
    graph is generated): the call that made the sink, found by name ("<sink name>: Writer") among the
    recorded sinks that have no node of their own."""
    node_ids = {n.getId() for n in sg.getStreamNodes().toArray()}
    sinks = [(t.getName(), where) for tid, (where, t) in sites.by_id.items()
             if tid not in node_ids and _simple(t.getClass().getName()) == "SinkTransformation"]
    out = {}
    for node in sg.getStreamNodes().toArray():
        nid = node.getId()
        if nid in sites.by_id:
            out[nid] = sites.by_id[nid][0]
            continue
        wheres = []
        factory = node.getOperatorFactory()
        info = _python_function_info(factory) if factory is not None else None
        if info is not None:
            first = _first_python_function(info)
            wheres = [sites.by_id[tid][0] for f, tid in functions if first is not None and _same(jvm, f, first)]
        else:
            name = node.getOperatorName()
            wheres = [w for n, w in sinks if name.startswith(n + ": ")] or \
                ([w for _, w in sinks] if len(sinks) == 1 else [])
        # Several candidates: known only when they agree.
        out[nid] = wheres[0] if wheres and all(w == wheres[0] for w in wheres) else None
    return out


def manifest(env, sites=None):
    from pyflink.java_gateway import get_gateway
    from pyflink.version import __version__

    jvm = get_gateway().jvm
    functions = sites.python_functions() if sites is not None else []
    # The same preparation as StreamExecutionEnvironment.execute(): configPythonOperator, Python
    # operator fusion, then Java's getStreamGraph.
    sg = env._generate_stream_graph(False)
    hashes = jvm.org.apache.flink.streaming.api.graph.StreamGraphHasherV2() \
        .traverseStreamGraphAndGenerateHashes(sg)
    nodes = {}
    for node in sg.getStreamNodes().toArray():
        nodes[bytes(hashes.get(node.getId())).hex()] = node
    sources = set(sg.getSourceIDs().toArray())
    locations = defined_at(sites, jvm, sg, functions) if sites is not None else {}
    job_graph = sg.getJobGraph()
    operators = []
    for vertex in job_graph.getVerticesSortedTopologicallyFromSources().toArray():
        # getOperatorIDs lists the chain head last.
        for pair in reversed(list(vertex.getOperatorIDs().toArray())):
            generated = pair.getGeneratedOperatorID().toString()
            user = pair.getUserDefinedOperatorID()
            node = nodes.get(generated)
            if node is None:
                raise SystemExit("sp_inspect_graph: operator %s of vertex %s has no stream node"
                                 % (generated, vertex.getName()))
            max_parallelism = node.getMaxParallelism()
            operators.append({
                "id": generated,
                "uid": node.getTransformationUID(),
                "uid_hash": user.get().toString() if user.isPresent() else None,
                "name": node.getOperatorName(),
                "vertex": vertex.getID().toString(),
                "parallelism": node.getParallelism(),
                # Flink marks "not configured" with a non-positive value; the job then adopts the savepoint's.
                "max_parallelism": max_parallelism if max_parallelism > 0 else None,
                "inputs": [bytes(hashes.get(e.getSourceId())).hex() for e in node.getInEdges().toArray()],
                "source": node.getId() in sources,
                "stateful": stateful(node, node.getId() in sources),
                "defined_at": locations.get(node.getId()),
            })
    return {
        "schema": "sp-inspect/graph-v1",
        "generator": "contrib/pyflink/sp_inspect_graph.py",
        "flink_version": __version__,
        "job_name": sg.getJobName(),
        "operators": operators,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", "-o", help="write the manifest here (default: stdout)")
    parser.add_argument("job", help="the PyFlink job script")
    parser.add_argument("job_args", nargs=argparse.REMAINDER, help="arguments of the job script")
    args = parser.parse_args(argv)

    from pyflink.datastream import StreamExecutionEnvironment

    sites = _CallSites()
    sites.install()

    def intercept(env, *_args, **_kwargs):
        doc = manifest(env, sites)
        text = json.dumps(doc, indent=2) + "\n"
        if args.output and args.output != "-":
            with open(args.output, "w") as f:
                f.write(text)
        else:
            sys.__stdout__.write(text)
            sys.__stdout__.flush()
        raise _GraphWritten()

    StreamExecutionEnvironment.execute = intercept
    StreamExecutionEnvironment.execute_async = intercept
    sys.argv = [args.job] + args.job_args
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.job)))
    try:
        runpy.run_path(args.job, run_name="__main__")
    except _GraphWritten:
        return 0
    print("sp_inspect_graph: %s finished without calling execute() or execute_async()" % args.job,
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
