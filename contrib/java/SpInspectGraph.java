// Writes the graph manifest (sp-inspect/graph-v1) of a Java/Scala DataStream job without running it.
//
//   javac -cp <flink jars> -d classes SpInspectGraph.java
//   java -cp <flink jars>:<job jar>:classes SpInspectGraph [--output FILE] MAIN_CLASS [JOB ARGS...]
//
// Installs a context environment, so that StreamExecutionEnvironment.getExecutionEnvironment() in the
// job's main() returns an environment whose execute()/executeAsync() builds Flink's JobGraph from the
// job's StreamGraph (Flink's own StreamGraphHasherV2 and StreamingJobGraphGenerator, of the release on the
// classpath), writes every operator's IDs, name, uid, parallelism, explicitly configured max parallelism,
// inputs and whether it holds state (see stateful()), the configuration of each source and sink writer
// ("connector", see connector(): Kafka sources and sinks in full, read from the connector's objects by
// reflection) and the job's checkpointing, state backend, restart strategy and max parallelism ("job", see
// job()), and stops the job's main() instead of running the job. Works with Flink 1.12 and later; the
// Kafka connector is not needed to compile it.
// Jobs that build their environment with createLocalEnvironment()/createRemoteEnvironment() bypass it.
import java.io.*;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamEdge;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamGraphHasherV2;
import org.apache.flink.streaming.api.graph.StreamNode;

public class SpInspectGraph extends StreamExecutionEnvironment {
    /** Thrown through the job's main() once the manifest is written. */
    static final class Written extends RuntimeException {
        Written() { super("sp-inspect: graph written", null, false, false); }
    }

    static String output;

    SpInspectGraph(Configuration conf) { super(conf); }

    @Override
    public org.apache.flink.api.common.JobExecutionResult execute(StreamGraph graph) throws Exception {
        write(graph, this);
        throw new Written();
    }

    @Override
    public JobClient executeAsync(StreamGraph graph) throws Exception {
        write(graph, this);
        throw new Written();
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }

