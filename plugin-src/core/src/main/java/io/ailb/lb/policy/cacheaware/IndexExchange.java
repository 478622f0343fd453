package io.ailb.lb.policy.cacheaware;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.util.Utf8;
import io.ailb.lb.policy.SharedState;
import io.ailb.lb.util.Decimal;
import io.ailb.lb.util.Words;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pools the local indexes of one gateway's VMs (one per Envoy worker) through shared data, so that each decides over
 * what all of them routed. At each tick a VM publishes its last {@link #MAX_RECORDS} routed blocks and sessions, and
 * reads the other VMs' publications: their blocks and sessions are recorded in its index once each (records carry a
 * sequence number). Its own per-host in-flight counts, queued tokens, recent work, held KV and waiting requests go to
 * a small key of their own, written at each tick and, once the VM has peers, as soon as they change (a decision took
 * effect, a first token came, a request ended); a VM with peers reads theirs before each decision and adds them to
 * its own, never publishing them again, so nothing is counted twice. Counts at each decision rather than each tick: requests that arrive together on
 * several workers would otherwise each go where its worker alone sees the least load, the same instance (the
 * Mooncake trace on 2 workers: 1.3× Redis mode's mean TTFT with counts exchanged every 250 ms).
 *
 * <p>Layout: a directory key ({@code <prefix>.vms}) lists the live publishers, one text line each
 * ({@code slot publisher writtenAtMillis}), replaced with compare-and-swap; each publisher writes its records to the
 * key of its slot ({@code <prefix>.<slot>}) and its counts to {@code <prefix>.<slot>.loads}, which only it writes. A
 * key per slot rather than one key for all: a publication is up to ≈ 70 KiB, and with one key every VM would rewrite
 * every other VM's records at each tick and lose its CAS race more often as VMs are added. Slots rather than a key
 * per VM id: shared data keys are never deleted, and VMs are replaced over a gateway's life; a slot whose publisher
 * stopped writing for {@link #STALE_MILLIS} is reused, so the keys stay at most 2 × {@link #MAX_VMS}.
 *
 * <p>A records publication, big-endian: magic {@code 'A' 'C'} and version 5; the publisher (u16 length, UTF-8); the
 * sequence number of its first record (i64); a string table (u16 count, each u16 length and UTF-8); the records (u16
 * count, each: kind u8, service string u16, host string u16, hash words i64 i64, routed at epoch seconds i64, prompt
 * tokens i32). A loads value: magic {@code 'A' 'L'} and version 1; the publisher; the hosts (u16 count, each: host
 * (u16 length, UTF-8), in flight i64, queued tokens i64, recent work i64, the Unix second it is as of i64, held KV
 * tokens i64, requests waiting for their first token i64). Anything that does not parse completely, names another
 * publisher than the directory's, or is larger than {@link #MAX_PUBLICATION_BYTES}, is ignored.
 */
final class IndexExchange {
    /** Routed blocks and sessions a VM keeps for its peers: ≈ 33 bytes each in the publication, so ≈ 66 KiB. */
    static final int MAX_RECORDS = 2_048;
    /** Hosts whose counts a VM publishes: those with requests in flight or queued, so far fewer in practice. */
    static final int MAX_LOADS = 1_024;
    /** Service and host names longer than this are not published (cluster and host names are far shorter). */
    static final int MAX_NAME_BYTES = 256;
    /** Above any publication this class writes ((2 × 2,048 + 1,024) names × 258 bytes + records and loads). */
    static final int MAX_PUBLICATION_BYTES = 1_500_000;

    static final long STALE_MILLIS = 5_000;
    /** A bound on the directory and on the slot keys whatever happens to the workers. */
    static final int MAX_VMS = 128;

    /** Above any real count or queue: a larger one is garbage, and 128 VMs' sums of it still fit a long. */
    private static final long MAX_COUNT = 1L << 48;

    private static final int CAS_ATTEMPTS = 3;
    private static final byte VERSION = 5;
    private static final byte LOADS_VERSION = 1;
    private static final byte BLOCK = 0;
    private static final byte LAST_BLOCK = 1;
    private static final byte SESSION = 2;

    private final String prefix;
    /** Tells apart two policies of one VM with the same configuration (two rules), which must not share a slot. */
    private final int instance;

    private final LocalCacheIndex index;
    /** This VM's and policy's name among the publishers: the VM's id and the instance; known at the first tick. */
    private String publisher = "";

    // This VM's records, a ring of the last MAX_RECORDS: record seq lives at seq % MAX_RECORDS.
    private final byte[] kinds = new byte[MAX_RECORDS];
    private final String[] services = new String[MAX_RECORDS];
    private final String[] hosts = new String[MAX_RECORDS];
    private final long[] highs = new long[MAX_RECORDS];
    private final long[] lows = new long[MAX_RECORDS];
    private final long[] routedAt = new long[MAX_RECORDS];
    private final int[] tokens = new int[MAX_RECORDS];
    private long nextSeq;

    /** Per peer publisher: its slot value's CAS token and the next record to import, as last read. */
    private Map<String, PeerView> peerViews = new HashMap<>();
    /** Per peer publisher: its loads key's CAS token and its counts, as last read. */
    private Map<String, PeerLoads> peerLoadViews = new HashMap<>();

    /** The gateway's shared data, kept from the first tick; null before it. */
    private SharedState state;
    /** This VM's slot as of the last tick; -1 without one. */
    private int slot = -1;
    /** The live peers as of the last tick: {slot, publisher}. */
    private List<String[]> peers = new ArrayList<>();

    /** What was last written to this VM's slot key, so that an unchanged publication is not written again. */
    private int publishedSlot = -1;

    private long publishedSeq = -1;
    /** What was last written to this VM's loads key, likewise. */
    private int loadsPublishedSlot = -1;

    private Map<String, long[]> publishedLoads = new HashMap<>();

    /**
     * {@code prefix}: the keys' common start, the same for the VMs that should pool (same configuration);
     * {@code instance}: distinct for the policies of one VM.
     */
    IndexExchange(String prefix, int instance, LocalCacheIndex index) {
        this.prefix = prefix;
        this.instance = instance;
        this.index = index;
    }

    String directoryKey() {
        return prefix + ".vms";
    }

    String slotKey(int slot) {
        return prefix + "." + slot;
    }

    String loadsKey(int slot) {
        return prefix + "." + slot + ".loads";
    }

    /** This VM routed a request of {@code service} with {@code blockHashes} (and session, or null) to {@code host}. */
    void noteRouted(
            String service,
            List<String> blockHashes,
            String sessionHash,
            int promptTokens,
            String host,
            long nowSeconds) {
        if (utf8Length(service) > MAX_NAME_BYTES || utf8Length(host) > MAX_NAME_BYTES) {
            return;
        }
        for (int i = 0; i < blockHashes.size(); i++) {
            String hash = blockHashes.get(i);
            byte kind = i == blockHashes.size() - 1 ? LAST_BLOCK : BLOCK;
            note(kind, service, host, LocalCacheIndex.hexHigh(hash), LocalCacheIndex.hexLow(hash), nowSeconds, 0);
        }
        if (sessionHash != null) {
            note(
                    SESSION,
                    service,
                    host,
                    LocalCacheIndex.hexHigh(sessionHash),
                    LocalCacheIndex.hexLow(sessionHash),
                    nowSeconds,
                    promptTokens);
        }
    }

    private void note(byte kind, String service, String host, long high, long low, long nowSeconds, int promptTokens) {
        int at = (int) (nextSeq % MAX_RECORDS);
        kinds[at] = kind;
        services[at] = service;
        hosts[at] = host;
        highs[at] = high;
        lows[at] = low;
        routedAt[at] = nowSeconds;
        tokens[at] = promptTokens;
        nextSeq++;
    }

    /**
     * One tick: claims this VM's slot, publishes its records and counts, imports the peers' new records and reads
     * their counts. {@code state} is kept: between ticks, {@link #beforeDecision} and {@link #countsChanged} exchange
     * the counts through it.
     */
    void exchange(SharedState state, long nowMillis) {
        this.state = state;
        publisher = state.vmId() + "/" + instance;
        List<String[]> live = new ArrayList<>();
        slot = claimSlot(state, nowMillis, live);
        peers = live;
        if (slot >= 0) {
            publishRecords();
            publishLoads(nowMillis);
        }
        Map<String, PeerView> stillLive = new HashMap<>();
        long nowSeconds = Math.floorDiv(nowMillis, 1000L);
        for (String[] peer : peers) {
            SharedState.Value value = state.get(slotKey(Integer.parseInt(peer[0])));
            PeerView view = peerViews.get(peer[1]);
            if (value == null || value.bytes().length > MAX_PUBLICATION_BYTES) {
                continue;
            }
            if (view == null || view.cas != value.cas()) {
                // Parsed only when it changed: an idle peer costs a read per tick.
                Publication publication = Publication.parse(value.bytes());
                if (publication == null || !publication.publisher.equals(peer[1])) {
                    continue;
                }
                view = new PeerView(value.cas(), load(publication, view == null ? 0 : view.nextSeq, nowSeconds));
            }
            stillLive.put(peer[1], view);
        }
        peerViews = stillLive;
        readPeerLoads(nowMillis);
    }

    /**
     * Before a decision, with peers: reads the peers' current counts, so that requests arriving together on several
     * workers do not all go where each worker alone sees the least load.
     */
    void beforeDecision(long nowMillis) {
        if (state != null && !peers.isEmpty()) {
            readPeerLoads(nowMillis);
        }
    }

    /**
     * This VM's counts changed (a decision took effect, a first token came, a request ended), with peers: they are
     * published at once, for the peers' next decisions. Unstreamed first tokens falling due are settled before this
     * VM's decisions and at its ticks, and go out with the decision's or the tick's publication.
     */
    void countsChanged(long nowMillis) {
        if (state != null && !peers.isEmpty()) {
            publishLoads(nowMillis);
        }
    }

    /** What this VM last read from a peer's slot. */
    private static final class PeerView {
        final int cas;
        final long nextSeq;

        PeerView(int cas, long nextSeq) {
            this.cas = cas;
            this.nextSeq = nextSeq;
        }
    }

    /** What this VM last read from a peer's loads key. */
    private static final class PeerLoads {
        final int cas;
        final Map<String, long[]> loads;

        PeerLoads(int cas, Map<String, long[]> loads) {
            this.cas = cas;
            this.loads = loads;
        }
    }

    /**
     * Reads the live peers' loads keys and hands the index their sums per host; parses only what changed, and leaves
     * the index's sums as they are when nothing did.
     */
    private void readPeerLoads(long nowMillis) {
        Map<String, PeerLoads> views = new HashMap<>();
        boolean changed = false;
        for (String[] peer : peers) {
            SharedState.Value value = state.get(loadsKey(Integer.parseInt(peer[0])));
            if (value == null || value.bytes().length > MAX_PUBLICATION_BYTES) {
                continue;
            }
            PeerLoads view = peerLoadViews.get(peer[1]);
            if (view == null || view.cas != value.cas()) {
                Map<String, long[]> loads = parseLoads(value.bytes(), peer[1]);
                if (loads == null) {
                    continue;
                }
                view = new PeerLoads(value.cas(), loads);
                changed = true;
            }
            views.put(peer[1], view);
        }
        if (!changed && views.keySet().equals(peerLoadViews.keySet())) {
            return;
        }
        peerLoadViews = views;
        long nowSeconds = Math.floorDiv(nowMillis, 1000L);
        Map<String, double[]> sums = new HashMap<>();
        for (PeerLoads view : views.values()) {
            for (Map.Entry<String, long[]> entry : view.loads.entrySet()) {
                long[] load = entry.getValue();
                double[] sum = sums.computeIfAbsent(entry.getKey(), host -> new double[5]);
                sum[0] += load[0];
                sum[1] += load[1];
                // Each peer's recent work is as of its own last decision: faded to now before it is added.
                sum[2] += LocalCacheIndex.recentAsOf(load[2], load[3], nowSeconds);
                sum[3] += load[4];
                sum[4] += load[5];
            }
        }
        Map<String, long[]> peerLoads = new HashMap<>();
        for (Map.Entry<String, double[]> entry : sums.entrySet()) {
            double[] sum = entry.getValue();
            peerLoads.put(entry.getKey(), new long[] {
                (long) sum[0], (long) sum[1], (long) Math.floor(sum[2] + 0.5), nowSeconds, (long) sum[3], (long) sum[4]
            });
        }
        index.peerLoads(peerLoads);
    }

    /** Imports the publication's records from sequence {@code from} on; returns the sequence to continue from. */
    private long load(Publication publication, long from, long nowSeconds) {
        long end = publication.firstSeq + publication.records;
        if (from > end) {
            // The publisher restarted its numbering (a new policy under the same name): take all it has.
            from = 0;
        }
        for (int i = (int) Math.max(0, from - publication.firstSeq); i < publication.records; i++) {
            String service = publication.strings[publication.recordService[i]];
            String host = publication.strings[publication.recordHost[i]];
            byte kind = publication.recordKind[i];
            if (kind == SESSION) {
                index.importSession(
                        service,
                        PrefixHash.hexOfWords(publication.recordHigh[i], publication.recordLow[i]),
                        host,
                        publication.recordTokens[i],
                        Math.min(publication.recordAt[i], nowSeconds));
            } else {
                index.importBlock(
                        service,
                        publication.recordHigh[i],
                        publication.recordLow[i],
                        host,
                        publication.recordAt[i],
                        kind == LAST_BLOCK,
                        nowSeconds);
            }
        }
        return end;
    }

    /**
     * Writes this VM's line in the directory, keeping the other fresh lines (collected into {@code peers} as {slot,
     * publisher}); returns this VM's slot, or -1 when every slot is taken or the directory could not be written.
     */
    private int claimSlot(SharedState state, long nowMillis, List<String[]> peers) {
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            SharedState.Value current = state.get(directoryKey());
            peers.clear();
            boolean[] taken = new boolean[MAX_VMS];
            int own = -1;
            StringBuilder others = new StringBuilder();
            if (current != null && current.bytes().length <= MAX_VMS * (MAX_NAME_BYTES + 48)) {
                List<String> lines = Words.split(Utf8.decode(current.bytes()), '\n');
                for (String line : lines) {
                    String[] words = directoryLine(line, nowMillis);
                    if (words == null || taken[Integer.parseInt(words[0])]) {
                        continue;
                    }
                    if (words[1].equals(publisher)) {
                        own = Integer.parseInt(words[0]);
                        continue;
                    }
                    taken[Integer.parseInt(words[0])] = true;
                    peers.add(words);
                    others.append('\n').append(line);
                }
            }
            if (own < 0 || taken[own]) {
                own = -1;
                for (int s = 0; s < MAX_VMS && own < 0; s++) {
                    if (!taken[s]) {
                        own = s;
                    }
                }
            }
            if (own < 0) {
                return -1;
            }
            String text = own + " " + publisher + " " + nowMillis + others;
            if (state.set(directoryKey(), Utf8.encode(text), current == null ? 0 : current.cas())) {
                return own;
            }
        }
        peers.clear();
        return -1;
    }

    /** {slot, publisher} of a well-formed directory line written in the last STALE_MILLIS; null otherwise. */
    private static String[] directoryLine(String line, long nowMillis) {
        List<String> words = Words.split(line, ' ');
        if (words.size() != 3 || words.get(1).isEmpty()) {
            return null;
        }
        long slot = Decimal.nonNegative(words.get(0), 18);
        long written = Decimal.nonNegative(words.get(2), 18);
        if (slot < 0 || slot >= MAX_VMS || written < 0 || nowMillis - written > STALE_MILLIS) {
            return null;
        }
        return new String[] {Long.toString(slot), words.get(1)};
    }

    /** Writes this VM's records to its slot unless it is what the slot already holds from this VM. */
    private void publishRecords() {
        if (slot == publishedSlot && nextSeq == publishedSeq) {
            return;
        }
        SharedState.Value current = state.get(slotKey(slot));
        if (state.set(slotKey(slot), encode(), current == null ? 0 : current.cas())) {
            publishedSlot = slot;
            publishedSeq = nextSeq;
        }
    }

    /**
     * Writes this VM's counts to its slot's loads key unless they are what it last wrote there. Only this VM writes
     * the key while it holds the slot, so the write needs no compare-and-swap.
     */
    private void publishLoads(long nowMillis) {
        if (slot < 0) {
            return;
        }
        Map<String, long[]> loads = index.ownLoads(MAX_LOADS, Math.floorDiv(nowMillis, 1000L));
        if (slot == loadsPublishedSlot && sameLoads(loads, publishedLoads)) {
            return;
        }
        if (state.set(loadsKey(slot), encodeLoads(loads), 0)) {
            loadsPublishedSlot = slot;
            publishedLoads = loads;
        }
    }

    private static boolean sameLoads(Map<String, long[]> a, Map<String, long[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<String, long[]> entry : a.entrySet()) {
            long[] other = b.get(entry.getKey());
            if (other == null || !Arrays.equals(other, entry.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** This VM's records publication (the class comment has the layout). */
    byte[] encode() {
        long firstSeq = Math.max(0, nextSeq - MAX_RECORDS);
        int count = (int) (nextSeq - firstSeq);
        Map<String, Integer> ids = new HashMap<>();
        List<String> strings = new ArrayList<>();
        Writer out = new Writer();
        out.u8('A');
        out.u8('C');
        out.u8(VERSION);
        out.string(publisher);
        out.i64(firstSeq);
        int[] recordService = new int[count];
        int[] recordHost = new int[count];
        for (int i = 0; i < count; i++) {
            int at = (int) ((firstSeq + i) % MAX_RECORDS);
            recordService[i] = idOf(services[at], ids, strings);
            recordHost[i] = idOf(hosts[at], ids, strings);
        }
        out.u16(strings.size());
        for (String s : strings) {
            out.string(s);
        }
        out.u16(count);
        for (int i = 0; i < count; i++) {
            int at = (int) ((firstSeq + i) % MAX_RECORDS);
            out.u8(kinds[at]);
            out.u16(recordService[i]);
            out.u16(recordHost[i]);
            out.i64(highs[at]);
            out.i64(lows[at]);
            out.i64(routedAt[at]);
            out.i32(tokens[at]);
        }
        return out.bytes();
    }

    /** This VM's counts for its loads key (the class comment has the layout); hosts with overlong names left out. */
    byte[] encodeLoads(Map<String, long[]> loads) {
        List<Map.Entry<String, long[]>> published = new ArrayList<>();
        for (Map.Entry<String, long[]> entry : loads.entrySet()) {
            if (utf8Length(entry.getKey()) <= MAX_NAME_BYTES) {
                published.add(entry);
            }
        }
        Writer out = new Writer();
        out.u8('A');
        out.u8('L');
        out.u8(LOADS_VERSION);
        out.string(publisher);
        out.u16(published.size());
        for (Map.Entry<String, long[]> entry : published) {
            out.string(entry.getKey());
            for (long value : entry.getValue()) {
                out.i64(value);
            }
        }
        return out.bytes();
    }

    /**
     * The counts in a loads key written by {@code publisher}: host → {in flight, queued tokens, recent work, the Unix
     * second it is as of, held KV tokens, requests waiting}; null unless it parses completely, every count possible.
     */
    static Map<String, long[]> parseLoads(byte[] bytes, String publisher) {
        Reader in = new Reader(bytes);
        if (in.u8() != 'A'
                || in.u8() != 'L'
                || in.u8() != LOADS_VERSION
                || !in.string().equals(publisher)) {
            return null;
        }
        int count = in.u16();
        if (in.failed || count > MAX_LOADS) {
            return null;
        }
        Map<String, long[]> loads = new HashMap<>();
        for (int i = 0; i < count && !in.failed; i++) {
            String host = in.string();
            long[] load = new long[6];
            for (int v = 0; v < load.length; v++) {
                load[v] = in.i64();
                // The Unix second (index 3) only needs to be non-negative; the rest are counts.
                if (load[v] < 0 || (v != 3 && load[v] > MAX_COUNT)) {
                    return null;
                }
            }
            loads.put(host, load);
        }
        return in.failed || !in.atEnd() ? null : loads;
    }

    private static int idOf(String name, Map<String, Integer> ids, List<String> strings) {
        Integer id = ids.get(name);
        if (id == null) {
            id = strings.size();
            ids.put(name, id);
            strings.add(name);
        }
        return id;
    }

    private static int utf8Length(String text) {
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return bytes;
    }

    /** A decoded publication of another VM. */
    static final class Publication {
        String publisher;
        long firstSeq;
        String[] strings;
        int records;
        byte[] recordKind;
        int[] recordService;
        int[] recordHost;
        long[] recordHigh;
        long[] recordLow;
        long[] recordAt;
        int[] recordTokens;

        /** The publication in {@code bytes}; null unless it parses completely, every reference in range. */
        static Publication parse(byte[] bytes) {
            Reader in = new Reader(bytes);
            Publication p = new Publication();
            if (in.u8() != 'A' || in.u8() != 'C' || in.u8() != VERSION) {
                return null;
            }
            p.publisher = in.string();
            p.firstSeq = in.i64();
            int stringCount = in.u16();
            p.strings = new String[in.failed ? 0 : stringCount];
            for (int i = 0; i < p.strings.length && !in.failed; i++) {
                p.strings[i] = in.string();
            }
            int count = in.u16();
            if (in.failed || count > MAX_RECORDS || p.firstSeq < 0) {
                return null;
            }
            p.records = count;
            p.recordKind = new byte[count];
            p.recordService = new int[count];
            p.recordHost = new int[count];
            p.recordHigh = new long[count];
            p.recordLow = new long[count];
            p.recordAt = new long[count];
            p.recordTokens = new int[count];
            for (int i = 0; i < count && !in.failed; i++) {
                int kind = in.u8();
                p.recordKind[i] = (byte) kind;
                p.recordService[i] = in.u16();
                p.recordHost[i] = in.u16();
                p.recordHigh[i] = in.i64();
                p.recordLow[i] = in.i64();
                p.recordAt[i] = in.i64();
                p.recordTokens[i] = in.i32();
                if (kind > SESSION || p.recordService[i] >= p.strings.length || p.recordHost[i] >= p.strings.length) {
                    return null;
                }
            }
            return in.failed || !in.atEnd() ? null : p;
        }
    }

    /** Big-endian writes into a growing buffer. */
    private static final class Writer {
        private byte[] buffer = new byte[4096];
        private int size;

        void u8(int value) {
            if (size == buffer.length) {
                byte[] bigger = new byte[buffer.length * 2];
                System.arraycopy(buffer, 0, bigger, 0, size);
                buffer = bigger;
            }
            buffer[size++] = (byte) value;
        }

        void u16(int value) {
            u8(value >>> 8);
            u8(value);
        }

        void i32(int value) {
            u16(value >>> 16);
            u16(value);
        }

        void i64(long value) {
            i32((int) (value >>> 32));
            i32((int) value);
        }

        void string(String text) {
            byte[] utf8 = Utf8.encode(text);
            u16(utf8.length);
            for (byte b : utf8) {
                u8(b);
            }
        }

        byte[] bytes() {
            byte[] out = new byte[size];
            System.arraycopy(buffer, 0, out, 0, size);
            return out;
        }
    }

    /** Big-endian reads that never go past the end: a short read sets {@code failed} and yields zeros. */
    private static final class Reader {
        private final byte[] bytes;
        private int at;
        boolean failed;

        Reader(byte[] bytes) {
            this.bytes = bytes;
        }

        int u8() {
            if (at >= bytes.length) {
                failed = true;
                return 0;
            }
            return bytes[at++] & 0xFF;
        }

        int u16() {
            return (u8() << 8) | u8();
        }

        int i32() {
            return (u16() << 16) | u16();
        }

        long i64() {
            return ((long) i32() << 32) | (i32() & 0xFFFFFFFFL);
        }

        String string() {
            int length = u16();
            if (failed || length > bytes.length - at) {
                failed = true;
                return "";
            }
            String text = Utf8.decode(bytes, at, length);
            at += length;
            return text;
        }

        boolean atEnd() {
            return at == bytes.length;
        }
    }
}
