#pragma once

#include "common/actornames.h"

#include <QHash>
#include <QString>

#include <functional>

class QSettings;

namespace lockscope
{

/**
 * Names an operator gives Redisson client ids ("billing-7f9c" for 8743c9c0-…), kept per
 * connection in QSettings (group "clientLabels/<connection>"), so they come back the next time
 * the same server is opened (an operator names a service once, not every session). A client id is a UUID per
 * RedissonClient: the same service keeps it until it restarts. Not thread-safe; GUI thread.
 */
class ClientLabels
{
public:
    /** `connectionKey`: which server the labels belong to (connectionKey() of its endpoint
     *  address and db); `settings`: not owned, nullptr = the application's QSettings(). */
    explicit ClientLabels(const QString &connectionKey, QSettings *settings = nullptr);

    /** "host:port/db" (or the socket path): what makes two connections the same for labels. */
    static QString connectionKey(const QString &address, int db);

    QString label(const QString &clientId) const { return m_labels.value(clientId); }
    const QHash<QString, QString> &all() const { return m_labels; }
    /** Sets (or, with an empty `label`, removes) the label of `clientId` and saves it at once. */
    void setLabel(const QString &clientId, const QString &label);
    /** The labels as the lock views' names (table, detail, event log, charts). */
    ActorNames actorNames() const { return ActorNames(m_labels); }

private:
    QString group() const;
    /** Runs `work` inside this connection's group of the settings (m_settings, or a QSettings of
     *  the application's own when none was given). */
    void inGroup(const std::function<void(QSettings &)> &work) const;

    QString m_key;
    QSettings *m_settings = nullptr;
    QHash<QString, QString> m_labels;
};

} // namespace lockscope
