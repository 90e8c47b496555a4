#!/usr/bin/env python3
"""Write the graph manifest (sp-inspect/graph-v1) of a PyFlink job without running the job.

    python sp_inspect_graph.py [--output FILE] JOB.py [JOB ARGS...]

Runs JOB.py with StreamExecutionEnvironment.execute() and execute_async() intercepted: at the first call
the stream graph is generated exactly as PyFlink's own execute() generates it (Python operator
configuration and fusion included), turned into Flink's JobGraph, and each operator's IDs, name, uid,
parallelism, explicitly configured max parallelism, inputs, whether it holds state ("stateful": true,
false, or null when not known; see stateful()) and where the job's code created it ("defined_at": file and
line, or null; see _CallSites) are written as JSON, with the configuration of each source and sink writer
("connector": Kafka sources and sinks in full, read from the connector's objects; see connector()) and
the job's checkpointing, state backend, restart strategy and max parallelism ("job"; see job()). Table API
and SQL jobs are intercepted too (TableEnvironment.execute_sql of an INSERT, EXECUTE STATEMENT SET or
query, StatementSet.execute, Table.execute_insert, Table.execute, TablePipeline.execute and, where the
release has it, TableEnvironment.execute): the planner translates the statements and the table
environment's executor makes the stream graph, as submitting them would. Then the script exits (status 0)
instead of running the job. Use the PyFlink release the job will be deployed on: the IDs are computed by that release's own code
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


# ---- connector and job configuration ----------------------------------------------------------------
# Read from the job's own Java objects by reflection, by class and field name (as the Java helper does), so
# that neither a particular Kafka connector release nor the connector itself is needed.

def _jvm():
    from pyflink.java_gateway import get_gateway
    return get_gateway().jvm


def _no_args(jvm, cls):
    from pyflink.java_gateway import get_gateway
    return get_gateway().new_array(cls, 0)


def _field(obj, name):
    """A declared field of the Java object's class or a superclass, or None."""
    from py4j.protocol import Py4JError
    if obj is None or not hasattr(obj, "getClass"):
        return None
    c = obj.getClass()
    while c is not None:
        try:
            f = c.getDeclaredField(name)
        except Py4JError:
            c = c.getSuperclass()
            continue
        try:
            f.setAccessible(True)
            return f.get(obj)
        except Py4JError:
            return None
    return None


def _has_field(obj, name):
    if obj is None or not hasattr(obj, "getClass"):
        return False
    c = obj.getClass()
    while c is not None:
        if any(f.getName() == name for f in c.getDeclaredFields()):
            return True
        c = c.getSuperclass()
    return False


def _call(obj, method):
    """A public no-argument Java method's result, or None when there is none or it fails."""
    from py4j.protocol import Py4JError
    if obj is None or not hasattr(obj, "getClass"):
        return None
    try:
        return getattr(obj, method)()
    except Py4JError:
        return None


def _call_declared(obj, method):
    """A (possibly non-public) no-argument method declared by the class or a superclass, or None."""
    from py4j.protocol import Py4JError
    if obj is None or not hasattr(obj, "getClass"):
        return None
    jvm = _jvm()
    c = obj.getClass()
    while c is not None:
        try:
            m = c.getDeclaredMethod(method, _no_args(jvm, jvm.Class))
        except Py4JError:
            c = c.getSuperclass()
            continue
        try:
            m.setAccessible(True)
            return m.invoke(obj, _no_args(jvm, jvm.Object))
        except Py4JError:
            return None
    return None


def _static_field(near, class_name, name):
    from py4j.protocol import Py4JError
    jvm = _jvm()
    try:
        loader = near.getClass().getClassLoader() if near is not None else None
        if loader is None:
            loader = jvm.Thread.currentThread().getContextClassLoader()
        return jvm.Class.forName(class_name, False, loader).getField(name).get(None)
    except Py4JError:
        return None