    static String q(Object o) {
        if (o == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : o.toString().toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    /** StreamNode.getMaxParallelism() is package private before Flink 1.15. */
    static int maxParallelism(StreamNode n) {
        try {
            java.lang.reflect.Method m = StreamNode.class.getDeclaredMethod("getMaxParallelism");
            m.setAccessible(true);
            return (Integer) m.invoke(n);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read the max parallelism of " + n, e);
        }
    }

    /** Whether the class, a superclass or an interface it implements (directly or not) is named {@code name}. */
    static boolean isA(Class<?> c, String name) {
        for (String n : hierarchy(c)) if (n.equals(name)) return true;
        return false;
    }

    static boolean isA(Object o, String name) { return o != null && isA(o.getClass(), name); }

    /** Names of the class, its superclasses and every interface they implement. */
    static Set<String> hierarchy(Class<?> c) {
        Set<String> out = new LinkedHashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>();
        if (c != null) todo.add(c);
        while (!todo.isEmpty()) {
            Class<?> k = todo.poll();
            if (!out.add(k.getName())) continue;
            if (k.getSuperclass() != null) todo.add(k.getSuperclass());
            todo.addAll(Arrays.asList(k.getInterfaces()));
        }
        return out;
    }

    /** Calls a public no-argument method by name; null when it does not exist or fails. */
    static Object call(Object o, String method) {
        if (o == null) return null;
        try {
            return o.getClass().getMethod(method).invoke(o);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    static String simpleName(String className) {
        return className.substring(Math.max(className.lastIndexOf('.'), className.lastIndexOf('$')) + 1);
    }

    // Non-keyed operators that hold no state of their own: whatever they hold is their user function's
    // (CheckpointedFunction / ListCheckpointed), checked first. Matched exactly: a subclass may add state.
    static final Set<String> STATELESS_OPERATORS = new HashSet<>(Arrays.asList(
            "org.apache.flink.streaming.api.operators.StreamMap",
            "org.apache.flink.streaming.api.operators.StreamFilter",
            "org.apache.flink.streaming.api.operators.StreamFlatMap",
            "org.apache.flink.streaming.api.operators.ProcessOperator",
            "org.apache.flink.streaming.api.operators.StreamSink", // legacy SinkFunction sinks (print, ...)
            "org.apache.flink.streaming.runtime.operators.TimestampsAndWatermarksOperator"));

    // PyFlink DataStream function types of non-keyed Python functions, which keep nothing in Flink state
    // (Python broadcast state is the only operator state PyFlink offers, and only to broadcast functions).
    static final Set<String> STATELESS_PYTHON_FUNCTIONS = new HashSet<>(Arrays.asList(
            "PROCESS", "CO_PROCESS", "MAP", "FLAT_MAP", "CO_MAP", "CO_FLAT_MAP", "FILTER", "REVISE_OUTPUT"));

    /**
     * Whether the operator holds state in a checkpoint: TRUE for sources, keyed operators, windows, Sink V1/V2
     * writers and committers, broadcast-state operators, user functions implementing CheckpointedFunction
     * or ListCheckpointed, and keyed or broadcast Python functions; FALSE for the known stateless operators
     * above whose function declares no state; null (unknown) for everything else.
     */
    static Boolean stateful(StreamNode n, boolean source) {
        if (source) return true;
        if (call(n, "getStateKeySerializer") != null) return true; // keyed: keyed state, timers
        Object factory = call(n, "getOperatorFactory");
        if (factory == null) return null;
        Object operator = isA(factory, "org.apache.flink.streaming.api.operators.SimpleOperatorFactory")
                ? call(factory, "getOperator") : null;
        Class<?> operatorClass = operator != null ? operator.getClass() : null;
        if (operatorClass == null) {
            try {
                operatorClass = (Class<?>) factory.getClass().getMethod("getStreamOperatorClass", ClassLoader.class)
                        .invoke(factory, Thread.currentThread().getContextClassLoader());
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                operatorClass = null;
            }
        }
        Object function = isA(factory, "org.apache.flink.streaming.api.operators.UdfStreamOperatorFactory")
                ? call(factory, "getUserFunction") : call(operator, "getUserFunction");
        // Flink restores a WrappingFunction's wrapped function's state.
        for (Object f = function; f != null; f = simpleNames(f.getClass()).contains("WrappingFunction")
                ? call(f, "getWrappedFunction") : null) {
            if (isA(f, "org.apache.flink.streaming.api.checkpoint.CheckpointedFunction")
                    || isA(f, "org.apache.flink.streaming.api.checkpoint.ListCheckpointed")) return true;
        }
        Set<String> names = new LinkedHashSet<>(hierarchy(factory.getClass()));
        names.addAll(hierarchy(operatorClass));
        for (String name : names) {
            String simple = simpleName(name);
            if (name.equals("org.apache.flink.streaming.api.operators.SourceOperatorFactory")
                    || name.equals("org.apache.flink.streaming.api.operators.SourceOperator")
                    || name.equals("org.apache.flink.streaming.api.operators.StreamSource")
                    // Sink V1 (1.12-1.14) and V2 writers, committers, global committers
                    || name.startsWith("org.apache.flink.streaming.runtime.operators.sink.")
                    || name.equals("org.apache.flink.streaming.api.connector.sink2.GlobalCommitterOperator")
                    || simple.contains("WindowOperator")
                    || simple.contains("Broadcast")) return true;
        }
        if (isA(operator, "org.apache.flink.streaming.api.operators.python.DataStreamPythonFunctionOperator")) {
            Set<String> types = pythonFunctionTypes(call(operator, "getPythonFunctionInfo"));
            if (types == null || types.isEmpty()) return null;
            if (STATELESS_PYTHON_FUNCTIONS.containsAll(types)) return false;
            for (String t : types) {
                if (t.contains("KEYED") || t.contains("BROADCAST") || t.contains("WINDOW") || t.contains("REDUCE")) return true;
            }
            return null;
        }
        if (operatorClass != null && STATELESS_OPERATORS.contains(operatorClass.getName()) && function != null) return false;
        return null;
    }

    static Set<String> simpleNames(Class<?> c) {
        Set<String> out = new HashSet<>();
        for (String n : hierarchy(c)) out.add(simpleName(n));
        return out;
    }

    /** The function types of a (fused) Python function chain by name, or null when one is not known. */
    static Set<String> pythonFunctionTypes(Object info) {
        Set<String> out = new HashSet<>();
        Deque<Object> todo = new ArrayDeque<>();
        if (info != null) todo.add(info);
        while (!todo.isEmpty()) {
            Object i = todo.poll();
            Object type = call(i, "getFunctionType");
            if (!(type instanceof Integer)) return null;
            try {
                Object name = Class.forName("org.apache.flink.fnexecution.v1.FlinkFnApi$UserDefinedDataStreamFunction$FunctionType",
                        false, i.getClass().getClassLoader()).getMethod("forNumber", int.class).invoke(null, type);
                if (name == null) return null;
                out.add(name.toString());
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return null;
            }
            Object inputs = call(i, "getInputs");
            if (inputs instanceof Object[]) {
                for (Object in : (Object[]) inputs) {
                    if (isA(in, "org.apache.flink.streaming.api.functions.python.DataStreamPythonFunctionInfo")) todo.add(in);
                }
            }
        }
        return out;
    }

    // ---- connector and job configuration -------------------------------------------------------------
    // Read from the job's own objects by reflection, by class and field name, so that the helper needs
    // neither the Kafka connector to compile nor a particular connector or Flink release to run.

    /** A declared field of the object's class or a superclass, or null when there is none. */
    static Object field(Object o, String name) {
        if (o == null) return null;
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                java.lang.reflect.Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // try the superclass
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /** Whether the object's class declares (or inherits) a field of that name. */
    static boolean hasField(Object o, String name) {
        for (Class<?> c = o == null ? null : o.getClass(); c != null; c = c.getSuperclass()) {
            for (java.lang.reflect.Field f : c.getDeclaredFields()) if (f.getName().equals(name)) return true;
        }
        return false;
    }

    /** Calls a (possibly non-public) no-argument method declared by the class or a superclass; null when none. */
    static Object callDeclared(Object o, String method) {
        for (Class<?> c = o == null ? null : o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                java.lang.reflect.Method m = c.getDeclaredMethod(method);
                m.setAccessible(true);
                return m.invoke(o);
            } catch (NoSuchMethodException e) {
                // try the superclass
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return null;
            }
        }
        return null;
    }

    /** A public static field of a class loaded by the object's class loader; null when absent. */
    static Object staticField(Object near, String className, String name) {
        try {
            ClassLoader cl = near != null && near.getClass().getClassLoader() != null
                    ? near.getClass().getClassLoader() : Thread.currentThread().getContextClassLoader();
            return Class.forName(className, false, cl).getField(name).get(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    static String lower(Object o) {
        if (o == null) return null;
        String s = o instanceof Enum ? ((Enum<?>) o).name() : o.toString();
        return s.toLowerCase(Locale.ROOT);
    }

    static Long asLong(Object o) {
        if (o == null) return null;
        if (o instanceof Number) return ((Number) o).longValue();
        if (o instanceof java.time.Duration) return ((java.time.Duration) o).toMillis();
        try {
            return Long.parseLong(o.toString().trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A property's value (Properties may hold non-string values put directly), or null. */
    static Object prop(Object props, String key) {
        if (!(props instanceof Properties)) return null;
        Properties p = (Properties) props;
        Object v = p.get(key);
        return v != null ? v : p.getProperty(key);
    }

    static String str(Object o) { return o == null ? null : o.toString(); }

    static String list(Collection<?> items) {
        if (items == null) return "null";
        List<String> out = new ArrayList<>();
        for (Object i : items) out.add(q(i));
        return "[" + String.join(", ", out) + "]";
    }

    static String num(Long v) { return v == null ? "null" : v.toString(); }

    /** ", \"connector\": {...}" for a source or a sink writer, "" for other operators. */
    static String connectorField(StreamNode n) {
        String c;
        try {
            c = connector(n);
        } catch (RuntimeException | LinkageError e) {
            c = null;
        }
        return c == null ? "" : ", \"connector\": " + c;
    }

    static String other(Object o) { return "{\"type\": \"other\", \"class\": " + q(o.getClass().getName()) + "}"; }

    /**
     * The connector of a source (FLIP-27 Source, legacy SourceFunction) or a sink writer (Sink V2 / V1
     * writer, legacy SinkFunction): Kafka sources and sinks in full, others by class; null for the rest
     * (a sink's committer included: its configuration is the writer's).
     */
    static String connector(StreamNode n) {
        Object factory = call(n, "getOperatorFactory");
        if (factory == null) return null;
        if (isA(factory, "org.apache.flink.streaming.api.operators.SourceOperatorFactory")) {
            Object source = field(factory, "source");
            if (source == null) return null;
            if (isA(source, "org.apache.flink.connector.kafka.source.KafkaSource")) return kafkaSource(source);
            return other(source);
        }
        String factoryClass = factory.getClass().getName();
        if (factoryClass.startsWith("org.apache.flink.streaming.runtime.operators.sink.")
                && (factoryClass.endsWith(".SinkWriterOperatorFactory") || factoryClass.endsWith(".SinkOperatorFactory"))) {
            Object sink = field(factory, "sink");
            if (sink == null) return null;
            if (isA(sink, "org.apache.flink.connector.kafka.sink.KafkaSink")) return kafkaSink(sink);
            return other(sink);
        }
        Object operator = isA(factory, "org.apache.flink.streaming.api.operators.SimpleOperatorFactory")
                ? call(factory, "getOperator") : null;
        if (isA(operator, "org.apache.flink.streaming.api.operators.StreamSource")
                || isA(operator, "org.apache.flink.streaming.api.operators.StreamSink")) {
            Object function = call(operator, "getUserFunction");
            return function == null ? null : other(function);
        }
        return null;
    }

    /** "earliest", "latest", "committed[_or_earliest|_or_latest]", "timestamp:<ms>", "specific", or the class. */
    static String offsets(Object init) {
        if (init == null) return null;
        String simple = simpleName(init.getClass().getName());
        switch (simple) {
            case "LatestOffsetsInitializer": return "latest";
            case "TimestampOffsetsInitializer": return "timestamp:" + asLong(field(init, "startingTimestamp"));
            case "SpecifiedOffsetsInitializer": return "specific";
            case "ReaderHandledOffsetsInitializer": {
                Long offset = asLong(field(init, "startingOffset"));
                String split = "org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit";
                if (offset == null) break;
                if (offset.equals(asLong(staticField(init, split, "EARLIEST_OFFSET")))) return "earliest";
                if (offset.equals(asLong(staticField(init, split, "LATEST_OFFSET")))) return "latest";
                if (offset.equals(asLong(staticField(init, split, "COMMITTED_OFFSET")))) {
                    Object reset = field(init, "offsetResetStrategy");
                    // kafka-clients' OffsetResetStrategy (an enum) or AutoOffsetResetStrategy (type()).
                    Object type = reset instanceof Enum ? reset : call(reset, "type");
                    String r = lower(type != null ? type : reset);
                    return r == null || r.equals("none") ? "committed" : "committed_or_" + r;
                }
                break;
            }
            default:
                break;
        }
        return init.getClass().getName();
    }

    static String kafkaSource(Object source) {
        Object props = field(source, "props");
        Object subscriber = field(source, "subscriber");
        Collection<?> topics = null;
        String pattern = null;
        String sub = subscriber == null ? "" : simpleName(subscriber.getClass().getName());
        if (sub.equals("TopicListSubscriber")) {
            Object t = field(subscriber, "topics");
            if (t instanceof Collection) topics = (Collection<?>) t;
        } else if (sub.equals("TopicPatternSubscriber")) {
            Object p = field(subscriber, "topicPattern");
            pattern = p instanceof java.util.regex.Pattern ? ((java.util.regex.Pattern) p).pattern() : str(p);
        } else if (sub.equals("PartitionSetSubscriber")) {
            Object parts = field(subscriber, "subscribedPartitions");
            if (parts instanceof Collection) {
                Set<String> names = new TreeSet<>();
                for (Object tp : (Collection<?>) parts) names.add(str(call(tp, "topic")));
                topics = names;
            }
        }
        Object stopping = field(source, "stoppingOffsetsInitializer");
        String bounded = stopping == null || simpleName(stopping.getClass().getName()).equals("NoStoppingOffsetsInitializer")
                ? null : offsets(stopping);
        Long discovery = asLong(prop(props, "partition.discovery.interval.ms"));
        if (discovery == null) {
            // Not set: the connector's default (KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS).
            Object option = staticField(source, "org.apache.flink.connector.kafka.source.KafkaSourceOptions",
                    "PARTITION_DISCOVERY_INTERVAL_MS");
            discovery = asLong(call(option, "defaultValue"));
        }
        return "{\"type\": \"kafka_source\""
                + ", \"bootstrap_servers\": " + q(prop(props, "bootstrap.servers"))
                + ", \"topics\": " + list(topics)
                + ", \"topic_pattern\": " + q(pattern)
                + ", \"starting_offsets\": " + q(offsets(field(source, "startingOffsetsInitializer")))
                + ", \"bounded\": " + q(bounded)
                + ", \"partition_discovery_interval_ms\": " + num(discovery)
                + ", \"group_id\": " + q(prop(props, "group.id")) + "}";
    }

    /** The sink's fixed topics, or null when a topic selector (or a pattern) decides per record. */
    static Collection<?> sinkTopics(Object serializer) {
        if (serializer == null) return null;
        if (hasField(serializer, "topicSelector")) { // KafkaRecordSerializationSchemaBuilder's wrapper
            Object selector = field(serializer, "topicSelector");
            for (int depth = 0; selector != null && depth < 3; depth++) {
                String simple = simpleName(selector.getClass().getName());
                if (simple.equals("ConstantTopicSelector")) return Collections.singletonList(str(field(selector, "topic")));
                if (!simple.equals("CachingTopicSelector")) return null;
                selector = field(selector, "topicSelector");
            }
            return null;
        }
        if (hasField(serializer, "topics")) { // the SQL connector's DynamicKafkaRecordSerializationSchema
            Object t = field(serializer, "topics");
            return t instanceof Collection ? new ArrayList<>((Collection<?>) t) : null;
        }
        if (hasField(serializer, "topic")) { // older SQL connectors: one topic
            Object t = field(serializer, "topic");
            return t == null ? null : Collections.singletonList(str(t));
        }
        return null;
    }

    static String kafkaSink(Object sink) {
        Object props = field(sink, "kafkaProducerConfig");
        String naming = hasField(sink, "transactionNamingStrategy") ? lower(field(sink, "transactionNamingStrategy")) : null;
        return "{\"type\": \"kafka_sink\""
                + ", \"bootstrap_servers\": " + q(prop(props, "bootstrap.servers"))
                + ", \"topics\": " + list(sinkTopics(field(sink, "recordSerializer")))
                + ", \"delivery_guarantee\": " + q(lower(field(sink, "deliveryGuarantee")))
                + ", \"transactional_id_prefix\": " + q(field(sink, "transactionalIdPrefix"))
                + ", \"transaction_timeout_ms\": " + num(asLong(prop(props, "transaction.timeout.ms")))
                + ", \"transaction_naming_strategy\": " + q(naming) + "}";
    }

    /** The configuration the job set: the environment's and the stream graph's (later wins). */
    static Map<String, String> jobConfiguration(StreamGraph graph, StreamExecutionEnvironment env) {
        Map<String, String> out = new HashMap<>();
        for (Object c : new Object[] {callDeclared(env, "getConfiguration"), call(graph, "getJobConfiguration")}) {
            Object map = call(c, "toMap");
            if (map instanceof Map) {
                for (Map.Entry<?, ?> e : ((Map<?, ?>) map).entrySet()) out.put(str(e.getKey()), str(e.getValue()));
            }
        }
        return out;
    }

    static String firstSet(Map<String, String> conf, String... keys) {
        for (String k : keys) if (conf.get(k) != null) return conf.get(k);
        return null;
    }

    static final Map<String, String> STATE_BACKENDS = new HashMap<>();
    static final Map<String, String> RESTART_STRATEGIES = new HashMap<>();
    static {
        STATE_BACKENDS.put("HashMapStateBackend", "hashmap");
        STATE_BACKENDS.put("EmbeddedRocksDBStateBackend", "rocksdb");
        STATE_BACKENDS.put("RocksDBStateBackend", "rocksdb");
        STATE_BACKENDS.put("ForStStateBackend", "forst");
        STATE_BACKENDS.put("MemoryStateBackend", "jobmanager");
        STATE_BACKENDS.put("FsStateBackend", "filesystem");
        for (String s : new String[] {"none", "off", "disable"}) RESTART_STRATEGIES.put(s, "none");
        for (String s : new String[] {"fixed-delay", "fixeddelay"}) RESTART_STRATEGIES.put(s, "fixed-delay");
        for (String s : new String[] {"failure-rate", "failurerate"}) RESTART_STRATEGIES.put(s, "failure-rate");
        for (String s : new String[] {"exponential-delay", "exponentialdelay"}) RESTART_STRATEGIES.put(s, "exponential-delay");
        RESTART_STRATEGIES.put("NoRestartStrategyConfiguration", "none");
        RESTART_STRATEGIES.put("FixedDelayRestartStrategyConfiguration", "fixed-delay");
        RESTART_STRATEGIES.put("FailureRateRestartStrategyConfiguration", "failure-rate");
        RESTART_STRATEGIES.put("ExponentialDelayRestartStrategyConfiguration", "exponential-delay");
    }

    /** Flink release on the classpath as {major, minor}. */
    static int[] flinkVersion() {
        String v = org.apache.flink.runtime.util.EnvironmentInformation.getVersion();
        try {
            String[] p = v.split("[.-]");
            return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
        } catch (RuntimeException e) {
            return new int[] {Integer.MAX_VALUE, 0};
        }
    }

    /** The "job" object: checkpointing, state backend, restart strategy, max parallelism. */
    static String job(StreamGraph graph, StreamExecutionEnvironment env) {
        Map<String, String> conf = jobConfiguration(graph, env);
        Object cc = call(graph, "getCheckpointConfig");
        if (cc == null) cc = env.getCheckpointConfig();
        Long interval = asLong(call(cc, "getCheckpointInterval"));
        boolean checkpointing = interval != null && interval > 0;
        Object mode = call(cc, "getCheckpointingConsistencyMode");
        if (mode == null) mode = call(cc, "getCheckpointingMode");
        Object retention = call(cc, "getExternalizedCheckpointRetention");
        if (retention == null) retention = call(cc, "getExternalizedCheckpointCleanup");
        String retained = lower(retention);
        if ("no_externalized_checkpoints".equals(retained)) retained = "no_externalized";
        Object unaligned = call(cc, "isUnalignedCheckpointsEnabled");

        // State backend: an object set on the environment (Flink 1.x), else the configuration, else
        // Flink's default (StateBackendOptions.STATE_BACKEND's default; hashmap since 1.13).
        String backend = null;
        Object backendObject = call(graph, "getStateBackend");
        if (backendObject != null) {
            String simple = simpleName(backendObject.getClass().getName());
            backend = STATE_BACKENDS.getOrDefault(simple, backendObject.getClass().getName());
        }
        if (backend == null) backend = firstSet(conf, "state.backend.type", "state.backend");
        if (backend == null) {
            Object option = staticField(null, "org.apache.flink.configuration.StateBackendOptions", "STATE_BACKEND");
            backend = str(call(option, "defaultValue"));
        }
        if (backend == null) {
            // Releases whose option has no default: StateBackendLoader's fallback, hashmap from 1.13 on.
            int[] v = flinkVersion();
            backend = v[0] > 1 || v[1] >= 13 ? "hashmap" : "jobmanager";
        }
        if (backend != null && STATE_BACKENDS.containsValue(backend.toLowerCase(Locale.ROOT))) {
            backend = backend.toLowerCase(Locale.ROOT);
        }

        // Restart strategy: the configuration, else one set on the ExecutionConfig (Flink 1.x), else
        // Flink's default: none without checkpointing; with checkpointing exponential-delay from 1.19,
        // fixed-delay before.
        String restart = firstSet(conf, "restart-strategy.type", "restart-strategy");
        if (restart == null) {
            Object r = call(graph.getExecutionConfig(), "getRestartStrategy");
            String simple = r == null ? null : simpleName(r.getClass().getName());
            if (simple != null && !simple.startsWith("Fallback")) restart = RESTART_STRATEGIES.getOrDefault(simple, r.getClass().getName());
        }
        if (restart != null) {
            restart = RESTART_STRATEGIES.getOrDefault(restart.toLowerCase(Locale.ROOT), restart);
        } else {
            int[] v = flinkVersion();
            restart = !checkpointing ? "none" : (v[0] > 1 || v[1] >= 19) ? "exponential-delay" : "fixed-delay";
        }
        Long maxParallelism = asLong(call(graph.getExecutionConfig(), "getMaxParallelism"));
        if (maxParallelism == null || maxParallelism <= 0) maxParallelism = asLong(conf.get("pipeline.max-parallelism"));
        return "{\"checkpoint_interval_ms\": " + (checkpointing ? interval.toString() : "null")
                + ", \"checkpoint_timeout_ms\": " + num(asLong(call(cc, "getCheckpointTimeout")))
                + ", \"min_pause_ms\": " + num(asLong(call(cc, "getMinPauseBetweenCheckpoints")))
                + ", \"checkpointing_mode\": " + q(lower(mode))
                + ", \"externalized_retention\": " + q(retained)
                + ", \"unaligned\": " + (unaligned == null ? "null" : unaligned.toString())
                + ", \"state_backend\": " + q(backend)
                + ", \"restart_strategy\": " + q(restart)
                + ", \"max_parallelism\": " + num(maxParallelism != null && maxParallelism > 0 ? maxParallelism : null) + "}";
    }

    static void write(StreamGraph graph, StreamExecutionEnvironment env) throws IOException {
        Map<Integer, byte[]> hashes = new StreamGraphHasherV2().traverseStreamGraphAndGenerateHashes(graph);
        Map<String, StreamNode> byId = new HashMap<>();
        for (StreamNode n : graph.getStreamNodes()) byId.put(hex(hashes.get(n.getId())), n);
        Set<Integer> sources = new HashSet<>(graph.getSourceIDs());
        JobGraph jobGraph = graph.getJobGraph();
        List<String> ops = new ArrayList<>();
        for (JobVertex v : jobGraph.getVerticesSortedTopologicallyFromSources()) {
            List<OperatorIDPair> pairs = new ArrayList<>(v.getOperatorIDs());
            Collections.reverse(pairs); // head first
            for (OperatorIDPair p : pairs) {
                String id = p.getGeneratedOperatorID().toString();
                StreamNode n = byId.get(id);
                if (n == null) throw new IllegalStateException("operator " + id + " has no stream node");
                List<String> inputs = new ArrayList<>();
                for (StreamEdge e : n.getInEdges()) inputs.add(q(hex(hashes.get(e.getSourceId()))));
                int maxParallelism = maxParallelism(n);
                ops.add("    {\"id\": " + q(id)
                        + ", \"uid\": " + q(n.getTransformationUID())
                        + ", \"uid_hash\": " + (p.getUserDefinedOperatorID().isPresent() ? q(p.getUserDefinedOperatorID().get()) : "null")
                        + ", \"name\": " + q(n.getOperatorName())
                        + ", \"vertex\": " + q(v.getID())
                        + ", \"parallelism\": " + n.getParallelism()
                        // Not configured (non-positive): the job adopts the savepoint's.
                        + ", \"max_parallelism\": " + (maxParallelism > 0 ? maxParallelism : "null")
                        + ", \"inputs\": [" + String.join(", ", inputs) + "]"
                        + ", \"source\": " + sources.contains(n.getId())
                        + ", \"stateful\": " + stateful(n, sources.contains(n.getId()))
                        + connectorField(n) + "}");
            }
        }
        String doc = "{\n  \"schema\": \"sp-inspect/graph-v1\",\n  \"generator\": \"contrib/java/SpInspectGraph.java\",\n"
                + "  \"flink_version\": " + q(org.apache.flink.runtime.util.EnvironmentInformation.getVersion()) + ",\n"
                + "  \"job_name\": " + q(graph.getJobName()) + ",\n"
                + "  \"job\": " + job(graph, env) + ",\n  \"operators\": [\n" + String.join(",\n", ops) + "\n  ]\n}\n";
        if (output == null || output.equals("-")) {
            System.out.print(doc);
            System.out.flush();
        } else {
            try (Writer w = new OutputStreamWriter(new FileOutputStream(output), StandardCharsets.UTF_8)) {
                w.write(doc);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int i = 0;
        if (args.length > 1 && args[0].equals("--output")) {
            output = args[1];
            i = 2;
        }
        if (args.length <= i) {
            System.err.println("usage: SpInspectGraph [--output FILE] MAIN_CLASS [JOB ARGS...]");
            System.exit(2);
        }
        String mainClass = args[i];
        String[] jobArgs = Arrays.copyOfRange(args, i + 1, args.length);
        initializeContextEnvironment(SpInspectGraph::new);
        try {
            Class.forName(mainClass).getMethod("main", String[].class).invoke(null, (Object) jobArgs);
        } catch (InvocationTargetException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof Written) System.exit(0);
            }
            throw e;
        }
        System.err.println("SpInspectGraph: " + mainClass + " returned without calling execute() or executeAsync()");
        System.exit(2);
    }
}
