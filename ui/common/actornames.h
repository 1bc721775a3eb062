#pragma once

#include <QHash>
#include <QString>

namespace lockscope
{

/**
 * Names for Redisson client ids, as workshop mode shows its simulated clients ("A", "B"): the
 * lock views (table, detail, event log, timeline, TTL chart) show the name where they would show
 * a client id or a holder / waiter field "<clientId>:<threadId>", and keep the client id for
 * their tooltips. Empty (the dashboard's default): every view shows the ids as they are.
 * A plain value type.
 */
class ActorNames
{
public:
    ActorNames() = default;
    /** `nameOfClientId`: Redisson client id (UUID) -> the name to show. */
    explicit ActorNames(const QHash<QString, QString> &nameOfClientId) : m_names(nameOfClientId) {}

    bool isEmpty() const { return m_names.isEmpty(); }
    /** The name of a client id, empty when it has none. */
    QString nameOfClient(const QString &clientId) const { return m_names.value(clientId); }
    /** The name for a holder or waiter field "<clientId>:<threadId>" ("A"), or for a write
     *  holder's "<clientId>:<threadId>:write" ("A (write)"); empty for a client with no name. */
    QString nameOfField(const QString &field) const;
    /** nameOfField(`field`), or `fallback` when the field's client has no name. */
    QString label(const QString &field, const QString &fallback) const;
    /** `text` with each named client's fields "<clientId>:<threadId>" and then its bare client
     *  id replaced by its name (event details, holder lists "a:1, b:2"). */
    QString replaceIn(QString text) const;

private:
    QHash<QString, QString> m_names;
};

} // namespace lockscope