def _class_name(obj):
    return obj.getClass().getName()


def _lower(obj):
    if obj is None:
        return None
    if hasattr(obj, "getClass"):
        obj = obj.name() if _is_a(obj, "java.lang.Enum") else obj.toString()
    return str(obj).lower()


def _as_int(obj):
    if obj is None:
        return None
    if hasattr(obj, "getClass"):
        if _is_a(obj, "java.time.Duration"):
            return int(obj.toMillis())
        obj = obj.toString()
    if isinstance(obj, bool):
        return None
    try:
        return int(str(obj).strip())
    except ValueError:
        return None


def _prop(props, key):
    """A Properties value (which may be a non-string put directly), or None."""
    if props is None:
        return None
    try:
        v = props.get(key)
    except Exception:  # py4j: not a map
        return None
    return None if v is None else (v if isinstance(v, (str, int)) else str(v.toString()))


def _str(obj):
    if obj is None:
        return None
    return str(obj.toString()) if hasattr(obj, "getClass") else str(obj)


def _other(obj):
    return {"type": "other", "class": _class_name(obj)}


def connector(node):
    """The connector of a source (FLIP-27 Source, legacy SourceFunction) or a sink writer (Sink V2 / V1
    writer, legacy SinkFunction): Kafka sources and sinks in full, others by class; None for the rest (a
    sink's committer included: its configuration is the writer's)."""
    factory = node.getOperatorFactory()
    if factory is None:
        return None
    if _is_a(factory, "org.apache.flink.streaming.api.operators.SourceOperatorFactory"):
        source = _field(factory, "source")
        if source is None:
            return None
        if _is_a(source, "org.apache.flink.connector.kafka.source.KafkaSource"):
            return _kafka_source(source)
        return _other(source)
    name = _class_name(factory)
    if name.startswith("org.apache.flink.streaming.runtime.operators.sink.") \
            and name.rsplit(".", 1)[-1] in ("SinkWriterOperatorFactory", "SinkOperatorFactory"):
        sink = _field(factory, "sink")
        if sink is None:
            return None
        if _is_a(sink, "org.apache.flink.connector.kafka.sink.KafkaSink"):
            return _kafka_sink(sink)
        return _other(sink)
    operator = factory.getOperator() \
        if _is_a(factory, "org.apache.flink.streaming.api.operators.SimpleOperatorFactory") else None
    if _is_a(operator, "org.apache.flink.streaming.api.operators.StreamSource") \
            or _is_a(operator, "org.apache.flink.streaming.api.operators.StreamSink"):
        function = _call(operator, "getUserFunction")
        return _other(function) if function is not None else None
    return None


def _offsets(init):
    """"earliest", "latest", "committed[_or_earliest|_or_latest]", "timestamp:<ms>", "specific", or the
    class of a custom OffsetsInitializer."""
    if init is None:
        return None
    simple = _simple(_class_name(init))
    if simple == "LatestOffsetsInitializer":
        return "latest"
    if simple == "TimestampOffsetsInitializer":
        return "timestamp:%d" % _as_int(_field(init, "startingTimestamp"))
    if simple == "SpecifiedOffsetsInitializer":
        return "specific"
    if simple == "ReaderHandledOffsetsInitializer":
        offset = _as_int(_field(init, "startingOffset"))
        split = "org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit"
        marker = {k: _as_int(_static_field(init, split, k))
                  for k in ("EARLIEST_OFFSET", "LATEST_OFFSET", "COMMITTED_OFFSET")}
        if offset is not None and offset == marker["EARLIEST_OFFSET"]:
            return "earliest"
        if offset is not None and offset == marker["LATEST_OFFSET"]:
            return "latest"
        if offset is not None and offset == marker["COMMITTED_OFFSET"]:
            reset = _field(init, "offsetResetStrategy")
            # kafka-clients' OffsetResetStrategy (an enum) or AutoOffsetResetStrategy (type()).
            kind = reset if reset is None or _is_a(reset, "java.lang.Enum") else (_call(reset, "type") or reset)
            r = _lower(kind)
            return "committed" if r in (None, "none") else "committed_or_" + r
    return _class_name(init)


