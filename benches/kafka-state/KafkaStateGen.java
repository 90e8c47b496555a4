// A large Kafka savepoint for the `state` benchmark, written by Flink's and the Kafka connector's own code.
//
// Template: a real stop-with-savepoint of fixtures/gen/kafka/KafkaJob.java (connector 5.0.0-2.2 on Flink 2.2.0).
// Its operators are kept as they are, except three that are replaced, under their own IDs, names and uids:
//   - "Source: orders" (uid orders-source): the coordinator (enumerator) state lists PARTITIONS KafkaPartitionSplits
//     (KafkaSourceEnumStateSerializer v3, written by SourceCoordinator.writeCheckpointBytes), and the readers'
//     SourceReaderState holds the same PARTITIONS splits spread over SUBTASKS subtasks (KafkaPartitionSplitSerializer
//     in SimpleVersionedSerialization, as SourceOperator's SimpleVersionedListState writes them);
//   - "out sink: Writer" (uid out-sink): writer_raw_states, one KafkaWriterState per subtask (KafkaWriterStateSerializer
//     v2) listing its precommitted transactions;
//   - "out sink: Committer": streaming_committer_raw_states, one CommittableCollector per subtask (Flink's
//     CommittableCollectorSerializer around the connector's KafkaCommittableSerializer) holding COMMITTABLES pending
//     KafkaCommittables in all.
// The operator state of each subtask is written by Flink's DefaultOperatorStateBackend into an
// FsCheckpointStreamFactory on the output directory (files over 20 KiB become relative file handles, as in a
// savepoint), and _metadata (checkpoint ID 1000, the template's master states and savepoint properties) by
// Checkpoints.storeCheckpointMetadata. Everything is deterministic; only the state
// file names (random UUIDs chosen by Flink) differ between runs.
//
//   java -cp <flink 2.2 jars>:<connector 5.0.0-2.2 jars>:. KafkaStateGen TEMPLATE_METADATA OUT_DIR \
//        [PARTITIONS=10000] [COMMITTABLES=1000] [SUBTASKS=4]
import java.io.*;
import java.lang.reflect.Method;
import java.util.*;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.internal.CheckpointTransaction;
import org.apache.flink.connector.kafka.sink.internal.TransactionOwnership;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.AssignmentStatus;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.enumerator.SplitAndAssignmentStatus;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.metrics.groups.InternalSinkCommitterMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.source.coordinator.SourceCoordinator;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.DefaultOperatorStateBackend;
import org.apache.flink.runtime.state.DefaultOperatorStateBackendBuilder;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.operators.sink.committables.CommittableCollector;
import org.apache.flink.streaming.runtime.operators.sink.committables.CommittableCollectorSerializer;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.core.execution.SavepointFormatType;

public class KafkaStateGen {
    static final int TOPICS = 10;
    static final String PREFIX = "sp-bench-out";
    /** The savepoint's checkpoint ID: the pending transactions are of the checkpoints just before it. */
    static final long CHECKPOINT_ID = 1000;

    public static void main(String[] args) throws Exception {
        File template = new File(args[0]);
        File out = new File(args[1]);
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 10000;
        int committables = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        int subtasks = args.length > 4 ? Integer.parseInt(args[4]) : 4;
        out.mkdirs();

        KafkaSource<String> source = KafkaSource.<String>builder().setBootstrapServers("127.0.0.1:1").setTopics("t")
                .setValueOnlyDeserializer(new SimpleStringSchema()).build();
        KafkaSink<String> sink = KafkaSink.<String>builder().setBootstrapServers("127.0.0.1:1")
                .setRecordSerializer(KafkaRecordSerializationSchema.builder().setTopic("t")
                        .setValueSerializationSchema(new SimpleStringSchema()).build())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE).setTransactionalIdPrefix(PREFIX).build();
        SimpleVersionedSerializer<KafkaPartitionSplit> splitSer = source.getSplitSerializer();
        SimpleVersionedSerializer<KafkaSourceEnumState> enumSer = source.getEnumeratorCheckpointSerializer();
        SimpleVersionedSerializer<KafkaWriterState> writerSer = sink.getWriterStateSerializer();
        SimpleVersionedSerializer<KafkaCommittable> committableSer = sink.getCommittableSerializer();

