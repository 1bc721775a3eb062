#include "respdecoder.h"

#include <hiredis/hiredis.h>

namespace lockscope
{

/**
 * What the reply being decoded has used of the RedisReplyLimits. hiredis calls the object functions
 * below for every array header and every string as soon as it has parsed it, before anything is
 * allocated for it: returning nullptr there stops it (hiredis then reports "Out of memory",
 * replaced by `violation`). A bulk string is only handed over once it is complete, so its announced
 * length is checked separately, in RespDecoder::checkPartialReply(), while the reader waits for its
 * bytes.
 */
struct RespDecoder::Budget {
    RedisReplyLimits limits;
    redisReplyObjectFunctions functions{};
    qint64 bytes = 0;
    qint64 elements = 0;
    QString violation;

    void reset()
    {
        bytes = 0;
        elements = 0;
        violation.clear();
    }
};

namespace
{

/** "1.5 GiB", "64 MiB", "900 bytes". */
QString readableBytes(qint64 bytes)
{
    if (bytes < 1024)
        return QStringLiteral("%1 bytes").arg(bytes);
    const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = -1;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    return QStringLiteral("%1 %2").arg(QString::number(v, 'g', v < 10 ? 2 : 3), QLatin1String(units[u]));
}

QString overLimit(const QString &what, qint64 limit)
{
    return QStringLiteral("the server announced %1, over LockScope's limit of %2: it is not a Redis server, or a "
                          "key is too big to read")
        .arg(what, readableBytes(limit));
}

} // namespace

/**
 * hiredis' object functions, LockScope's own: each value hiredis has parsed becomes a RedisReply at
 * once, in its slot of the parent array (a root value: a new RedisReply that next() takes over),
 * after the budget checks. hiredis still parses every byte; only the objects it builds are ours.
 * Why: hiredis' own redisReply tree, copied into RedisReply and freed afterwards, cost three
 * allocations and two frees per string, much of `list`'s client CPU. RESP2 only (LockScope never
 * sends HELLO 3), the functions hiredis 0.14 has. privdata: Budget.
 */
struct RespReplyBuilder {
    static RespDecoder::Budget *budgetOf(const redisReadTask *task)
    {
        while (task->parent)
            task = task->parent;
        return static_cast<RespDecoder::Budget *>(task->privdata);
    }

    /** Where the value of `task` goes: its slot in the parent array (sized by createArray), or a
     *  new root, which hiredis hands back from redisReaderGetReply() or to freeObject(). */
    static RedisReply *place(const redisReadTask *task)
    {
        if (!task->parent)
            return new RedisReply;
        auto *parent = static_cast<RedisReply *>(task->parent->obj);
        return &parent->m_elements[task->idx];
    }

    static void *createString(const redisReadTask *task, char *str, size_t len)
    {
        auto *b = budgetOf(task);
        const auto n = static_cast<qint64>(len);
        if (n > b->limits.maxBulkBytes) {
            b->violation = overLimit(QStringLiteral("a string of %1").arg(readableBytes(n)), b->limits.maxBulkBytes);
            return nullptr;
        }
        if (b->bytes + n > b->limits.maxReplyBytes) {
            b->violation = overLimit(QStringLiteral("a reply of more than %1").arg(readableBytes(b->bytes + n)),
                                     b->limits.maxReplyBytes);
            return nullptr;
        }
        b->bytes += n;
        RedisReply *r = place(task);
        r->m_type = task->type == REDIS_REPLY_ERROR    ? RedisReply::Type::Error
                    : task->type == REDIS_REPLY_STATUS ? RedisReply::Type::Status
                                                       : RedisReply::Type::String;
        r->m_text = QByteArray(str, static_cast<qsizetype>(len));
        return r;
    }

    static void *createArray(const redisReadTask *task, int elements)
    {
        auto *b = budgetOf(task);
        if (elements > 0 && b->elements + elements > b->limits.maxElements) {
            b->violation = QStringLiteral("the server announced an array of %1 elements (%2 in this reply), over "
                                          "LockScope's limit of %3: it is not a Redis server, or a key is too big "
                                          "to read")
                               .arg(elements)
                               .arg(b->elements + elements)
                               .arg(b->limits.maxElements);
            return nullptr;
        }
        b->elements += qMax(0, elements);
        RedisReply *r = place(task);
        r->m_type = RedisReply::Type::Array;
        r->m_elements.resize(qMax(0, elements)); // the slots of its elements, filled as they come
        return r;
    }

    static void *createInteger(const redisReadTask *task, long long value)
    {
        RedisReply *r = place(task);
        r->m_type = RedisReply::Type::Integer;
        r->m_integer = value;
        return r;
    }

