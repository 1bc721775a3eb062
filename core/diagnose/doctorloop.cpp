#include "diagnose/doctorloop.h"

#include <QTimer>

namespace lockscope
{

DoctorLoop::DoctorLoop(Locks locks, QObject *parent)
    : QObject(parent), m_locks(std::move(locks)), m_clock([] { return LockSnapshot::steadyNowMs(); })
{
    m_doctor.leases().setLocks(m_locks);
    m_timer = new QTimer(this);
    m_timer->setInterval(kIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &DoctorLoop::tick);
}

DoctorLoop::~DoctorLoop() = default;

void DoctorLoop::observe(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    // Removals first, as LockTableModel::applyBatch and ReplayPlayer read a batch: a lock both
    // removed and changed in one batch was deleted and written again (its history restarts).
    for (const auto &n : removed)
        m_doctor.forget(n);
    for (const auto &s : changed)
        m_doctor.observe(s);
}

QVector<LockEvent> DoctorLoop::observeEvents(const QVector<LockEvent> &events)
{
    return m_doctor.leases().process(events, m_clock());
}

void DoctorLoop::absorb(const DoctorProbe::Result &result)
{
    m_doctor.observeOrphanWaiters(result.orphanSubscribers, m_clock());
    m_doctor.leases().observeSubscribers(result.heldSubscribers, m_clock());
    m_doctor.observeLatches(result.latches, result.latchCount);
}

QVector<LockFinding> DoctorLoop::diagnose() const
{
    return m_doctor.diagnose(m_locks(), m_clock());
}

void DoctorLoop::reset()
{
    LockDoctor fresh;
    fresh.setThresholds(m_doctor.thresholds());
    fresh.setCommandConnection(m_doctor.commandConnection());
    fresh.leases().setLocks(m_locks);
    fresh.leases().setSilentHolderWaitMs(m_doctor.leases().silentHolderWaitMs());
    fresh.leases().setReadLagMs(m_doctor.leases().readLagMs());
    m_doctor = fresh;
}

void DoctorLoop::start()
{
    m_ticks = 0;
    m_timer->start();
}

void DoctorLoop::stop()
{
    m_timer->stop();
}

bool DoctorLoop::isActive() const
{
    return m_timer->isActive();
}

void DoctorLoop::tick()
{
    if (m_ticks++ % kProbeEveryTicks == 0 && m_probe)
        m_probe([this](const DoctorProbe::Result &r) { absorb(r); });
    emit findingsUpdated(diagnose());
}

void DoctorLoop::diagnoseAfter(qint64 observeMs, Report report)
{
    auto finalProbe = [this, report] {
        if (!m_probe) {
            report(diagnose(), DoctorProbe::Result());
            return;
        }
        m_probe([this, report](const DoctorProbe::Result &r) {
            absorb(r);
            report(diagnose(), r);
        });
    };
    if (observeMs <= 0) {
        finalProbe();
        return;
    }
    // A first probe starts the clock of "waiting without a holder since".
    if (m_probe)
        m_probe([this](const DoctorProbe::Result &r) { absorb(r); });
    QTimer::singleShot(int(observeMs), this, finalProbe);
}

} // namespace lockscope
