#include "common/screenfit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace lockscope
{

QSize ScreenFit::fitted(QSize preferred, QSize available)
{
    const QSize room(qMax(1, available.width() - kFrameMargin), qMax(1, available.height() - kFrameMargin));
    const QSize wanted(preferred.width() > 0 ? preferred.width() : room.width(),
                       preferred.height() > 0 ? preferred.height() : room.height());
    return wanted.boundedTo(room);
}

void ScreenFit::apply(QWidget *window, QSize preferred, QSize minimum)
{
    const QScreen *screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!screen) {
        window->resize(preferred);
        return;
    }
    const QRect free = screen->availableGeometry();
    const QSize size = fitted(preferred, free.size());
    window->resize(size);
    window->move(free.x() + (free.width() - size.width()) / 2, free.y() + (free.height() - size.height()) / 2);
    if (free.width() < minimum.width() || free.height() < minimum.height())
        window->setWindowState(window->windowState() | Qt::WindowMaximized);
}

} // namespace lockscope
