#pragma once

#include "redisreply.h"

#include <QString>

#include <memory>

struct redisReader;

namespace lockscope
{

/**
 * Bounds on one RESP reply, checked while it is decoded. The defaults are far above anything
 * LockScope reads (SCAN pages, lock hashes, INFO, CLIENT LIST of thousands of clients: a few MB
 * at most) and far below what would hurt the machine; Redis itself refuses bulk strings over
 * 512 MB (proto-max-bulk-len).
 */
struct RedisReplyLimits {
    qint64 maxBulkBytes = qint64(64) << 20;   ///< one bulk string, status or error line: 64 MiB
    qint64 maxReplyBytes = qint64(256) << 20; ///< all strings of one reply together: 256 MiB
    qint64 maxElements = qint64(2) << 20;     ///< all array elements of one reply, nested included: 2 Mi
};

/**
 * The RESP2 decoder of a RedisConnection: hiredis' redisReader (LockScope never parses RESP
 * itself) with RedisReplyLimits enforced before anything is allocated:
 * - hiredis' object functions are LockScope's own: each value hiredis parses becomes a RedisReply
 *   in place (one allocation per string, none per integer or nil, since
 *   decoding was much of `list`'s client CPU), and an array over
 *   the element budget is refused at its header, before anything is allocated for it;
 * - a bulk string is only handed over once complete, so while the reader waits for its bytes the
 *   length line it announced (the next bytes of the buffer, after the '$' hiredis consumed) is
 *   compared with the limits: a 1.5 GB announcement fails at once, not after 1.5 GB arrived;
 * - nothing pending may grow past maxBulkBytes (an endless status line, say).
 * After an error the decoder is unusable until reset() (the stream cannot be re-synchronised).
 * Not thread-safe; cheap to create.
 */
class RespDecoder
{
public:
    enum class Result { Reply, NeedMore, Error };

    explicit RespDecoder(const RedisReplyLimits &limits = {});
    ~RespDecoder();
    RespDecoder(const RespDecoder &) = delete;
    RespDecoder &operator=(const RespDecoder &) = delete;

    /** Applies from the next reply on. */
    void setLimits(const RedisReplyLimits &limits);
    const RedisReplyLimits &limits() const;

    /** Appends received bytes. False (with `*error`) on a decoder in error. */
    bool feed(const char *data, qsizetype size, QString *error);
    /**
     * The next complete reply (Reply), or NeedMore, or Error with `*error` a sentence such as
     * "the server announced a bulk string of 1.5 GiB, over LockScope's limit of 64 MiB: it is
     * not a Redis server, or a key is too big to read" or hiredis' protocol error text.
     */
    Result next(RedisReply *reply, QString *error);
    /** Drops everything buffered and starts afresh (a new connection). */
    void reset();

    struct Budget; ///< implementation detail (hiredis callbacks)

private:
    QString checkPartialReply() const;

    std::unique_ptr<Budget> m_budget;
    redisReader *m_reader = nullptr;
    QString m_error;
};

} // namespace lockscope
