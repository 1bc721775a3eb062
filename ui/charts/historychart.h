#pragma once

#include "common/actornames.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QVector>
#include <QWidget>

#include <functional>

class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QToolButton;
class QVBoxLayout;

namespace lockscope
{

class HistoryStore;

/**
 * Common ground of the history charts (TTL chart, timeline, contention): they draw a
 * HistoryStore they do not own, follow the dashboard's selected lock, and stay smooth however
 * much history there is:
 * - **Coalesced frames.** historyUpdated() only marks the chart dirty; a frame timer (200 ms by
 *   default) rebuilds at most once per frame and replots with QCustomPlot::rpQueuedReplot, so
 *   100 busy locks cost at most five rebuilds a second per chart, not one per batch. When a
 *   rebuild is expensive (long windows over many busy locks), rebuilds are spaced so that they
 *   take at most a fifth of the time; the live parts still move every frame.
 * - **Only while visible.** The frame timer runs only while the chart is shown (a hidden tab
 *   costs nothing); showing it rebuilds at once if data arrived meanwhile.
 * - **Time axis that follows now.** Time plots show the last window (1 min to 2 h) ending now
 *   (from the first data while the history is shorter) and slide with the clock; dragging or wheel-zooming one stops
 * following (to study a moment), and *Follow now* resumes. Keys are epoch seconds (QCPAxisTickerDateTime), local time.
 * - **Export.** Every plot has "Save chart as PNG/PDF…" in its context menu and in the header's
 *   save button (QCustomPlot::savePng / savePdf).
 */
class HistoryChart : public QWidget
{
    Q_OBJECT
public:
    explicit HistoryChart(QWidget *parent = nullptr);
    ~HistoryChart() override;

    /** The store to draw; not owned, must outlive the chart (nullptr: draw nothing). */
    void setHistory(const HistoryStore *history);
    const HistoryStore *history() const { return m_history; }
    /** The lock the chart is about (the dashboard's selection); empty = none. */
    void setLock(const QString &name);
    QString lock() const { return m_lock; }
    /** "Now" in epoch ms; the wall clock unless set (tests, and replay, set their own). */
    void setClock(std::function<qint64()> clock);
    qint64 nowMs() const;
    /** Workshop mode: holders and waiters labelled by name ("A"); the chart is rebuilt. */
    void setActorNames(const ActorNames &names);

    /** New data went into the store: the chart is rebuilt at its next frame (if visible). */
    void historyUpdated();
    /** Rebuilds and replots at once, visible or not (tests, export). */
    void refreshNow();
    /** Time between two frames in ms (rebuild when dirty, then live updates); default 200. */
    void setFrameInterval(int ms);
    /** How many rebuilds happened (coalescing is observable in tests). */
    int rebuildCount() const { return m_rebuilds; }

    /** Length of the time window shown while following now, ms. */
    qint64 windowMs() const { return m_windowMs; }
    void setWindowMs(qint64 ms);
    bool isFollowingNow() const { return m_following; }
    void setFollowingNow(bool follow);

    /** Saves `plot` as PDF when `path` ends in .pdf, as PNG otherwise (twice the on-screen
     *  resolution, for slides). False, with a sentence in `error`, when the file cannot be written. */
    static bool saveChart(QCustomPlot *plot, const QString &path, QString *error = nullptr);
    /** Epoch ms -> the charts' x coordinate (epoch seconds) and back. */
    static double keyOf(qint64 timeMs) { return double(timeMs) / 1000.0; }
    static qint64 msOf(double key) { return qint64(key * 1000.0 + (key >= 0 ? 0.5 : -0.5)); }

signals:
    /** The user picked a lock in the chart (double-click on a lane or a list row). */
    void lockActivated(const QString &name);

protected:
    /** The label of a holder or waiter field: its name (setActorNames), else
     *  HolderPalette::shortLabel(). */
    QString holderLabel(const QString &field) const;
    ActorNames m_names;
    /** Data -> plottables. Called at most once per frame, only when dirty, with the time axes
     *  already set to the range to draw. Must not replot (the frame does). */
    virtual void rebuild() = 0;
    /** Between rebuilds, every frame: live parts (countdown, "now" line). Default: nothing. */
    virtual void tick() {}
    /** The lock changed; default: mark dirty. */
    virtual void lockChanged();

    /** Marks the chart for a rebuild at the next frame. */
    void markDirty() { m_dirty = true; }
    /** Registers a plot: common style, save action; `timeAxis` plots get the date-time x axis,
     *  horizontal drag/zoom and follow-now. `title` names it in the save menu and file name. */
    void registerPlot(QCustomPlot *plot, const QString &title, bool timeAxis);
    /** The x range a time plot shows (follow-now window, or where the user left it), epoch s. */
    void timeRange(double *fromKey, double *toKey) const;
    /** Header row: title on the left, then the subclass's own widgets, then window, follow, save. */
    QLabel *titleLabel() const { return m_title; }
    void addHeaderWidget(QWidget *widget);
    /** Where the subclass puts its plots and views (below the header). */
    QVBoxLayout *contentLayout() const { return m_content; }

    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    /** A palette change (light/dark theme) recolours the plots (PlotTheme). */
    void changeEvent(QEvent *event) override;

private:
    struct Plot {
        QCustomPlot *plot = nullptr;
        QString title;
        bool timeAxis = false;
    };
    void frame();
    void applyTimeRange();
    void replotAll(bool now);
    void saveWithDialog(QCustomPlot *plot, const QString &title);
    void updateSaveButton();

    const HistoryStore *m_history = nullptr;
    QString m_lock;
    std::function<qint64()> m_clock;
    QTimer m_frame;
    bool m_dirty = true;
    bool m_settingRange = false;
    bool m_following = true;
    qint64 m_windowMs = 120000;
    int m_rebuilds = 0;
    QElapsedTimer m_sinceRebuild; ///< since the last rebuild started to be due again
    qint64 m_rebuildCostMs = 0;   ///< how long the last rebuild (data -> plottables) took
    QVector<Plot> m_plots;
    QLabel *m_title = nullptr;
    QHBoxLayout *m_header = nullptr;
    int m_headerInsert = 1;
    QVBoxLayout *m_content = nullptr;
    QComboBox *m_window = nullptr;
    QToolButton *m_follow = nullptr;
    QToolButton *m_save = nullptr;
};

} // namespace lockscope
