#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * One master's `INFO replication`, as read: its replication offset and each connected replica's
 * acknowledged offset. A replica acknowledges (REPLCONF ACK) about once a second, so a write the
 * master made at offset X is on a replica once that replica's `offset` reaches X. Redis reports
 * a replica as `slaveN:ip=…,port=…,state=online,offset=…,lag=…` (`lag`: seconds since its last
 * acknowledgement).
 */
struct ReplicationInfo {
    struct Replica {
        QString address;    ///< "ip:port" as the master reports it
        QString state;      ///< online, wait_bgsave, send_bulk, ...
        qint64 offset = -1; ///< acknowledged replication offset (bytes)
        qint64 lagS = -1;   ///< seconds since its last acknowledgement; -1 when not reported
        QJsonObject toJson(qint64 masterOffset) const;
    };

    QString role;             ///< "master" or "slave"; empty when the reply had none
    qint64 masterOffset = -1; ///< master_repl_offset (bytes)
    QVector<Replica> replicas;
    qint64 readAtSteadyMs = 0; ///< when it was read (LockSnapshot::steadyNowMs)
    bool valid = false;        ///< the reply had a role and an offset

    /** Parses the text of `INFO replication` (CRLF lines of `key:value`, `#` comments). Lines it
     *  does not know are skipped; a reply without role and offset gives valid = false. */
    static ReplicationInfo parse(const QByteArray &text, qint64 readAtSteadyMs);
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::ReplicationInfo)