def _kafka_source(source):
    props = _field(source, "props")
    subscriber = _field(source, "subscriber")
    topics, pattern = None, None
    sub = _simple(_class_name(subscriber)) if subscriber is not None else ""
    if sub == "TopicListSubscriber":
        t = _field(subscriber, "topics")
        topics = [str(x) for x in t] if t is not None else None
    elif sub == "TopicPatternSubscriber":
        p = _field(subscriber, "topicPattern")
        pattern = str(p.pattern()) if p is not None else None
    elif sub == "PartitionSetSubscriber":
        parts = _field(subscriber, "subscribedPartitions")
        topics = sorted({str(tp.topic()) for tp in parts}) if parts is not None else None
    stopping = _field(source, "stoppingOffsetsInitializer")
    bounded = None if stopping is None or _simple(_class_name(stopping)) == "NoStoppingOffsetsInitializer" \
        else _offsets(stopping)
    discovery = _as_int(_prop(props, "partition.discovery.interval.ms"))
    if discovery is None:
        # Not set: the connector's default (KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS).
        option = _static_field(source, "org.apache.flink.connector.kafka.source.KafkaSourceOptions",
                               "PARTITION_DISCOVERY_INTERVAL_MS")
        discovery = _as_int(_call(option, "defaultValue"))
    return {
        "type": "kafka_source",
        "bootstrap_servers": _str(_prop(props, "bootstrap.servers")),
        "topics": topics,
        "topic_pattern": pattern,
        "starting_offsets": _offsets(_field(source, "startingOffsetsInitializer")),
        "bounded": bounded,
        "partition_discovery_interval_ms": discovery,
        "group_id": _str(_prop(props, "group.id")),
    }


def _sink_topics(serializer):
    """The sink's fixed topics, or None when a topic selector (or a pattern) decides per record."""
    if serializer is None:
        return None
    if _has_field(serializer, "topicSelector"):  # KafkaRecordSerializationSchemaBuilder's wrapper
        selector = _field(serializer, "topicSelector")
        for _ in range(3):
            if selector is None:
                return None
            simple = _simple(_class_name(selector))
            if simple == "ConstantTopicSelector":
                return [_str(_field(selector, "topic"))]
            if simple != "CachingTopicSelector":
                return None
            selector = _field(selector, "topicSelector")
        return None
    if _has_field(serializer, "topics"):  # the SQL connector's DynamicKafkaRecordSerializationSchema
        t = _field(serializer, "topics")
        return [str(x) for x in t] if t is not None else None
    if _has_field(serializer, "topic"):  # older SQL connectors: one topic
        t = _field(serializer, "topic")
        return [_str(t)] if t is not None else None
    return None


def _kafka_sink(sink):
    props = _field(sink, "kafkaProducerConfig")
    naming = _lower(_field(sink, "transactionNamingStrategy")) \
        if _has_field(sink, "transactionNamingStrategy") else None
    return {
        "type": "kafka_sink",
        "bootstrap_servers": _str(_prop(props, "bootstrap.servers")),
        "topics": _sink_topics(_field(sink, "recordSerializer")),
        "delivery_guarantee": _lower(_field(sink, "deliveryGuarantee")),
        "transactional_id_prefix": _str(_field(sink, "transactionalIdPrefix")),
        "transaction_timeout_ms": _as_int(_prop(props, "transaction.timeout.ms")),
        "transaction_naming_strategy": naming,
    }


def _flink_version():
    from pyflink.version import __version__
    try:
        return tuple(int(x) for x in __version__.split(".")[:2])
    except ValueError:
        return (99, 0)


