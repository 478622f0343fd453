package io.ailb.lb.request;

import io.ailb.codec.json.JsonException;
import io.ailb.codec.json.JsonNumbers;
import io.ailb.codec.json.JsonReader;
import io.ailb.codec.json.JsonReader.Token;
import java.util.Collections;
import java.util.Locale;

/**
 * Reads an OpenAI-style request body (chat {@code messages} or completions {@code prompt}) in one streaming pass,
 * without building a tree or strings for what it skips. Everything else about the body is ignored.
 *
 * <h2>Prompt blocks</h2>
 * Chat: a block closes after every {@code user} message and after the last message, so [system, user, assistant,
 * user] gives (system+user), (assistant+user). With {@link BlockBoundaries#EVERY_MESSAGE_BUT_ASSISTANT} a block also
 * closes after every other non-assistant message (system, developer, tool), so the same body gives (system), (user),
 * (assistant+user): a system prompt shared by many conversations is a block of its own. In that mode a block also
 * closes every {@value #MESSAGE_CHUNK_BYTES} bytes inside a message, so requests whose last message starts with the
 * same long text (retrieved documents, a pasted file) share its full chunks. A block is the concatenation of its messages' pieces; a piece is a
 * tag byte, the bytes, then the bytes' length as 4 bytes big-endian:
 * <ul>
 *   <li>{@code R}: the role (a missing or non-string role is "");</li>
 *   <li>{@code T}: text, once for string content or per text part ({@code {"type":"text","text":...}}) of array
 *       content, so string content equals one text part with the same text;</li>
 *   <li>{@code B}: the raw JSON bytes of any other part (image_url, input_audio, file...) or of non-string, non-array
 *       content, a stable identity for "the same image";</li>
 *   <li>{@code M}: empty, ends the message.</li>
 * </ul>
 * A missing or null content is empty text; a non-object message is a message with empty role and content. An
 * assistant's {@code tool_calls} (or legacy {@code function_call}) is a {@code C} piece of its raw JSON bytes after the
 * content, counted as prompt text: the engine renders the call into the prompt.
 *
 * <p>Tool definitions ({@code tools}, or legacy {@code functions} without it; a null or empty list is none) are
 * rendered into the prompt near its start, where chat templates put them: an {@code F} piece of their raw JSON bytes,
 * counted as prompt text, right after a leading {@code system} or {@code developer} message, else before the first
 * message. They close a block like a non-assistant message, so agents sharing tool sets share those blocks. The member
 * may come anywhere in the body: when it follows the messages (as OpenAI's SDKs send it), the messages are read again
 * from their byte range only up to the first message after the definitions' place that ends a block in both readings;
 * the blocks after it are the first reading's, re-chained ({@link BlockHasher#adoptBlocks}). Only when that message
 * is not among the first {@value #REREAD_MESSAGES} are all messages hashed again.
 *
 * <p>Completions: the prompt string (or each element of a prompt array, as {@code T} or {@code B} pieces) forms one
 * byte stream cut into blocks of {@value #PROMPT_CHUNK_BYTES} bytes, plus the final partial block, so long prompts
 * with a shared beginning share the hashes of every full chunk they have in common.
 *
 * <p>Blocks are chained with {@link BlockHasher}, at most {@value #MAX_PREFIX_BLOCKS} per request: the rest of a
 * longer prompt folds into the last block. If a body has both {@code messages} and {@code prompt}, the first one in
 * the body is used.
 *
 * <h2>Cost</h2>
 * One pass over the body validates it and hashes each message as it is read, straight from the body bytes (escapes
 * decoded on the fly); no strings or objects per message. A message whose {@code content} comes before its
 * {@code role}, or that repeats either, is hashed again from its recorded byte range, so member order and duplicate
 * members (the last one wins) give the same hashes as the usual order.
 */
public final class RequestParser {
    static final int PROMPT_CHUNK_BYTES = 2048;
    /**
     * Chunk size inside chat messages (about 1,000 tokens). Twice the completion chunk so a message of one 512-token
     * block, as in the Mooncake trace, stays one block rather than a chunk and a sliver.
     */
    static final int MESSAGE_CHUNK_BYTES = 4096;
    /**
     * The cap on prefix blocks (one per user turn, per other message or 4 KiB chunk of one, or per 2 KiB of a
     * completion prompt). Keeps a request's Redis
     * keys, script arguments and guest memory bounded whatever the number of messages; 256 user turns (or 512 KiB
     * of prompt) cover long agent sessions, and a conversation longer than that still matches its first 255 blocks.
     */
    public static final int MAX_PREFIX_BLOCKS = 256;

