#include "protocol/locknames.h"
#include "redis/redisbytes.h"

#include <QRegularExpression>

namespace lockscope
{

QString LockNames::prefixName(const QString &prefix, const QString &name)
{
    if (name.contains(QLatin1Char('{')))
        return prefix + QLatin1Char(':') + name;
    return prefix + QStringLiteral(":{") + name + QLatin1Char('}');
}

QString LockNames::suffixName(const QString &name, const QString &suffix)
{
    if (name.contains(QLatin1Char('{')))
        return name + QLatin1Char(':') + suffix;
    return QLatin1Char('{') + name + QStringLiteral("}:") + suffix;
}

QString LockNames::unlockLatchKey(const QString &name, const QString &requestId)
{
    return prefixName(QStringLiteral("redisson_unlock_latch"), name) + QLatin1Char(':') + requestId;
}

// Inverse of prefixName for "prefix:<rest>": "{name}" -> name (no '{' inside), otherwise rest itself.
static QString unprefix(const QString &rest)
{
    if (rest.size() >= 2 && rest.startsWith(QLatin1Char('{')) && rest.endsWith(QLatin1Char('}'))) {
        const QString inner = rest.mid(1, rest.size() - 2);
        if (!inner.contains(QLatin1Char('{')) && !inner.contains(QLatin1Char('}')))
            return inner;
    }
    return rest;
}

QString LockNames::lockNameFromCompanionKey(const QString &key)
{
    static const QString prefixes[] = {QStringLiteral("redisson_lock_queue:"), QStringLiteral("redisson_lock_timeout:"),
                                       QStringLiteral("redisson_lock_token:")};
    for (const auto &p : prefixes) {
        if (key.startsWith(p) && key.size() > p.size())
            return unprefix(key.mid(p.size()));
    }
    return {};
}

QString LockNames::lockNameFromUnlockChannel(const QString &channel, QString *waiterField)
{
    static const QString prefix = QStringLiteral("redisson_lock__channel:");
    if (waiterField)
        waiterField->clear();
    if (!channel.startsWith(prefix) || channel.size() <= prefix.size())
        return {};
    const QString rest = channel.mid(prefix.size());
    // Fair-lock per-waiter channels end in ":<clientId>:<threadId>".
    static const QRegularExpression waiterSuffix(
        QStringLiteral(":([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:[^:]+)$"));
    QString base = rest;
    const auto m = waiterSuffix.match(RedisBytes::matchable(rest));
    if (m.hasMatch()) {
        base = rest.left(m.capturedStart());
        if (waiterField)
            *waiterField = rest.mid(m.capturedStart(1), m.capturedLength(1));
    }
    return unprefix(base);
}

QString LockNames::lockNameFromReadWriteChannel(const QString &channel)
{
    static const QString prefix = QStringLiteral("redisson_rwlock:");
    if (!channel.startsWith(prefix) || channel.size() <= prefix.size())
        return {};
    return unprefix(channel.mid(prefix.size()));
}

QString LockNames::lockNameFromReadTimeoutKey(const QString &key)
{
    static const QRegularExpression re(QStringLiteral("^(.+):[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{"
                                                      "4}-[0-9a-fA-F]{12}:[^:]+:rwlock_timeout:[0-9]+$"));
    const auto m = re.match(RedisBytes::matchable(key));
    if (!m.hasMatch())
        return {};
    return unprefix(key.mid(m.capturedStart(1), m.capturedLength(1)));
}

QString LockNames::twinName(const QString &name)
{
    if (name.isEmpty())
        return {};
    if (!name.contains(QLatin1Char('{')))
        return QLatin1Char('{') + name + QLatin1Char('}');
    if (name.size() > 2 && name.startsWith(QLatin1Char('{')) && name.endsWith(QLatin1Char('}'))) {
        const QString inner = name.mid(1, name.size() - 2);
        if (!inner.contains(QLatin1Char('{')))
            return inner;
    }
    return {};
}

QStringList LockNames::withTwin(const QString &name)
{
    if (name.isEmpty())
        return {};
    const QString twin = twinName(name);
    if (twin.isEmpty())
        return {name};
    return name.contains(QLatin1Char('{')) ? QStringList{twin, name} : QStringList{name, twin};
}

bool LockNames::isTransientHelperKey(const QString &key)
{
    return key.startsWith(QLatin1String("redisson_unlock_latch:")) || key.contains(QLatin1String(":rwlock_timeout:"));
}

bool LockNames::parseHolderField(const QString &field, QString *clientId, QString *threadId, bool *write)
{
    static const QRegularExpression re(
        QStringLiteral("^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}):(.+)$"));
    // Matched on the matchable copy (a field may hold bytes that are not UTF-8),
    // captured from the field itself (same length, same positions).
    const auto m = re.match(RedisBytes::matchable(field));
    if (!m.hasMatch())
        return false;
    QString thread = field.mid(m.capturedStart(2), m.capturedLength(2));
    bool isWrite = false;
    if (thread.endsWith(QLatin1String(":write"))) {
        isWrite = true;
        thread.chop(6);
    }
    if (thread.isEmpty())
        return false;
    if (clientId)
        *clientId = m.captured(1);
    if (threadId)
        *threadId = thread;
    if (write)
        *write = isWrite;
    return true;
}

} // namespace lockscope