_STATE_BACKENDS = {
    "HashMapStateBackend": "hashmap", "EmbeddedRocksDBStateBackend": "rocksdb", "RocksDBStateBackend": "rocksdb",
    "ForStStateBackend": "forst", "MemoryStateBackend": "jobmanager", "FsStateBackend": "filesystem"}
_RESTART_STRATEGIES = {
    "none": "none", "off": "none", "disable": "none",
    "fixed-delay": "fixed-delay", "fixeddelay": "fixed-delay",
    "failure-rate": "failure-rate", "failurerate": "failure-rate",
    "exponential-delay": "exponential-delay", "exponentialdelay": "exponential-delay",
    "NoRestartStrategyConfiguration": "none",
    "FixedDelayRestartStrategyConfiguration": "fixed-delay",
    "FailureRateRestartStrategyConfiguration": "failure-rate",
    "ExponentialDelayRestartStrategyConfiguration": "exponential-delay"}


def _conf_map(*configs):
    """The options set in these Java configurations (later wins)."""
    out = {}
    for c in configs:
        m = _call(c, "toMap")
        if m is not None:
            for k in list(m):
                out[str(k)] = _str(m[k])
    return out


def job(sg, *configs):
    """The "job" object: checkpointing, state backend, restart strategy, max parallelism, from the stream
    graph (its checkpoint config, execution config and job configuration) and the given configurations
    (the environment's; a table environment's)."""
    conf = _conf_map(*configs, _call(sg, "getJobConfiguration"))
    cc = sg.getCheckpointConfig()
    interval = _as_int(_call(cc, "getCheckpointInterval"))
    checkpointing = interval is not None and interval > 0
    mode = _call(cc, "getCheckpointingConsistencyMode") or _call(cc, "getCheckpointingMode")
    retention = _call(cc, "getExternalizedCheckpointRetention") or _call(cc, "getExternalizedCheckpointCleanup")
    retained = _lower(retention)
    if retained == "no_externalized_checkpoints":
        retained = "no_externalized"
    unaligned = _call(cc, "isUnalignedCheckpointsEnabled")

    # State backend: an object set on the environment (Flink 1.x), else the configuration, else Flink's
    # default (StateBackendOptions.STATE_BACKEND's default: hashmap since 1.13).
    backend = None
    backend_object = _call(sg, "getStateBackend")
    if backend_object is not None:
        backend = _STATE_BACKENDS.get(_simple(_class_name(backend_object)), _class_name(backend_object))
    if backend is None:
        backend = conf.get("state.backend.type") or conf.get("state.backend")
    if backend is None:
        option = _static_field(None, "org.apache.flink.configuration.StateBackendOptions", "STATE_BACKEND")
        backend = _str(_call(option, "defaultValue"))
    if backend is None:
        # Releases whose option has no default: StateBackendLoader's fallback, hashmap from 1.13 on.
        backend = "hashmap" if _flink_version() >= (1, 13) else "jobmanager"
    if backend is not None and backend.lower() in _STATE_BACKENDS.values():
        backend = backend.lower()

    # Restart strategy: the configuration, else one set on the ExecutionConfig (Flink 1.x), else Flink's
    # default: none without checkpointing; with checkpointing exponential-delay from 1.19, fixed-delay before.
    restart = conf.get("restart-strategy.type") or conf.get("restart-strategy")
    if restart is None:
        r = _call(sg.getExecutionConfig(), "getRestartStrategy")
        simple = _simple(_class_name(r)) if r is not None else None
        if simple is not None and not simple.startswith("Fallback"):
            restart = _RESTART_STRATEGIES.get(simple, _class_name(r))
    if restart is not None:
        restart = _RESTART_STRATEGIES.get(restart.lower(), restart)
    else:
        restart = "none" if not checkpointing else \
            "exponential-delay" if _flink_version() >= (1, 19) else "fixed-delay"
    max_parallelism = _as_int(_call(sg.getExecutionConfig(), "getMaxParallelism"))
    if max_parallelism is None or max_parallelism <= 0:
        max_parallelism = _as_int(conf.get("pipeline.max-parallelism"))
    return {
        "checkpoint_interval_ms": interval if checkpointing else None,
        "checkpoint_timeout_ms": _as_int(_call(cc, "getCheckpointTimeout")),
        "min_pause_ms": _as_int(_call(cc, "getMinPauseBetweenCheckpoints")),
        "checkpointing_mode": _lower(mode),
        "externalized_retention": retained,
        "unaligned": unaligned if isinstance(unaligned, bool) else None,
        "state_backend": backend,
        "restart_strategy": restart,
        "max_parallelism": max_parallelism if max_parallelism is not None and max_parallelism > 0 else None,
    }


