#include "charts/historychart.h"

#include "common/holderpalette.h"
#include "common/plottheme.h"

#include "recording/historystore.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QToolButton>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>

namespace lockscope
{

namespace
{
/** Time labels that never overlap: about one per 140 px, seconds only when they matter. */
void fitTimeTicks(QCustomPlot *plot)
{
    auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerDateTime>();
    if (!ticker)
        return;
    ticker->setDateTimeFormat(plot->xAxis->range().size() >= 600 ? QStringLiteral("hh:mm")
                                                                 : QStringLiteral("hh:mm:ss"));
    ticker->setTickCount(std::clamp(plot->width() / 140, 2, 8));
}
} // namespace

HistoryChart::HistoryChart(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(2);
    m_header = new QHBoxLayout;
    m_header->setSpacing(6);
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::RichText);
    m_title->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_title->setMinimumWidth(120);
    m_header->addWidget(m_title, 1);

    m_window = new QComboBox(this);
    m_window->setToolTip(tr("Time shown while following now"));
    const QList<QPair<QString, qint64>> windows{{tr("1 min"), 60000},   {tr("2 min"), 120000},  {tr("5 min"), 300000},
                                                {tr("10 min"), 600000}, {tr("15 min"), 900000}, {tr("1 h"), 3600000},
                                                {tr("2 h"), 7200000}};
    for (const auto &w : windows)
        m_window->addItem(w.first, w.second);
    m_window->setCurrentIndex(1);
    connect(m_window, &QComboBox::activated, this, [this](int index) {
        setWindowMs(m_window->itemData(index).toLongLong());
        setFollowingNow(true);
    });
    m_header->addWidget(m_window);

    m_follow = new QToolButton(this);
    m_follow->setText(tr("Follow now"));
    m_follow->setCheckable(true);
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Keep the time axis sliding with the clock. Dragging or zooming a chart (mouse wheel) "
                            "stops following so you can study a moment; click here to come back to now"));
    connect(m_follow, &QToolButton::toggled, this, [this](bool on) { setFollowingNow(on); });
    m_header->addWidget(m_follow);

    m_save = new QToolButton(this);
    m_save->setText(tr("Save…"));
    m_save->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    m_save->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_save->setToolTip(tr("Save chart as PNG/PDF…"));
    m_save->setPopupMode(QToolButton::InstantPopup);
    connect(m_save, &QToolButton::clicked, this, [this] {
        if (m_plots.size() == 1)
            saveWithDialog(m_plots.first().plot, m_plots.first().title);
    });
    m_header->addWidget(m_save);
    layout->addLayout(m_header);

    m_content = new QVBoxLayout;
    m_content->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(m_content, 1);

    m_frame.setInterval(200);
    connect(&m_frame, &QTimer::timeout, this, &HistoryChart::frame);
}

HistoryChart::~HistoryChart() = default;

void HistoryChart::setHistory(const HistoryStore *history)
{
    m_history = history;
    markDirty();
}

void HistoryChart::setLock(const QString &name)
{
    if (name == m_lock)
        return;
    m_lock = name;
    lockChanged();
    if (isVisible())
        refreshNow(); // answer a selection at once, not one frame (or a throttled rebuild) later
}

void HistoryChart::lockChanged()
{
    markDirty();
}

void HistoryChart::setClock(std::function<qint64()> clock)
{
    m_clock = std::move(clock);
    markDirty();
}

qint64 HistoryChart::nowMs() const
{
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

void HistoryChart::historyUpdated()
{
    m_dirty = true;
}

void HistoryChart::refreshNow()
{
    applyTimeRange();
    m_dirty = false;
    rebuild();
    ++m_rebuilds;
    tick();
    replotAll(true);
}

void HistoryChart::setFrameInterval(int ms)
{
    m_frame.setInterval(qMax(16, ms));
}

void HistoryChart::setWindowMs(qint64 ms)
{
    m_windowMs = qMax<qint64>(1000, ms);
    for (int i = 0; i < m_window->count(); ++i)
        if (m_window->itemData(i).toLongLong() == m_windowMs)
            m_window->setCurrentIndex(i);
    markDirty();
}

void HistoryChart::setFollowingNow(bool follow)
{
    if (m_following == follow)
        return;
    m_following = follow;
    {
        const QSignalBlocker block(m_follow);
        m_follow->setChecked(follow);
    }
    markDirty();
    if (follow && isVisible())
        refreshNow();
}

void HistoryChart::addHeaderWidget(QWidget *widget)
{
    m_header->insertWidget(m_headerInsert++, widget);
}

void HistoryChart::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        for (const Plot &p : m_plots)
            PlotTheme::apply(p.plot, palette());
}

