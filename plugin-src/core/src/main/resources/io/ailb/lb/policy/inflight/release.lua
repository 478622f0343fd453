-- Ends one in-flight request by taking its lease (written by select.lua): only a lease still held gives its host's
-- count back, so a release is idempotent — sending it twice, for a call that never incremented (full, error,
-- never executed), or after the lease expired and was healed changes nothing. The count is decremented only while
-- it is positive (e.g. the hash may have expired, or the cleanup removed a host that left); zero is removed.
-- Creates no key.
--
-- KEYS[1] in-flight HASH: host -> count
-- KEYS[2] lease ZSET: lease id -> expiry
-- KEYS[3] lease HASH: lease id -> host
-- ARGV[1] lease id
--
-- Returns the host's remaining count, or -1 when the lease was not held (nothing was decremented).

--#include "_release.lua"

local host = take_lease(KEYS[2], KEYS[3], ARGV[1])
if not host then
    return -1
end
return subtract(KEYS[1], host, 1, true)
