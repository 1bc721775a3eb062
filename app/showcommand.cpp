#include "showcommand.h"

#include "protocol/displaytext.h"
#include "protocol/locknames.h"

#include <QJsonDocument>

namespace lockscope
{

void ShowCommand::run()
{
    m_session->openConnection();
    readOne(m_name, [this](const LockSnapshot &s) {
        if (!holderFilter().matches(s)) {
            fail(Refused,
                 QStringLiteral("%1 is not held by and not waited for by --holder %2 (holders: %3)")
                     .arg(DisplayText::escaped(s.name), DisplayText::escaped(holderFilter().holderText()),
                          s.holders.isEmpty() ? QStringLiteral("none") : DisplayText::escaped(s.holderSummary())));
            return;
        }
        if (m_json) {
            m_out << QJsonDocument(s.toJson()).toJson(QJsonDocument::Compact) << '\n';
        } else {
            m_out << "Lock:        " << DisplayText::escaped(s.name) << " ("
                  << (!s.kindCertain && s.kind == LockKind::Lock ? QStringLiteral("lock (fair or plain)")
                                                                 : lockKindLabel(s.kind))
                  << ")\n";
            if (!s.kindCertain)
                m_out << "Kind:        fair or plain: " << s.kindNote << '\n';
            if (!s.nameNote().isEmpty())
                m_out << "Name:        " << s.nameNote() << '\n';
            m_out << "TTL:         " << ttlText(s.pttlMs) << '\n';
            m_out << "Server time: " << s.serverTimeMs << " ms since epoch\n";
            if (s.holders.isEmpty())
                m_out << "Holders:     none (free)\n";
            for (const auto &v : s.multiLockValues)
                m_out << "Value:       field " << v.fieldId << "  client " << v.clientId << "  thread " << v.threadId
                      << "  hold count " << v.holdCount << "  expires " << v.expireEpochMs << " ms since epoch ("
                      << (v.expireEpochMs < 0 ? QStringLiteral("no expiry field")
                          : v.isLive(s.serverTimeMs)
                              ? QStringLiteral("in %1").arg(ttlText(v.expireEpochMs - s.serverTimeMs))
                              : QStringLiteral("expired"))
                      << ")\n";
            for (const auto &h : s.holders) {
                QStringList ttls;
                for (qint64 t : h.holdTtlsMs)
                    ttls << (t == -2 ? QStringLiteral("gone") : ttlText(t));
                m_out << "Holder:      client " << DisplayText::escaped(h.clientId) << "  thread "
                      << DisplayText::escaped(h.threadId) << "  hold count " << h.holdCount
                      << (h.mode.isEmpty() ? QString() : QStringLiteral("  mode ") + h.mode)
                      << (ttls.isEmpty() ? QString() : QStringLiteral("  hold TTLs ") + ttls.join(QLatin1Char(' ')))
                      << '\n';
            }
            m_out << "Waiting:     " << s.subscribers << " client(s) subscribed to "
                  << DisplayText::escaped(s.kind == LockKind::ReadWriteLock ? LockNames::readWriteChannel(s.name)
                                                                            : LockNames::unlockChannel(s.name))
                  << '\n';
            for (const auto &w : s.waiters)
                m_out << "Queued #" << w.position << ":   " << DisplayText::escaped(w.field) << "  deadline "
                      << (!w.deadlineRaw.isEmpty() ? QStringLiteral("'%1' (not an epoch-ms time)").arg(w.deadlineRaw)
                          : w.deadlineEpochMs < 0  ? QStringLiteral("?")
                          // A deadline in the past is no countdown: say how long ago it passed.
                          : w.deadlineEpochMs < s.serverTimeMs
                              ? QStringLiteral("passed %1 ago").arg(ttlText(s.serverTimeMs - w.deadlineEpochMs))
                              : QStringLiteral("in ") + ttlText(w.deadlineEpochMs - s.serverTimeMs))
                      << '\n';
            if (s.token >= 0)
                m_out << "Token:       " << s.token << '\n';
            for (const auto &p : s.problems)
                m_out << "Problem:     " << DisplayText::escaped(p) << '\n';
            for (const auto &a : s.anomalies)
                m_out << "Not Redisson-like: " << DisplayText::escaped(a) << '\n';
        }
        finish(Ok);
    });
}

} // namespace lockscope