    private static final byte ROLE = 'R';
    private static final byte TEXT = 'T';
    private static final byte RAW = 'B';
    private static final byte END_OF_MESSAGE = 'M';
    private static final byte TOOL_CALLS = 'C';
    private static final byte TOOL_DEFINITIONS = 'F';
    private static final long ABSENT = -1;
    /** How far into the messages a second reading looks for the point where the first reading's blocks resume. */
    private static final int REREAD_MESSAGES = 16;

    private final byte[] body;
    /** False: the messages / prompt are skipped unread (no hashes, no sizes). */
    private final boolean readPrompt;

    private final int maxJsonDepth;

    private final BlockBoundaries boundaries;
    /** Reused for role, part type and part text, which are read one after the other. */
    private final JsonReader valueReader;
    /** Reused for message content, which may hold parts read with {@link #valueReader}. */
    private final JsonReader contentReader;
    /** Reused for a message hashed again from its byte range. */
    private final JsonReader messageReader;

    private BlockHasher hasher;
    private String model;
    private int maxTokens = -1;
    private int maxCompletionTokens = -1;
    private boolean stream;
    private int messageCount;
    /** Byte ranges ({@link #capture}) of the {@code tools} and {@code functions} values, or {@link #ABSENT}. */
    private long tools = ABSENT;

    private long functions = ABSENT;
    /** The messages' byte range once hashed, and the tool definitions hashed with them (or {@link #ABSENT}). */
    private long messages = ABSENT;

    private long hashedDefinitions = ABSENT;
    /**
     * For each of the first {@value #REREAD_MESSAGES} messages of the first reading: the blocks closed after it when it
     * ended a block and left none open, else -1.
     */
    private final int[] blocksAfterMessage = new int[REREAD_MESSAGES];

    /** Where chat prefix blocks close (completion prompts are always cut into fixed chunks). */
    public enum BlockBoundaries {
        /** After every user message: the Go plugin's conversation keys. */
        AFTER_USER,
        /** After every message whose role is not {@code assistant}, and every {@value #MESSAGE_CHUNK_BYTES} bytes. */
        EVERY_MESSAGE_BUT_ASSISTANT
    }

    private RequestParser(byte[] body, int length, boolean readPrompt, BlockBoundaries boundaries, int maxJsonDepth) {
        this.body = body;
        this.readPrompt = readPrompt;
        this.maxJsonDepth = maxJsonDepth;
        this.boundaries = boundaries;
        this.valueReader = new JsonReader(body, 0, length, maxJsonDepth);
        this.contentReader = new JsonReader(body, 0, length, maxJsonDepth);
        this.messageReader = new JsonReader(body, 0, length, maxJsonDepth);
    }

    /**
     * Never throws for bad input: binary content types ({@code octet-stream}, {@code grpc}), any content-encoding
     * other than {@code identity}, and bodies that are not a valid JSON object give {@link RequestInfo#parsed()}
     * false. An empty body gives {@link RequestInfo#noBody()}.
     */
    public static RequestInfo parse(String contentType, String contentEncoding, byte[] body, int length) {
        return parse(contentType, contentEncoding, body, length, true);
    }

    /**
     * Like {@link #parse(String, String, byte[], int)}; with {@code readPrompt} false only the scalar fields are read
     * ({@code model}, {@code max_tokens}, {@code max_completion_tokens}, {@code stream}), the messages or prompt are
     * skipped (the result has no prefix hashes and no prompt size), and the body is still checked to be valid JSON.
     */
    public static RequestInfo parse(
            String contentType, String contentEncoding, byte[] body, int length, boolean readPrompt) {
        return parse(contentType, contentEncoding, body, length, readPrompt, BlockBoundaries.AFTER_USER);
    }

    /** Like {@link #parse(String, String, byte[], int, boolean)}, with chat blocks closing at {@code boundaries}. */
    public static RequestInfo parse(
            String contentType,
            String contentEncoding,
            byte[] body,
            int length,
            boolean readPrompt,
            BlockBoundaries boundaries) {
        return parse(contentType, contentEncoding, body, length, readPrompt, boundaries, JsonReader.DEFAULT_MAX_DEPTH);
    }