        CheckpointMetadata md;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(template)))) {
            md = Checkpoints.loadCheckpointMetadata(in, KafkaStateGen.class.getClassLoader(), template.getParent());
        }
        long checkpointId = CHECKPOINT_ID;
        FsCheckpointStreamFactory streams = new FsCheckpointStreamFactory(FileSystem.getLocalFileSystem(),
                new Path(out.toURI()), new Path(out.toURI()), 20 * 1024, 4096);

        // The splits: TOPICS topics of partitions/TOPICS partitions; every 10th partition still at the committed-offset
        // marker, every 10th (another) with a stopping offset, the rest at a concrete offset.
        List<KafkaPartitionSplit> splits = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            String topic = String.format("orders-%02d", i % TOPICS);
            int partition = i / TOPICS;
            long start = i % 10 == 3 ? KafkaPartitionSplit.COMMITTED_OFFSET : (i * 7919L) % 1_000_000;
            long stop = i % 10 == 7 ? 2_000_000L + i : KafkaPartitionSplit.NO_STOPPING_OFFSET;
            splits.add(new KafkaPartitionSplit(new org.apache.kafka.common.TopicPartition(topic, partition), start, stop));
        }

        List<OperatorState> ops = new ArrayList<>();
        int replaced = 0;
        for (OperatorState op : md.getOperatorStates()) {
            String uid = op.getOperatorUid().orElse("");
            String name = op.getOperatorName().orElse("");
            if (uid.equals("orders-source")) {
                OperatorState s = new OperatorState(name, uid, op.getOperatorID(), subtasks, op.getMaxParallelism());
                Set<SplitAndAssignmentStatus> enumSplits = new LinkedHashSet<>();
                for (KafkaPartitionSplit split : splits) enumSplits.add(new SplitAndAssignmentStatus(split, AssignmentStatus.ASSIGNED));
                Method write = SourceCoordinator.class.getDeclaredMethod("writeCheckpointBytes", Object.class, SimpleVersionedSerializer.class);
                write.setAccessible(true);
                byte[] coordinator = (byte[]) write.invoke(null, new KafkaSourceEnumState(enumSplits, true), enumSer);
                s.setCoordinatorState(new ByteStreamStateHandle(UUID.nameUUIDFromBytes(coordinator).toString(), coordinator));
                for (int t = 0; t < subtasks; t++) {
                    List<byte[]> elements = new ArrayList<>();
                    for (int i = t; i < splits.size(); i += subtasks) {
                        elements.add(SimpleVersionedSerialization.writeVersionAndSerialize(splitSer, splits.get(i)));
                    }
                    s.putState(t, subtask(streams, checkpointId, "SourceReaderState", elements));
                }
                ops.add(s);
                replaced++;
            } else if (uid.equals("out-sink") && name.endsWith("Writer")) {
                OperatorState s = new OperatorState(name, uid, op.getOperatorID(), subtasks, op.getMaxParallelism());
                for (int t = 0; t < subtasks; t++) {
                    List<CheckpointTransaction> pre = new ArrayList<>();
                    for (int n = 0; n < committables; n++) {
                        if (n % subtasks == t) pre.add(new CheckpointTransaction(transactionalId(n, subtasks), checkpoint(checkpointId, n, subtasks)));
                    }
                    KafkaWriterState w = new KafkaWriterState(PREFIX, t, subtasks, TransactionOwnership.IMPLICIT_BY_SUBTASK_ID, pre);
                    s.putState(t, subtask(streams, checkpointId, "writer_raw_states",
                            List.of(SimpleVersionedSerialization.writeVersionAndSerialize(writerSer, w))));
                }
                ops.add(s);
                replaced++;
            } else if (name.equals("out sink: Committer")) {
                OperatorState s = new OperatorState(name, uid, op.getOperatorID(), subtasks, op.getMaxParallelism());
                for (int t = 0; t < subtasks; t++) {
                    InternalSinkCommitterMetricGroup metrics = InternalSinkCommitterMetricGroup.wrap(
                            UnregisteredMetricGroups.createUnregisteredOperatorMetricGroup());
                    CommittableCollector<KafkaCommittable> collector = new CommittableCollector<>(metrics);
                    // This subtask's committables, by checkpoint: a summary, then each committable.
                    TreeMap<Long, List<KafkaCommittable>> byCheckpoint = new TreeMap<>();
                    for (int n = 0; n < committables; n++) {
                        if (n % subtasks != t) continue;
                        byCheckpoint.computeIfAbsent(checkpoint(checkpointId, n, subtasks), k -> new ArrayList<>())
                                .add(new KafkaCommittable(1000L + n, (short) (n % 5), transactionalId(n, subtasks), null));
                    }
                    for (Map.Entry<Long, List<KafkaCommittable>> e : byCheckpoint.entrySet()) {
                        collector.addMessage(new CommittableSummary<>(t, subtasks, e.getKey(), e.getValue().size(), 0));
                        for (KafkaCommittable c : e.getValue()) collector.addMessage(new CommittableWithLineage<>(c, e.getKey(), t));
                    }
                    CommittableCollectorSerializer<KafkaCommittable> ser =
                            new CommittableCollectorSerializer<>(committableSer, t, subtasks, metrics);
                    s.putState(t, subtask(streams, checkpointId, "streaming_committer_raw_states",
                            List.of(SimpleVersionedSerialization.writeVersionAndSerialize(ser, collector))));
                }
                ops.add(s);
                replaced++;
            } else {
                ops.add(op);
            }
        }
        if (replaced != 3) throw new IllegalStateException("template: replaced " + replaced + " operators, expected 3");

        CheckpointMetadata result = new CheckpointMetadata(checkpointId, ops, md.getMasterStates(), md.getCheckpointProperties());
        try (DataOutputStream o = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(new File(out, "_metadata"))))) {
            Checkpoints.storeCheckpointMetadata(result, o);
        }
        System.out.println("wrote " + out + ": " + partitions + " partitions (" + subtasks + " reader subtasks), "
                + committables + " pending committables (" + subtasks + " committer subtasks)");
    }

    /**
     * The n-th pending transaction: of writer subtask n % subtasks, for checkpoint checkpoint(n); named as the
     * connector's IMPLICIT_BY_SUBTASK_ID strategy names them, PREFIX-subtask-checkpoint.
     */
    static String transactionalId(int n, int subtasks) {
        return PREFIX + "-" + (n % subtasks) + "-" + checkpoint(CHECKPOINT_ID, n, subtasks);
    }

    /** One transaction per subtask and checkpoint, the newest of the savepoint's own checkpoint. */
    static long checkpoint(long last, int n, int subtasks) {
        return last - n / subtasks;
    }

    /** One subtask's operator state, as Flink's operator state backend snapshots it. */
    static OperatorSubtaskState subtask(FsCheckpointStreamFactory streams, long checkpointId, String stateName, List<byte[]> elements)
            throws Exception {
        DefaultOperatorStateBackend backend = new DefaultOperatorStateBackendBuilder(KafkaStateGen.class.getClassLoader(),
                new ExecutionConfig(), false, Collections.emptyList(), new CloseableRegistry()).build();
        ListState<byte[]> state = backend.getListState(new ListStateDescriptor<>(stateName, BytePrimitiveArraySerializer.INSTANCE));
        for (byte[] e : elements) state.add(e);
        CheckpointOptions options = new CheckpointOptions(SavepointType.savepoint(SavepointFormatType.CANONICAL),
                CheckpointStorageLocationReference.getDefault());
        var future = backend.snapshot(checkpointId, 0L, streams, options);
        if (!future.isDone()) future.run();
        OperatorStateHandle handle = future.get().getJobManagerOwnedSnapshot();
        backend.dispose();
        return OperatorSubtaskState.builder().setManagedOperatorState(handle).build();
    }
}
