#include "interruptnotifier.h"

#include <QSocketNotifier>
#include <QTimer>

#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace lockscope
{

namespace
{

volatile std::sig_atomic_t g_interrupted = 0; ///< the signal number, 0 = none
volatile std::sig_atomic_t g_exitAtOnce = 0;  ///< a blocking prompt is waiting: nothing was sent
int g_signalPipe[2] = {-1, -1};

void onSignal(int sig)
{
    g_interrupted = sig;
    if (g_exitAtOnce) {
        const char nl = '\n';
        (void)!::write(STDERR_FILENO, &nl, 1);
        ::_exit(128 + sig);
    }
    const char c = char(sig);
    (void)!::write(g_signalPipe[1], &c, 1);
}

} // namespace

InterruptNotifier::InterruptNotifier(QObject *parent) : QObject(parent)
{
    if (g_signalPipe[0] < 0 && ::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    m_notifier = new QSocketNotifier(g_signalPipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        char buf[16];
        while (::read(g_signalPipe[0], buf, sizeof buf) > 0) {
        }
        emit interrupted(int(g_interrupted));
    });
    struct sigaction sa = {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    // A closed terminal or a lost ssh session: a hold is released as on Ctrl-C.
    ::sigaction(SIGHUP, &sa, nullptr);
}

void InterruptNotifier::watchOutput()
{
    auto *timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [this, timer] {
        if (!outputClosed())
            return;
        timer->stop();
        if (g_interrupted == 0)
            g_interrupted = SIGPIPE;
        emit interrupted(SIGPIPE);
    });
    timer->start(200);
}

bool InterruptNotifier::outputClosed()
{
    struct pollfd p = {};
    p.fd = STDOUT_FILENO;
    p.events = 0; // only the conditions always reported: POLLERR (pipe without reader), POLLHUP
    if (::poll(&p, 1, 0) != 1)
        return false;
    return (p.revents & (POLLERR | POLLHUP)) != 0;
}

const char *InterruptNotifier::describe(int sig)
{
    switch (sig) {
    case SIGINT:
        return "interrupted";
    case SIGHUP:
        return "hangup (the terminal closed)";
    case SIGPIPE:
        return "output closed";
    default:
        return "terminated";
    }
}

InterruptNotifier::~InterruptNotifier() = default;

int InterruptNotifier::received()
{
    return int(g_interrupted);
}

void InterruptNotifier::beginPrompt()
{
    g_exitAtOnce = 1; // nothing was sent yet: Ctrl-C during the prompt exits at once
    if (g_interrupted)
        ::_exit(128 + int(g_interrupted));
}

void InterruptNotifier::endPrompt()
{
    g_exitAtOnce = 0;
}

} // namespace lockscope