    /** Like the others; a body nested deeper than {@code maxJsonDepth} is unparsed (the reader stays iterative). */
    public static RequestInfo parse(
            String contentType,
            String contentEncoding,
            byte[] body,
            int length,
            boolean readPrompt,
            BlockBoundaries boundaries,
            int maxJsonDepth) {
        if (body == null || length <= 0) {
            return RequestInfo.noBody();
        }
        if (!inspectable(contentType, contentEncoding)) {
            return RequestInfo.unparsed(length);
        }
        RequestParser parser = new RequestParser(body, length, readPrompt, boundaries, maxJsonDepth);
        try {
            parser.readDocument(new JsonReader(body, 0, length, maxJsonDepth));
        } catch (JsonException e) {
            return RequestInfo.unparsed(length);
        }
        return parser.result(length);
    }

    /**
     * False for bodies this parser never reads (binary or compressed), so a gateway need not buffer them: they are
     * decided at the headers and streamed through.
     */
    public static boolean inspectable(String contentType, String contentEncoding) {
        return !isBinary(contentType) && !isEncoded(contentEncoding);
    }

    private static boolean isBinary(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = contentType.toLowerCase(Locale.ROOT);
        return type.contains("octet-stream") || type.contains("grpc");
    }

    private static boolean isEncoded(String contentEncoding) {
        if (contentEncoding == null) {
            return false;
        }
        String encoding = contentEncoding.trim();
        return !encoding.isEmpty() && !encoding.equalsIgnoreCase("identity");
    }

    private RequestInfo result(int length) {
        int max = maxTokens >= 0 ? maxTokens : maxCompletionTokens;
        if (hasher == null) {
            return new RequestInfo(
                    true, true, model, Collections.<String>emptyList(), 0, max, stream, length, messageCount);
        }
        return new RequestInfo(
                true,
                true,
                model,
                hasher.hashes(),
                RequestInfo.tokensOf(hasher.textCharsAtClose()),
                RequestInfo.tokensOf(hasher.answeredCharsAtClose()),
                hasher.textChars(),
                max,
                stream,
                length,
                messageCount);
    }

    private void readDocument(JsonReader r) {
        if (r.next() != Token.BEGIN_OBJECT) {
            throw new JsonException(0, "request body is not a JSON object");
        }
        while (r.next() != Token.END_OBJECT) {
            if (r.stringEquals("model")) {
                model = readString(r);
            } else if (readPrompt && r.stringEquals("messages") && hasher == null) {
                readMessages(r, null);
            } else if (readPrompt && r.stringEquals("prompt") && hasher == null) {
                readPrompt(r);
            } else if (r.stringEquals("max_tokens")) {
                maxTokens = nonNegativeInt(r);
            } else if (r.stringEquals("max_completion_tokens")) {
                maxCompletionTokens = nonNegativeInt(r);
            } else if (r.stringEquals("stream")) {
                stream = readTrue(r);
            } else if (readPrompt && r.stringEquals("tools")) {
                tools = captureUnlessEmpty(r);
            } else if (readPrompt && r.stringEquals("functions")) {
                functions = captureUnlessEmpty(r);
            } else {
                r.skipValue();
            }
        }
        r.next();
        if (messages != ABSENT && hashedDefinitions != toolDefinitions()) {
            // The definitions came after the messages: read those again with the definitions in their place, as far
            // as needed to take over the first reading's blocks.
            BlockHasher firstReading = hasher;
            int firstMessageCount = messageCount;
            messageCount = 0;
            readMessages(
                    new JsonReader(body, start(messages), end(messages) - start(messages), maxJsonDepth), firstReading);
            messageCount = firstMessageCount;
        }
    }

    /** The tool definitions the prompt renders: {@code tools}, else legacy {@code functions}. */
    private long toolDefinitions() {
        return tools != ABSENT ? tools : functions;
    }