    static void *createNil(const redisReadTask *task)
    {
        return place(task); // a RedisReply is Nil until set
    }

    /** hiredis frees only roots this way (a reply it drops half-read): slots go with their root. */
    static void freeObject(void *root) { delete static_cast<RedisReply *>(root); }
};

RespDecoder::RespDecoder(const RedisReplyLimits &limits) : m_budget(std::make_unique<Budget>())
{
    m_budget->limits = limits;
    reset();
}

RespDecoder::~RespDecoder()
{
    if (m_reader)
        redisReaderFree(m_reader);
}

void RespDecoder::setLimits(const RedisReplyLimits &limits)
{
    m_budget->limits = limits;
}

const RedisReplyLimits &RespDecoder::limits() const
{
    return m_budget->limits;
}

void RespDecoder::reset()
{
    if (m_reader)
        redisReaderFree(m_reader);
    m_budget->functions.createString = &RespReplyBuilder::createString;
    m_budget->functions.createArray = &RespReplyBuilder::createArray;
    m_budget->functions.createInteger = &RespReplyBuilder::createInteger;
    m_budget->functions.createNil = &RespReplyBuilder::createNil;
    m_budget->functions.freeObject = &RespReplyBuilder::freeObject;
    m_reader = redisReaderCreateWithFunctions(&m_budget->functions);
    m_error.clear();
    m_reader->privdata = m_budget.get();
    m_budget->reset();
}

bool RespDecoder::feed(const char *data, qsizetype size, QString *error)
{
    if (!m_error.isEmpty()) {
        if (error)
            *error = m_error;
        return false;
    }
    if (size <= 0)
        return true;
    if (redisReaderFeed(m_reader, data, static_cast<size_t>(size)) != REDIS_OK) {
        m_error = QString::fromUtf8(m_reader->errstr);
        if (error)
            *error = m_error;
        return false;
    }
    return true;
}

RespDecoder::Result RespDecoder::next(RedisReply *reply, QString *error)
{
    auto failed = [&](const QString &why) {
        m_error = why;
        if (error)
            *error = why;
        return Result::Error;
    };
    if (!m_error.isEmpty())
        return failed(m_error);
    void *raw = nullptr;
    if (redisReaderGetReply(m_reader, &raw) != REDIS_OK)
        return failed(m_budget->violation.isEmpty() ? QString::fromUtf8(m_reader->errstr) : m_budget->violation);
    if (!raw) {
        const QString violation = checkPartialReply();
        if (!violation.isEmpty())
            return failed(violation);
        return Result::NeedMore;
    }
    m_budget->reset();
    std::unique_ptr<RedisReply> root(static_cast<RedisReply *>(raw)); // RespReplyBuilder's
    if (reply)
        *reply = std::move(*root);
    return Result::Reply;
}

QString RespDecoder::checkPartialReply() const
{
    // The reader waits for more bytes. hiredis has consumed the type byte of the element it is
    // on; when that is a bulk string, its length line is next in the buffer: compare the length
    // it announces with the limits now, instead of buffering up to that many bytes first.
    if (m_reader->ridx < 0 || m_reader->len < m_reader->pos)
        return {};
    const RedisReplyLimits &limits = m_budget->limits;
    const char *pending = m_reader->buf + m_reader->pos;
    const size_t available = m_reader->len - m_reader->pos;
    const redisReadTask &task = m_reader->rstack[m_reader->ridx];
    if (task.type == REDIS_REPLY_STRING) {
        const QByteArray head = QByteArray::fromRawData(pending, static_cast<qsizetype>(qMin<size_t>(available, 32)));
        const qsizetype eol = head.indexOf("\r\n");
        bool ok = false;
        const qint64 announced = eol > 0 ? head.left(eol).toLongLong(&ok) : 0;
        if (ok && announced > limits.maxBulkBytes)
            return overLimit(QStringLiteral("a bulk string of %1").arg(readableBytes(announced)), limits.maxBulkBytes);
        if (ok && announced > 0 && m_budget->bytes + announced > limits.maxReplyBytes)
            return overLimit(QStringLiteral("a reply of more than %1").arg(readableBytes(m_budget->bytes + announced)),
                             limits.maxReplyBytes);
    }
    // Whatever is pending (a status line without its end, a length line of digits), never buffer
    // more of one element than the limit allows.
    if (static_cast<qint64>(available) > limits.maxBulkBytes + 32)
        return overLimit(QStringLiteral("an unterminated line of more than %1").arg(readableBytes(limits.maxBulkBytes)),
                         limits.maxBulkBytes);
    return {};
}

} // namespace lockscope
