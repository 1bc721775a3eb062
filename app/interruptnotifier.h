#pragma once

#include <QObject>

class QSocketNotifier;

namespace lockscope
{

/**
 * SIGINT / SIGTERM / SIGHUP for every lockscope-cli command, one mechanism per process: the
 * handler notes the signal and writes its number to a self-pipe; a QSocketNotifier on the other
 * end emits interrupted() in the event loop. While a blocking y/N prompt waits (nothing sent yet,
 * see beginPrompt()), the handler exits at once with 128 + the signal number (130 / 143 / 129).
 *
 * A closed standard output (`watch | head -1` once head is done) counts as SIGPIPE (exit 141):
 * Qt's network code ignores that signal, so watchOutput() looks for it every 200 ms (poll():
 * a pipe without reader, a socket closed by its peer) and emits interrupted(SIGPIPE).
 */
class InterruptNotifier : public QObject
{
    Q_OBJECT
public:
    /** Installs the handlers (once per process; a second notifier shares the pipe). */
    explicit InterruptNotifier(QObject *parent = nullptr);
    ~InterruptNotifier() override;

    /** The signal received (SIGINT, SIGTERM, SIGHUP, or SIGPIPE for a closed standard output),
     *  0 = none yet. Safe to poll from anywhere. */
    static int received();
    /** A blocking prompt starts: from now a signal exits the process at once (nothing was sent).
     *  Exits at once when a signal came already. */
    static void beginPrompt();
    /** The prompt was answered: signals go through interrupted() again. */
    static void endPrompt();
    /** From now on, a closed standard output is noticed within 200 ms (see the class comment). */
    void watchOutput();
    /** True when standard output is a pipe without reader or a socket its peer closed. */
    static bool outputClosed();
    /** A word for `sig` in "lockscope-cli: <word>": interrupted, terminated, hangup, output closed. */
    static const char *describe(int sig);

signals:
    /** A signal arrived (its number); emitted in the event loop. */
    void interrupted(int sig);

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace lockscope
