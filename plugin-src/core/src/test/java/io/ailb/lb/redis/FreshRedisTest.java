package io.ailb.lb.redis;

import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Base of the script tests: each test talks to a flushed {@link TestRedis} of its own. */
public abstract class FreshRedisTest {
    protected TestRedis redis;

    @BeforeEach
    void connectToFreshRedis() throws IOException {
        redis = TestRedis.connect();
    }

    @AfterEach
    void closeRedis() throws IOException {
        redis.close();
    }
}
