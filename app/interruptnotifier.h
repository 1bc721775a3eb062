#pragma once

#include <QObject>

class QSocketNotifier;

namespace lockscope
{

/**
 * SIGINT / SIGTERM for every lockscope-cli command, one mechanism per process: the handler notes
 * the signal and writes its number to a self-pipe; a QSocketNotifier on the other end emits
 * interrupted() in the event loop. While a blocking y/N prompt waits (nothing sent yet, see
 * beginPrompt()), the handler exits at once with 128 + the signal number (130 / 143).
 */
class InterruptNotifier : public QObject
{
    Q_OBJECT
public:
    /** Installs the handlers (once per process; a second notifier shares the pipe). */
    explicit InterruptNotifier(QObject *parent = nullptr);
    ~InterruptNotifier() override;

    /** The signal received (SIGINT or SIGTERM), 0 = none yet. Safe to poll from anywhere. */
    static int received();
    /** A blocking prompt starts: from now a signal exits the process at once (nothing was sent).
     *  Exits at once when a signal came already. */
    static void beginPrompt();
    /** The prompt was answered: signals go through interrupted() again. */
    static void endPrompt();

signals:
    /** A signal arrived (its number); emitted in the event loop. */
    void interrupted(int sig);

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace lockscope
