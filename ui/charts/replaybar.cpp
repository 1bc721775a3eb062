#include "charts/replaybar.h"

#include "recording/replayplayer.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSlider>
#include <QStyle>

namespace lockscope
{

ReplayBar::ReplayBar(ReplayPlayer *player, QWidget *parent) : QToolBar(tr("Replay"), parent)
{
    setObjectName(QStringLiteral("replayToolBar"));
    auto *play = addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Play"));
    play->setShortcut(QKeySequence(Qt::Key_Space));
    play->setToolTip(tr("Play / pause (Space)"));
    connect(play, &QAction::triggered, player, [player] { player->isPlaying() ? player->pause() : player->play(); });
    connect(player, &ReplayPlayer::playingChanged, play, [this, play](bool playing) {
        play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
        play->setText(playing ? tr("Pause") : tr("Play"));
    });
    auto *speed = new QComboBox(this);
    for (double s : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0})
        speed->addItem(QStringLiteral("%1×").arg(s), s);
    speed->setCurrentIndex(qMax(0, speed->findData(player->speed())));
    speed->setToolTip(tr("Replay speed"));
    connect(speed, &QComboBox::currentIndexChanged, player,
            [player, speed] { player->setSpeed(speed->currentData().toDouble()); });
    addWidget(speed);
    const Recording &rec = player->recording();
    auto *scrub = new QSlider(Qt::Horizontal, this);
    scrub->setObjectName(QStringLiteral("replayScrub"));
    scrub->setMinimumWidth(400);
    scrub->setRange(0, int((rec.endMs() - rec.startMs()) / 100)); // 100 ms steps
    scrub->setToolTip(tr("Drag to jump to any instant of the recording"));
    addWidget(scrub);
    auto *clock = new QLabel(this);
    addWidget(clock);
    const qint64 start = rec.startMs();
    const qint64 end = rec.endMs();
    auto fmt = [](qint64 ms) {
        return QStringLiteral("%1:%2").arg(ms / 60000).arg((ms / 1000) % 60, 2, 10, QLatin1Char('0'));
    };
    connect(player, &ReplayPlayer::positionChanged, this, [scrub, clock, start, end, fmt](qint64 pos) {
        if (!scrub->isSliderDown()) {
            const QSignalBlocker block(scrub);
            scrub->setValue(int((pos - start) / 100));
        }
        clock->setText(QStringLiteral("  %1 / %2  ").arg(fmt(pos - start), fmt(end - start)));
    });
    connect(scrub, &QSlider::valueChanged, player, [player, start](int v) { player->seek(start + qint64(v) * 100); });
}

} // namespace lockscope
