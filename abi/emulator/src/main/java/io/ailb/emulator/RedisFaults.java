package io.ailb.emulator;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * The Redis faults a gateway has in store for its VMs' calls, in the spirit of a mock web server's queue: rules are
 * tried in the order they were added, a rule matches a call by the command's first word ({@code EVALSHA}, {@code GET};
 * any command when none is given), and a {@link #once} rule is used up by the call it matched.
 *
 * <pre>{@code
 * gateway.redisFaults().once("EVALSHA", RedisFault.noScript());        // the next script call: NOSCRIPT
 * gateway.redisFaults().always(RedisFault.delay(Duration.ofSeconds(2))); // every call times out (timeout < 2 s)
 * gateway.redisFaults().clear();                                       // clean round trips again
 * }</pre>
 */
public final class RedisFaults {
    private record Rule(String command, RedisFault fault, boolean once) {
        boolean matches(String word) {
            return command.isEmpty() || command.equals(word);
        }
    }

    private final List<Rule> rules = new ArrayList<>();
    private final boolean virtualTime;
    private long injected;

    /** @param virtualTime whether the gateway runs on a {@link VirtualClock} (delays need one) */
    RedisFaults(boolean virtualTime) {
        this.virtualTime = virtualTime;
    }

    /** The next call, whatever its command, meets {@code fault}. */
    public synchronized RedisFaults once(RedisFault fault) {
        return add("", fault, true);
    }

    /** The next call of {@code command} (its first word, any case) meets {@code fault}. */
    public synchronized RedisFaults once(String command, RedisFault fault) {
        return add(command, fault, true);
    }

    /** Every call meets {@code fault} until {@link #clear()}. */
    public synchronized RedisFaults always(RedisFault fault) {
        return add("", fault, false);
    }

    /** Every call of {@code command} meets {@code fault} until {@link #clear()}. */
    public synchronized RedisFaults always(String command, RedisFault fault) {
        return add(command, fault, false);
    }

    /** Removes every rule: calls make clean round trips again. */
    public synchronized void clear() {
        rules.clear();
    }

    /** Rules not used up yet. */
    public synchronized int pending() {
        return rules.size();
    }

    /** How many calls met a fault so far. */
    public synchronized long injected() {
        return injected;
    }

    private RedisFaults add(String command, RedisFault fault, boolean once) {
        if (fault.kind() == RedisFault.Kind.DELAY && !virtualTime) {
            throw new EmulatorException("a delayed reply needs a VirtualClock (Gateway.builder().withClock(...)): "
                    + "Gateway.advance() delivers it");
        }
        rules.add(new Rule(command.toUpperCase(Locale.ROOT), fault, once));
        return this;
    }

    /** The fault for a call of {@code commandWord}, or null for a clean round trip; uses up a matching once-rule. */
    synchronized RedisFault take(String commandWord) {
        String word = commandWord.toUpperCase(Locale.ROOT);
        Iterator<Rule> iterator = rules.iterator();
        while (iterator.hasNext()) {
            Rule rule = iterator.next();
            if (rule.matches(word)) {
                if (rule.once()) {
                    iterator.remove();
                }
                injected++;
                return rule.fault();
            }
        }
        return null;
    }
}
