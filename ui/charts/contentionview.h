#pragma once

#include "charts/historychart.h"

#include <QStringList>
#include <QVector>

class QCPBars;
class QCPGraph;
class QCPTextElement;
class QCustomPlot;
class QLineEdit;
class QTableWidget;

namespace lockscope
{

/**
 * Contention at a glance, over the time shown on its left chart (follow now, or where the user
 * dragged/zoomed it, so an incident can be framed and studied):
 * - **Held locks and waiters over time**: how many locks were held, and how many clients waited
 *   (fair-queue lengths plus unlock-channel subscribers), as two step lines.
 * - **Hold-time and wait-time histograms** of the completed holds / fair-queue waits of the
 *   selected lock, or of every lock matching the name pattern typed in the header.
 * - **Top-N lists**: "longest held" (each lock's longest hold, a hold still going counts up to
 *   now) and "most contended" (average and peak number of waiting clients). Double-click a row
 *   to select its lock.
 * With a pattern, the lines and the lists cover the matching locks too; without one, all locks.
 */
class ContentionView : public HistoryChart
{
    Q_OBJECT
public:
    explicit ContentionView(QWidget *parent = nullptr);

    QCustomPlot *timePlot() const { return m_timePlot; }
    QCustomPlot *holdPlot() const { return m_holdPlot; }
    QCustomPlot *waitPlot() const { return m_waitPlot; }
    QCPGraph *heldGraph() const { return m_held; }
    QCPGraph *waitersGraph() const { return m_waiters; }

    /** A Redis glob ("payments:*"), or a word matched anywhere in the name; empty = the
     *  histograms show the selected lock, the lines and lists every lock. */
    void setPattern(const QString &pattern);
    QString pattern() const;

    struct Histogram {
        qint64 binMs = 0; ///< width of one bin; bin i covers [i*binMs, (i+1)*binMs)
        QVector<int> counts;
        int total = 0; ///< intervals counted (sum of counts)
    };
    Histogram holdHistogram() const { return m_holdHist; }
    Histogram waitHistogram() const { return m_waitHist; }
    /** Lock names of the lists, first = longest held / most contended. */
    QStringList longestHeld() const;
    QStringList mostContended() const;

    /** Bins `durationsMs` with a round bin width (10 ms … 1 h) giving at most `maxBins` bins. */
    static Histogram bin(const QVector<qint64> &durationsMs, int maxBins = 24);

protected:
    void rebuild() override;
    void tick() override;
    void lockChanged() override;

private:
    void drawHistogram(QCustomPlot *plot, QCPBars *bars, QCPTextElement *title, const Histogram &hist,
                       const QVector<qint64> &durations, const QString &what, const QString &scope);

    QLineEdit *m_pattern = nullptr;
    QCustomPlot *m_timePlot = nullptr;
    QCustomPlot *m_holdPlot = nullptr;
    QCustomPlot *m_waitPlot = nullptr;
    QCPGraph *m_held = nullptr;
    QCPGraph *m_waiters = nullptr;
    QCPBars *m_holdBars = nullptr;
    QCPBars *m_waitBars = nullptr;
    QCPTextElement *m_holdTitle = nullptr;
    QCPTextElement *m_waitTitle = nullptr;
    QTableWidget *m_longest = nullptr;
    QTableWidget *m_contended = nullptr;
    Histogram m_holdHist;
    Histogram m_waitHist;
    static constexpr int kTopN = 10; ///< rows of the longest-held and most-contended lists
    qint64 m_lastRebuildMs = 0;
};

} // namespace lockscope