def manifest(env, sites=None):
    """The manifest of a DataStream job: its stream graph as StreamExecutionEnvironment.execute() makes it."""
    functions = sites.python_functions() if sites is not None else []
    # The same preparation as StreamExecutionEnvironment.execute(): configPythonOperator, Python
    # operator fusion, then Java's getStreamGraph.
    sg = env._generate_stream_graph(False)
    j_env = env._j_stream_execution_environment
    return graph_manifest(sg, sites, functions, [_call_declared(j_env, "getConfiguration")])


def graph_manifest(sg, sites=None, functions=(), configs=()):
    """The manifest of a stream graph; configs: Java configurations the job set besides the graph's own."""
    from pyflink.java_gateway import get_gateway
    from pyflink.version import __version__

    jvm = get_gateway().jvm
    hashes = jvm.org.apache.flink.streaming.api.graph.StreamGraphHasherV2() \
        .traverseStreamGraphAndGenerateHashes(sg)
    nodes = {}
    for node in sg.getStreamNodes().toArray():
        nodes[bytes(hashes.get(node.getId())).hex()] = node
    sources = set(sg.getSourceIDs().toArray())
    locations = defined_at(sites, jvm, sg, list(functions)) if sites is not None else {}
    job_config = job(sg, *configs)
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
            operator = {
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
            }
            config = connector(node)
            if config is not None:
                operator["connector"] = config
            operators.append(operator)
    return {
        "schema": "sp-inspect/graph-v1",
        "generator": "contrib/pyflink/sp_inspect_graph.py",
        "flink_version": __version__,
        "job_name": sg.getJobName(),
        "job": job_config,
        "operators": operators,
    }


def _modify_operations(j_tenv, stmt):
    """The ModifyOperations of a statement that runs a job (INSERT, EXECUTE STATEMENT SET, a query), or None
    for one that runs none (DDL, SHOW, ...)."""
    jvm = _jvm()
    out, found = [], False
    for op in j_tenv.getParser().parse(stmt):
        if _is_a(op, "org.apache.flink.table.operations.StatementSetOperation"):
            out.extend(op.getOperations())
            found = True
        elif _is_a(op, "org.apache.flink.table.operations.ModifyOperation"):
            out.append(op)
            found = True
        elif _is_a(op, "org.apache.flink.table.operations.QueryOperation"):
            out.append(jvm.org.apache.flink.table.operations.CollectModifyOperation(op))
            found = True
    return out if found else None


