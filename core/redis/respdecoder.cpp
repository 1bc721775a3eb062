#include "respdecoder.h"

#include <hiredis/hiredis.h>

namespace lockscope
{

/**
 * What the reply being decoded has used of the RedisReplyLimits. hiredis calls the object functions
 * below for every array header and every string as soon as it has parsed it, before it allocates
 * the array: returning nullptr there stops it (hiredis then reports "Out of memory", replaced by
 * `violation`). A bulk string is only handed over once it is complete, so its announced length is
 * checked separately, in RespDecoder::checkPartialReply(), while the reader waits for its bytes.
 */
struct RespDecoder::Budget {
    RedisReplyLimits limits;
    redisReplyObjectFunctions functions{};
    redisReplyObjectFunctions *defaults = nullptr;
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

/** Object functions wrapping hiredis' own ones with the budget checks (privdata: Budget). */
struct BudgetFunctions {
    static RespDecoder::Budget *budgetOf(const redisReadTask *task)
    {
        while (task->parent)
            task = task->parent;
        return static_cast<RespDecoder::Budget *>(task->privdata);
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
        return b->defaults->createString(task, str, len);
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
        return b->defaults->createArray(task, elements);
    }

    static void *createInteger(const redisReadTask *task, long long value)
    {
        return budgetOf(task)->defaults->createInteger(task, value);
    }

    static void *createNil(const redisReadTask *task) { return budgetOf(task)->defaults->createNil(task); }
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
    m_reader = redisReaderCreate();
    m_error.clear();
    // hiredis' own object functions, each wrapped with a check against the limits.
    m_budget->defaults = m_reader->fn;
    m_budget->functions = *m_reader->fn;
    m_budget->functions.createString = &BudgetFunctions::createString;
    m_budget->functions.createArray = &BudgetFunctions::createArray;
    m_budget->functions.createInteger = &BudgetFunctions::createInteger;
    m_budget->functions.createNil = &BudgetFunctions::createNil;
    m_reader->fn = &m_budget->functions;
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
    if (reply)
        *reply = RedisReply::fromHiredis(static_cast<redisReply *>(raw));
    freeReplyObject(raw);
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