    /**
     * Hashes the messages; {@code firstReading}, when not null, is a finished reading of the same messages without the
     * tool definitions now known, whose blocks are taken over once both readings end a block at the same message.
     */
    private void readMessages(JsonReader r, BlockHasher firstReading) {
        Token t = r.next();
        if (t != Token.BEGIN_ARRAY) {
            skipRest(r, t);
            return;
        }
        int listStart = r.tokenStart();
        hasher = new BlockHasher(boundaries == BlockBoundaries.AFTER_USER ? 0 : MESSAGE_CHUNK_BYTES, MAX_PREFIX_BLOCKS);
        long definitions = toolDefinitions();
        hashedDefinitions = definitions;
        // The block a run of assistant messages follows: the prompt the engine answered with them ended there.
        int answered = -1;
        boolean afterAnswer = false;
        while ((t = r.next()) != Token.END_ARRAY) {
            messageCount++;
            // Before the message: a long one may close chunk blocks of its own.
            int closedBefore = hasher.closedBlocks();
            boolean closes;
            boolean definitionsAfter = false;
            if (definitions != ABSENT) {
                // The first message, read from its range: the definitions go before it unless it is the instructions.
                int start = r.tokenStart();
                skipRest(r, t);
                definitionsAfter = t == Token.BEGIN_OBJECT && isInstructions(start, r.tokenEnd());
                if (!definitionsAfter) {
                    writeToolDefinitions(definitions);
                    closedBefore = hasher.closedBlocks();
                }
                closes = t == Token.BEGIN_OBJECT
                        ? writeMessage(messageReader, start, r.tokenEnd())
                        : writeMessage(ABSENT, ABSENT, ABSENT);
            } else if (t == Token.BEGIN_OBJECT) {
                closes = readMessage(r);
            } else {
                skipRest(r, t);
                closes = writeMessage(ABSENT, ABSENT, ABSENT);
            }
            if (closes) {
                hasher.closeBlock();
                afterAnswer = false;
            } else if (boundaries == BlockBoundaries.EVERY_MESSAGE_BUT_ASSISTANT) {
                // Only assistant messages leave a block open here.
                if (!afterAnswer) {
                    answered = hasher.belowCap() ? closedBefore - 1 : -1;
                    afterAnswer = true;
                }
                if (answered >= 0) {
                    hasher.answerFollows(answered);
                }
            }
            if (definitionsAfter) {
                writeToolDefinitions(definitions);
            }
            definitions = ABSENT;
            int message = messageCount - 1;
            boolean endsBlocks = closes && !hasher.blockOpen();
            if (firstReading == null) {
                if (message < REREAD_MESSAGES) {
                    blocksAfterMessage[message] = endsBlocks && !hasher.inTail() ? hasher.closedBlocks() : -1;
                }
            } else if (endsBlocks && message < REREAD_MESSAGES && resumes(firstReading, blocksAfterMessage[message])) {
                hasher.adoptBlocks(firstReading, blocksAfterMessage[message]);
                return;
            }
        }
        if (definitions != ABSENT) {
            writeToolDefinitions(definitions);
        }
        hasher.finish();
        messages = ((long) listStart << 32) | r.tokenEnd();
    }

    /**
     * Whether the first reading's blocks from {@code from} on can follow the blocks closed so far: the first reading
     * ended a block there too, below the cap, and when it has a tail past the cap this reading is no shorter there
     * ({@link BlockHasher#adoptBlocks}).
     */
    private boolean resumes(BlockHasher firstReading, int from) {
        return from >= 0 && (!firstReading.inTail() || hasher.closedBlocks() >= from);
    }

    /** Whether the message object in {@code body[start, end)} has the role {@code system} or {@code developer}. */
    private boolean isInstructions(int start, int end) {
        JsonReader m = messageReader;
        m.reset(start, end - start);
        m.next();
        boolean instructions = false;
        while (m.next() != Token.END_OBJECT) {
            if (m.stringEquals("role")) {
                Token v = m.next();
                instructions = v == Token.STRING && (m.stringEquals("system") || m.stringEquals("developer"));
                skipRest(m, v);
            } else {
                m.skipValue();
            }
        }
        return instructions;
    }

    /** The tool definitions in {@code range}: prompt text that closes a block as a non-assistant message does. */
    private void writeToolDefinitions(long range) {
        writeRawText(TOOL_DEFINITIONS, range);
        if (closesBlockWithoutRole()) {
            hasher.closeBlock();
        }
    }

