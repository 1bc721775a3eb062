#pragma once

#include <QByteArray>
#include <QPair>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * The one place that writes the Prometheus exposition formats: the text format 0.0.4
 * (`text/plain; version=0.0.4`) and OpenMetrics 1.0.0 (`application/openmetrics-text;
 * version=1.0.0`, chosen by negotiate() from a scrape's `Accept` header).
 *
 * Use: family() once per metric family, then its samples (sample() or histogram()), then
 * finish(). Names are given as the family name of the text format: counters end in `_total`
 * (OpenMetrics' metadata then drops the suffix, its sample keeps it), units are base units and
 * the last word of the name (`_seconds`). Label values are escaped here (backslash, double
 * quote, line feed), so any lock name can be a label value; HELP texts likewise.
 * Values: integers are written as integers, other finite numbers in the
 * digits (the shortest text that reads back the same), and +Inf, -Inf and NaN as both formats spell them.
 */
class PrometheusWriter
{
public:
    enum class Format { Text004, OpenMetrics };
    enum class Type { Gauge, Counter, Histogram };
    using Labels = QVector<QPair<const char *, QString>>;

    explicit PrometheusWriter(Format format);

    /** The format a scrape with this `Accept` header value gets: OpenMetrics when it names
     *  `application/openmetrics-text` (at any q > 0), else the text format. */
    static Format negotiate(const QByteArray &acceptHeader);
    /** The Content-Type header value of `format`. */
    static QByteArray contentType(Format format);

    /** Starts a family: `# HELP` and `# TYPE` (and `# UNIT` in OpenMetrics when `unit` is given;
     *  the name must then end with "_" + unit, or "_" + unit + "_total" for a counter). */
    void family(const char *name, Type type, const char *help, const char *unit = nullptr);
    /** One sample of the current gauge or counter family. */
    void sample(const Labels &labels, double value);
    /**
     * One histogram series of the current histogram family: `upperBounds` ascending (without
     * +Inf), `bucketCounts` the observations per bucket (not cumulative; one more than
     * upperBounds: the last is above every bound), `sum` of the observed values.
     */
    void histogram(const Labels &labels, const QVector<double> &upperBounds, const QVector<quint64> &bucketCounts,
                   double sum);
    /** The whole exposition (OpenMetrics: ends with "# EOF"). The writer is spent afterwards. */
    QByteArray finish();

    /** Labels written first on every sample line from now on (a fleet target's labels from its
     *  targets file): names as Prometheus allows them, not one of the families' own. */
    void setConstantLabels(const QVector<QPair<QByteArray, QString>> &labels) { m_constant = labels; }

    /** Sample lines written so far (a histogram series counts its buckets, _sum and _count). */
    int sampleCount() const { return m_samples; }

    /** `value` as both formats write it ("3", "0.25", "+Inf", "NaN"). */
    static QByteArray formatValue(double value);
    /** `value` escaped for a label value (\\, \", \n). */
    static QByteArray escapeLabelValue(const QString &value);

private:
    void writeLine(const QByteArray &name, const Labels &labels, const char *extraName, const QByteArray &extraValue,
                   double value);

    Format m_format;
    QByteArray m_out;
    QByteArray m_name; ///< current family name (text-format spelling)
    Type m_type = Type::Gauge;
    int m_samples = 0;
    QVector<QPair<QByteArray, QString>> m_constant;
};

} // namespace lockscope