def table_manifest(t_env, operations, sites=None):
    """The manifest of the job a table environment would submit for these ModifyOperations: the planner
    translates them (TableEnvironmentImpl.executeInternal's translate) and the table environment's executor
    makes the stream graph (its createPipeline), neither running anything."""
    jvm = _jvm()
    t_env._before_execute()  # Python dependencies and UDF configuration, as execute_sql does
    j_tenv = t_env._j_tenv
    j_operations = jvm.java.util.ArrayList()
    names = []
    for op in operations:
        j_operations.add(op)
        table = _call(op, "getContextResolvedTable")
        names.append(_str(table.getIdentifier().asSummaryString()) if table is not None else "collect")
    transformations = j_tenv.getPlanner().translate(j_operations)
    executor = _field(j_tenv, "execEnv")
    config = j_tenv.getConfig()
    try:  # the jars of ADD JAR statements, as executeInternal adds them
        _field(j_tenv, "resourceManager").addJarConfiguration(config)
    except Exception:  # a release without it
        pass
    # The job name is approximated: Flink's is the same unless two sinks share a name (pipeline.name wins).
    sg = executor.createPipeline(transformations, config.getConfiguration(), "insert-into_" + ",".join(names))
    functions = sites.python_functions() if sites is not None else []
    return graph_manifest(sg, sites, functions, [_call(executor, "getConfiguration"), config])


def _intercept_table_api(write, sites):
    """Table API / SQL: every call that would submit a job writes its manifest instead."""
    try:
        from pyflink.table import TableEnvironment, StatementSet, Table
    except ImportError:
        return
    jvm = _jvm()
    execute_sql = TableEnvironment.execute_sql

    def intercept_execute_sql(t_env, stmt, *args, **kwargs):
        operations = _modify_operations(t_env._j_tenv, stmt)
        if operations is None:  # DDL and the like run as usual: they submit no job
            return execute_sql(t_env, stmt, *args, **kwargs)
        write(table_manifest(t_env, operations, sites))

    def intercept_statement_set(statement_set, *_args, **_kwargs):
        write(table_manifest(statement_set._t_env, list(statement_set._j_statement_set.getOperations()), sites))

    def intercept_execute_insert(table, target, overwrite=False, *_args, **_kwargs):
        j_target = target if isinstance(target, str) else target._j_table_descriptor
        pipeline = table._j_table.insertInto(j_target, overwrite)
        write(table_manifest(table._t_env, [_field(pipeline, "operation")], sites))

    def intercept_table_execute(table, *_args, **_kwargs):
        collect = jvm.org.apache.flink.table.operations.CollectModifyOperation(table._j_table.getQueryOperation())
        write(table_manifest(table._t_env, [collect], sites))

    def intercept_table_env_execute(t_env, *_args, **_kwargs):
        # Releases with TableEnvironment.execute(job_name): the statements buffered by sql_update/insert_into.
        write(table_manifest(t_env, list(_field(t_env._j_tenv, "bufferedModifyOperations") or []), sites))

    TableEnvironment.execute_sql = intercept_execute_sql
    StatementSet.execute = intercept_statement_set
    Table.execute_insert = intercept_execute_insert
    Table.execute = intercept_table_execute
    if hasattr(TableEnvironment, "execute"):
        TableEnvironment.execute = intercept_table_env_execute
    try:
        from pyflink.table.table_pipeline import TablePipeline
        TablePipeline.execute = lambda pipeline, *_a, **_k: write(
            table_manifest(pipeline._t_env, [_field(pipeline._j_table_pipeline, "operation")], sites))
    except ImportError:  # before Flink 1.15
        pass


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", "-o", help="write the manifest here (default: stdout)")
    parser.add_argument("job", help="the PyFlink job script")
    parser.add_argument("job_args", nargs=argparse.REMAINDER, help="arguments of the job script")
    args = parser.parse_args(argv)

    from pyflink.datastream import StreamExecutionEnvironment

    sites = _CallSites()
    sites.install()

    def write(doc):
        text = json.dumps(doc, indent=2) + "\n"
        if args.output and args.output != "-":
            with open(args.output, "w") as f:
                f.write(text)
        else:
            sys.__stdout__.write(text)
            sys.__stdout__.flush()
        raise _GraphWritten()

    def intercept(env, *_args, **_kwargs):
        write(manifest(env, sites))

    StreamExecutionEnvironment.execute = intercept
    StreamExecutionEnvironment.execute_async = intercept
    _intercept_table_api(write, sites)
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
