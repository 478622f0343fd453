package io.ailb.emulator;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * What waits until the guest callback that caused it has returned, since Envoy never re-enters a filter: streams'
 * deferred actions (continue, local reply, close) and replies due to the guest (Redis, HTTP calls). A reply may also be
 * scheduled for a later time ({@link RedisFault#delay}): it joins the others once the clock reaches it.
 */
final class DeliveryQueue {
    private final Delivery delivery;
    private final BooleanSupplier vmAlive;
    private final Deque<PendingReply> replies = new ArrayDeque<>();
    private final Deque<HttpStream> deferred = new ArrayDeque<>();
    private final PriorityQueue<ScheduledReply> scheduled = new PriorityQueue<>(
            Comparator.comparingLong(ScheduledReply::dueMillis).thenComparingLong(ScheduledReply::order));
    private long scheduledSoFar;
    private boolean settling;

    /** A reply waiting for delivery to the guest. */
    private record PendingReply(String what, Runnable delivery) {}

    /** A reply held until {@code dueMillis}; {@code order} keeps replies due at the same time in call order. */
    private record ScheduledReply(long dueMillis, long order, PendingReply reply) {}

    DeliveryQueue(Delivery delivery, BooleanSupplier vmAlive) {
        this.delivery = delivery;
        this.vmAlive = vmAlive;
    }

    void addReply(String what, Runnable deliverReply) {
        replies.add(new PendingReply(what, deliverReply));
    }

    void addReplyAt(long dueMillis, String what, Runnable deliverReply) {
        scheduled.add(new ScheduledReply(dueMillis, scheduledSoFar++, new PendingReply(what, deliverReply)));
    }

    /** A dead VM gets no more callbacks. */
    void dropReplies() {
        replies.clear();
        scheduled.clear();
    }

    int pendingReplies() {
        return replies.size();
    }

    int scheduledReplies() {
        return scheduled.size();
    }

    /** When the earliest scheduled reply is due; {@code Long.MAX_VALUE} when none is. */
    long nextDueMillis() {
        ScheduledReply next = scheduled.peek();
        return next == null ? Long.MAX_VALUE : next.dueMillis();
    }

    /** Moves the replies due at {@code nowMillis} to the ready ones, earliest first. */
    void releaseDue(long nowMillis) {
        while (!scheduled.isEmpty() && scheduled.peek().dueMillis() <= nowMillis) {
            replies.add(scheduled.poll().reply());
        }
    }

    void defer(HttpStream stream) {
        if (!deferred.contains(stream)) {
            deferred.add(stream);
        }
    }

    void forget(HttpStream stream) {
        deferred.remove(stream);
    }

    /**
     * After a driver call: apply streams' deferred actions, then ({@link Delivery#AUTOMATIC}) hand over waiting
     * replies, each once the previous callback has returned.
     */
    void settle() {
        if (settling) {
            return;
        }
        settling = true;
        try {
            while (vmAlive.getAsBoolean()) {
                HttpStream stream = deferred.poll();
                if (stream != null) {
                    stream.applyDeferred();
                } else if (delivery == Delivery.AUTOMATIC && !replies.isEmpty()) {
                    replies.poll().delivery().run();
                } else {
                    break;
                }
            }
        } finally {
            settling = false;
        }
    }

    /** Delivers every waiting reply ({@link Delivery#MANUAL}); returns how many. */
    int deliverAll() {
        int delivered = 0;
        while (vmAlive.getAsBoolean() && !replies.isEmpty()) {
            replies.poll().delivery().run();
            delivered++;
            applyDeferred();
        }
        return delivered;
    }

    private void applyDeferred() {
        HttpStream stream;
        while (vmAlive.getAsBoolean() && (stream = deferred.poll()) != null) {
            stream.applyDeferred();
        }
    }
}