    /**
     * Hashes one message object while reading it (the reader is after its '{'); returns whether it closes a block
     * ({@link #closesBlock}). The usual shape (role, then content, each once) is hashed in this pass; any other is hashed again
     * from the message's byte range with {@link #writeMessage}.
     */
    private boolean readMessage(JsonReader r) {
        int messageStart = r.tokenStart();
        hasher.mark();
        boolean roleSeen = false;
        boolean contentSeen = false;
        boolean inOrder = true;
        boolean closes = closesBlockWithoutRole();
        long calls = ABSENT;
        while (r.next() != Token.END_OBJECT) {
            if (r.stringEquals("role")) {
                Token v = r.next();
                if (roleSeen || contentSeen || v != Token.STRING) {
                    inOrder = false;
                    skipRest(r, v);
                    continue;
                }
                roleSeen = true;
                hasher.tag(ROLE);
                hasher.length(r.stringUtf8Bytes(hasher));
                closes = closesBlock(r);
            } else if (r.stringEquals("content")) {
                Token v = r.next();
                if (!roleSeen || contentSeen || !inOrder) {
                    inOrder = false;
                    skipRest(r, v);
                    continue;
                }
                contentSeen = true;
                writeContent(r, v);
            } else if (r.stringEquals("tool_calls") || r.stringEquals("function_call")) {
                calls = captureUnlessEmpty(r);
            } else {
                r.skipValue();
            }
        }
        if (!inOrder) {
            hasher.rewind();
            return writeMessage(messageReader, messageStart, r.tokenEnd());
        }
        if (!roleSeen) {
            hasher.tag(ROLE);
            hasher.length(0);
        }
        writeToolCalls(calls);
        hasher.tag(END_OF_MESSAGE);
        hasher.length(0);
        return closes;
    }

    /** Hashes the message object in {@code body[start, end)} whatever its member order. */
    private boolean writeMessage(JsonReader m, int start, int end) {
        m.reset(start, end - start);
        m.next();
        long role = ABSENT;
        long content = ABSENT;
        long calls = ABSENT;
        while (m.next() != Token.END_OBJECT) {
            if (m.stringEquals("role")) {
                role = capture(m);
            } else if (m.stringEquals("content")) {
                content = capture(m);
            } else if (m.stringEquals("tool_calls") || m.stringEquals("function_call")) {
                calls = captureUnlessEmpty(m);
            } else {
                m.skipValue();
            }
        }
        return writeMessage(role, content, calls);
    }

    /** Writes one message's pieces; returns whether it closes a block. */
    private boolean writeMessage(long role, long content, long calls) {
        boolean closes = closesBlockWithoutRole();
        hasher.tag(ROLE);
        if (role >= 0) {
            JsonReader roleReader = at(valueReader, role);
            if (roleReader.next() == Token.STRING) {
                hasher.length(roleReader.stringUtf8Bytes(hasher));
                closes = closesBlock(roleReader);
            } else {
                hasher.length(0);
            }
        } else {
            hasher.length(0);
        }
        if (content >= 0) {
            JsonReader c = at(contentReader, content);
            writeContent(c, c.next());
        }
        writeToolCalls(calls);
        hasher.tag(END_OF_MESSAGE);
        hasher.length(0);
        return closes;
    }

    /** The tool calls in {@code range} (none when {@link #ABSENT}), as prompt text. */
    private void writeToolCalls(long range) {
        if (range != ABSENT) {
            writeRawText(TOOL_CALLS, range);
        }
    }

    /** A piece tagged {@code tag} of the raw JSON bytes in {@code range}, counted as prompt text. */
    private void writeRawText(byte tag, long range) {
        hasher.tag(tag);
        hasher.textMode(true);
        hasher.write(body, start(range), end(range) - start(range));
        hasher.textMode(false);
        hasher.length(end(range) - start(range));
    }

    /** Whether a message without a string role closes a block: its role reads as "", not assistant. */
    private boolean closesBlockWithoutRole() {
        return boundaries != BlockBoundaries.AFTER_USER;
    }

    /** Whether a message whose role string {@code role} just read closes a block. */
    private boolean closesBlock(JsonReader role) {
        return boundaries == BlockBoundaries.AFTER_USER ? role.stringEquals("user") : !role.stringEquals("assistant");
    }

    /** Content whose first token {@code t} was just read from {@code c}; leaves {@code c} after the value. */
    private void writeContent(JsonReader c, Token t) {
        if (t == Token.STRING) {
            writeText(c);
        } else if (t == Token.BEGIN_ARRAY) {
            while ((t = c.next()) != Token.END_ARRAY) {
                writePart(c, t);
            }
        } else if (t != Token.NULL) {
            int start = c.tokenStart();
            skipRest(c, t);
            writeRaw(start, c.tokenEnd());
        }
    }

