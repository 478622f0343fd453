package io.ailb.emulator;

/** Redis traffic of one VM: commands answered or failed, and RESP bytes each way. */
public record RedisStats(long roundTrips, long failures, long bytesSent, long bytesReceived) {}
