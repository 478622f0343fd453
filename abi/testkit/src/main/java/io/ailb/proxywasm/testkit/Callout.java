package io.ailb.proxywasm.testkit;

import java.util.Optional;

/**
 * What a Redis call and an HTTP call the guest made have in common: the answer given so far and its delivery to the
 * root context that made the call.
 *
 * @param <A> the kind of answer
 */
public abstract class Callout<A extends Callout.Answer> {
    /** An answer, possibly not given yet. */
    public interface Answer {
        boolean isPending();
    }

    private final FakeHost host;
    private final int rootContextId;
    private A answer;
    private boolean delivered;

    Callout(FakeHost host, int rootContextId, A pending) {
        this.host = host;
        this.rootContextId = rootContextId;
        this.answer = pending;
    }

    /** The answer given so far; empty while it is pending. */
    public Optional<A> answer() {
        return answer.isPending() ? Optional.empty() : Optional.of(answer);
    }

    public boolean isDelivered() {
        return delivered;
    }

    /** Delivers the answer the responder gave (under {@link FakeHost#withManualDelivery()}). */
    public void deliver() {
        if (answer.isPending()) {
            throw new IllegalStateException("no answer to deliver for " + this + "; use deliver("
                    + answer.getClass().getSimpleName() + ")");
        }
        host.deliver(this);
    }

    /** Delivers {@code given} now: the guest's callback runs before this returns. */
    public void deliver(A given) {
        if (given.isPending()) {
            throw new IllegalArgumentException("a pending answer cannot be delivered");
        }
        if (delivered) {
            throw new IllegalStateException(this + " was already delivered");
        }
        answer = given;
        host.deliver(this);
    }

    void answer(A given) {
        answer = given;
    }

    A currentAnswer() {
        return answer;
    }

    boolean deliverable() {
        return !delivered && !answer.isPending();
    }

    void markDelivered() {
        delivered = true;
    }

    int rootContextId() {
        return rootContextId;
    }
}