    /** One element of array content: a text part, a bare string, or anything else as raw bytes. */
    private void writePart(JsonReader c, Token t) {
        if (t == Token.STRING) {
            writeText(c);
            return;
        }
        int partStart = c.tokenStart();
        if (t != Token.BEGIN_OBJECT) {
            skipRest(c, t);
            writeRaw(partStart, c.tokenEnd());
            return;
        }
        long type = -1;
        long text = -1;
        while (c.next() != Token.END_OBJECT) {
            if (c.stringEquals("type")) {
                type = capture(c);
            } else if (c.stringEquals("text")) {
                text = capture(c);
            } else {
                c.skipValue();
            }
        }
        int partEnd = c.tokenEnd();
        if (type >= 0 && text >= 0 && isTextType(type)) {
            JsonReader textReader = at(valueReader, text);
            if (textReader.next() == Token.STRING) {
                writeText(textReader);
                return;
            }
        }
        writeRaw(partStart, partEnd);
    }

    private void readPrompt(JsonReader r) {
        Token t = r.next();
        if (t == Token.STRING) {
            hasher = new BlockHasher(PROMPT_CHUNK_BYTES, MAX_PREFIX_BLOCKS);
            messageCount = 1;
            writeText(r);
        } else if (t == Token.BEGIN_ARRAY) {
            hasher = new BlockHasher(PROMPT_CHUNK_BYTES, MAX_PREFIX_BLOCKS);
            while ((t = r.next()) != Token.END_ARRAY) {
                messageCount++;
                writePart(r, t);
            }
        } else {
            skipRest(r, t);
            return;
        }
        hasher.finish();
    }

    private void writeText(JsonReader r) {
        hasher.tag(TEXT);
        hasher.textMode(true);
        long bytes = r.stringUtf8Bytes(hasher);
        hasher.textMode(false);
        hasher.length(bytes);
    }

    private void writeRaw(int start, int end) {
        hasher.tag(RAW);
        hasher.write(body, start, end - start);
        hasher.length(end - start);
    }

    /** Consumes the value after a NAME and returns its byte range packed as start << 32 | end. */
    private static long capture(JsonReader r) {
        Token t = r.next();
        int start = r.tokenStart();
        skipRest(r, t);
        return ((long) start << 32) | r.tokenEnd();
    }

    /** Like {@link #capture}, but {@link #ABSENT} for null and for an empty array or object. */
    private long captureUnlessEmpty(JsonReader r) {
        long range = capture(r);
        JsonReader value = at(valueReader, range);
        Token t = value.next();
        boolean container = t == Token.BEGIN_OBJECT || t == Token.BEGIN_ARRAY;
        Token first = container ? value.next() : t;
        boolean empty = t == Token.NULL || first == Token.END_OBJECT || first == Token.END_ARRAY;
        return empty ? ABSENT : range;
    }

    /** Finishes a value whose first token {@code t} was already read. */
    private static void skipRest(JsonReader r, Token t) {
        if (t == Token.BEGIN_OBJECT || t == Token.BEGIN_ARRAY) {
            int target = r.depth() - 1;
            while (r.depth() > target) {
                r.next();
            }
        }
    }

    /** The next value if it is a string, else null (the value is skipped). */
    private static String readString(JsonReader r) {
        Token t = r.next();
        if (t == Token.STRING) {
            return r.string();
        }
        skipRest(r, t);
        return null;
    }

    /** Whether the next value is {@code true}; anything else is skipped and counts as false. */
    private static boolean readTrue(JsonReader r) {
        Token t = r.next();
        skipRest(r, t);
        return t == Token.TRUE;
    }

    private static int nonNegativeInt(JsonReader r) {
        Token t = r.next();
        if (t != Token.NUMBER) {
            skipRest(r, t);
            return -1;
        }
        String lexeme = r.numberLexeme();
        if (!JsonNumbers.isIntegral(lexeme)) {
            return -1;
        }
        long value = JsonNumbers.toLong(lexeme);
        return value < 0 ? -1 : (int) Math.min(value, Integer.MAX_VALUE);
    }

    private boolean isTextType(long type) {
        JsonReader typeReader = at(valueReader, type);
        return typeReader.next() == Token.STRING && typeReader.stringEquals("text");
    }

    /** Points a reused reader at a value range captured earlier (already validated by the main pass). */
    private static JsonReader at(JsonReader reader, long range) {
        reader.reset(start(range), end(range) - start(range));
        return reader;
    }

    private static int start(long range) {
        return (int) (range >>> 32);
    }

    private static int end(long range) {
        return (int) range;
    }
}