void HistoryChart::registerPlot(QCustomPlot *plot, const QString &title, bool timeAxis)
{
    m_plots.append(Plot{plot, title, timeAxis});
    PlotTheme::apply(plot, palette()); // follows the window's palette (so the charts do not stay white in a dark theme)
    plot->setNoAntialiasingOnDrag(true);
    plot->setPlottingHint(QCP::phFastPolylines, true); // lines as polylines, not segment by segment
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(plot, &QWidget::customContextMenuRequested, this, [this, plot, title, timeAxis](const QPoint &pos) {
        QMenu menu(this);
        menu.addAction(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save chart as PNG/PDF…"), this,
                       [this, plot, title] { saveWithDialog(plot, title); });
        if (timeAxis) {
            QAction *follow = menu.addAction(tr("Follow now"), this, [this] { setFollowingNow(true); });
            follow->setEnabled(!m_following);
        }
        menu.exec(plot->mapToGlobal(pos));
    });
    if (timeAxis) {
        QSharedPointer<QCPAxisTickerDateTime> ticker(new QCPAxisTickerDateTime);
        ticker->setDateTimeFormat(QStringLiteral("hh:mm:ss"));
        ticker->setTickCount(6);
        plot->xAxis->setTicker(ticker);
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        plot->axisRect()->setRangeDrag(Qt::Horizontal);
        plot->axisRect()->setRangeZoom(Qt::Horizontal);
        connect(plot->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, plot](const QCPRange &) {
            if (m_settingRange)
                return;
            fitTimeTicks(plot);
            setFollowingNow(false); // the user dragged or zoomed: stay where they are
            markDirty();            // and draw the new range at full detail next frame
        });
    }
    updateSaveButton();
}

void HistoryChart::updateSaveButton()
{
    delete m_save->menu();
    m_save->setMenu(nullptr);
    if (m_plots.size() == 1) {
        m_save->setPopupMode(QToolButton::DelayedPopup); // a click saves the only plot
        return;
    }
    auto *menu = new QMenu(m_save);
    for (const Plot &p : std::as_const(m_plots))
        menu->addAction(tr("%1 as PNG/PDF…").arg(p.title), this, [this, p] { saveWithDialog(p.plot, p.title); });
    m_save->setMenu(menu);
    m_save->setPopupMode(QToolButton::InstantPopup);
}

void HistoryChart::timeRange(double *fromKey, double *toKey) const
{
    for (const Plot &p : m_plots) {
        if (p.timeAxis) {
            *fromKey = p.plot->xAxis->range().lower;
            *toKey = p.plot->xAxis->range().upper;
            return;
        }
    }
    const qint64 now = nowMs();
    *fromKey = keyOf(now - m_windowMs);
    *toKey = keyOf(now);
}

void HistoryChart::applyTimeRange()
{
    if (!m_following)
        return;
    const qint64 now = nowMs();
    // The last window up to now; while the history is shorter than the window, from its first
    // data (at least 30 s), so a young session fills the chart. A small margin after now, so the
    // live end of a line is not glued to the border.
    qint64 from = now - m_windowMs;
    const qint64 first = m_history ? m_history->firstTimeMs() : 0;
    if (first > from && first <= now)
        from = std::min(now - 30000, first - std::max<qint64>(1000, (now - first) / 30));
    const QCPRange range(keyOf(from), keyOf(now + (now - from) / 40));
    m_settingRange = true;
    for (const Plot &p : std::as_const(m_plots)) {
        if (!p.timeAxis)
            continue;
        p.plot->xAxis->setRange(range);
        fitTimeTicks(p.plot);
    }
    m_settingRange = false;
}

void HistoryChart::replotAll(bool now)
{
    for (const Plot &p : std::as_const(m_plots))
        p.plot->replot(now ? QCustomPlot::rpRefreshHint : QCustomPlot::rpQueuedReplot);
}

void HistoryChart::frame()
{
    applyTimeRange();
    // Rebuilds take at most a fifth of the time: a chart that costs 100 ms to rebuild (an hour of
    // 100 busy locks) waits 400 ms before the next one, while live parts keep moving every frame.
    if (m_dirty && (!m_sinceRebuild.isValid() || m_sinceRebuild.elapsed() >= 4 * m_rebuildCostMs)) {
        m_dirty = false;
        QElapsedTimer cost;
        cost.start();
        rebuild();
        ++m_rebuilds;
        m_rebuildCostMs = cost.elapsed();
        m_sinceRebuild.start();
    }
    tick();
    replotAll(false);
}

void HistoryChart::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    frame();
    m_frame.start();
}

void HistoryChart::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_frame.stop();
}

bool HistoryChart::saveChart(QCustomPlot *plot, const QString &path, QString *error)
{
    const bool pdf = path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive);
    const bool ok = pdf ? plot->savePdf(path) : plot->savePng(path, 0, 0, 2.0);
    if (!ok && error)
        *error = QObject::tr("Could not write %1: check that the folder exists and that you may write there.")
                     .arg(QDir::toNativeSeparators(path));
    return ok;
}

void HistoryChart::saveWithDialog(QCustomPlot *plot, const QString &title)
{
    QString base = title + (m_lock.isEmpty() ? QString() : QLatin1Char('-') + m_lock) + QLatin1Char('-') +
                   QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss"));
    base = base.toLower().replace(QRegularExpression(QStringLiteral("[^a-z0-9_.-]+")), QStringLiteral("-"));
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    QString filter;
    QString path =
        QFileDialog::getSaveFileName(this, tr("Save chart"), QDir(dir).filePath(base + QStringLiteral(".png")),
                                     tr("PNG image (*.png);;PDF document (*.pdf)"), &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter.contains(QLatin1String("pdf")) ? QStringLiteral(".pdf") : QStringLiteral(".png");
    QString error;
    if (!saveChart(plot, path, &error))
        QMessageBox::warning(this, tr("Save chart"), error);
}

void HistoryChart::setActorNames(const ActorNames &names)
{
    m_names = names;
    historyUpdated();
}

QString HistoryChart::holderLabel(const QString &field) const
{
    return m_names.label(field, HolderPalette::shortLabel(field));
}

} // namespace lockscope
