#include "prometheuswriter.h"

#include <QList>
#include <QLocale>

#include <cmath>
#include <limits>

namespace lockscope
{

PrometheusWriter::PrometheusWriter(Format format) : m_format(format)
{
    m_out.reserve(64 * 1024);
}

PrometheusWriter::Format PrometheusWriter::negotiate(const QByteArray &acceptHeader)
{
    // e.g. Prometheus 2.42: "application/openmetrics-text;version=1.0.0,application/openmetrics-text;
    // version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
    for (const QByteArray &part : acceptHeader.split(',')) {
        const QList<QByteArray> params = part.split(';');
        if (params.first().trimmed().toLower() != "application/openmetrics-text")
            continue;
        bool refused = false;
        for (int i = 1; i < params.size(); ++i) {
            const QByteArray p = params.at(i).trimmed().toLower();
            if (p.startsWith("q=") && p.mid(2).toDouble() <= 0)
                refused = true;
        }
        if (!refused)
            return Format::OpenMetrics;
    }
    return Format::Text004;
}

QByteArray PrometheusWriter::contentType(Format format)
{
    return format == Format::OpenMetrics
               ? QByteArrayLiteral("application/openmetrics-text; version=1.0.0; charset=utf-8")
               : QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");
}

QByteArray PrometheusWriter::formatValue(double value)
{
    if (std::isnan(value))
        return QByteArrayLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QByteArrayLiteral("+Inf") : QByteArrayLiteral("-Inf");
    if (value == std::floor(value) && std::fabs(value) < 9.0e15)
        return QByteArray::number(qint64(value));
    return QByteArray::number(value, 'g', QLocale::FloatingPointShortest);
}

QByteArray PrometheusWriter::escapeLabelValue(const QString &value)
{
    const QByteArray utf8 = value.toUtf8();
    QByteArray out;
    out.reserve(utf8.size() + 8);
    for (char c : utf8) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

void PrometheusWriter::family(const char *name, Type type, const char *help, const char *unit)
{
    m_name = name;
    m_type = type;
    QByteArray metaName = m_name;
    if (m_format == Format::OpenMetrics && type == Type::Counter && metaName.endsWith("_total"))
        metaName.chop(6);
    QByteArray escapedHelp;
    for (const char *p = help; *p; ++p) {
        if (*p == '\\')
            escapedHelp += "\\\\";
        else if (*p == '\n')
            escapedHelp += "\\n";
        else if (*p == '"' && m_format == Format::OpenMetrics)
            escapedHelp += "\\\"";
        else
            escapedHelp += *p;
    }
    const char *typeName = type == Type::Gauge ? "gauge" : type == Type::Counter ? "counter" : "histogram";
    m_out += "# HELP " + metaName + ' ' + escapedHelp + '\n';
    m_out += "# TYPE " + metaName + ' ' + typeName + '\n';
    if (unit && m_format == Format::OpenMetrics)
        m_out += "# UNIT " + metaName + ' ' + unit + '\n';
}

void PrometheusWriter::writeLine(const QByteArray &name, const Labels &labels, const char *extraName,
                                 const QByteArray &extraValue, double value)
{
    m_out += name;
    if (!labels.isEmpty() || extraName || !m_constant.isEmpty()) {
        m_out += '{';
        bool first = true;
        // One label: name="value" (the value already escaped).
        auto label = [this, &first](const char *labelName, const QByteArray &escapedValue) {
            if (!first)
                m_out += ',';
            first = false;
            m_out += labelName;
            m_out += "=\"";
            m_out += escapedValue;
            m_out += '"';
        };
        for (const auto &l : m_constant) // a fleet target's labels first
            label(l.first.constData(), escapeLabelValue(l.second));
        for (const auto &l : labels)
            label(l.first, escapeLabelValue(l.second));
        if (extraName)
            label(extraName, extraValue);
        m_out += '}';
    }
    m_out += ' ';
    m_out += formatValue(value);
    m_out += '\n';
    ++m_samples;
}

void PrometheusWriter::sample(const Labels &labels, double value)
{
    writeLine(m_name, labels, nullptr, QByteArray(), value);
}

void PrometheusWriter::histogram(const Labels &labels, const QVector<double> &upperBounds,
                                 const QVector<quint64> &bucketCounts, double sum)
{
    const QByteArray bucket = m_name + "_bucket";
    quint64 cumulative = 0;
    for (int i = 0; i <= upperBounds.size(); ++i) {
        cumulative += bucketCounts.value(i);
        const double le = i < upperBounds.size() ? upperBounds.at(i) : std::numeric_limits<double>::infinity();
        // OpenMetrics wants canonical numbers in `le` ("1.0"); the text format takes any float.
        QByteArray leText = formatValue(le);
        if (m_format == Format::OpenMetrics && !std::isinf(le) && !leText.contains('.') && !leText.contains('e'))
            leText += ".0";
        writeLine(bucket, labels, "le", leText, double(cumulative));
    }
    writeLine(m_name + "_sum", labels, nullptr, QByteArray(), sum);
    writeLine(m_name + "_count", labels, nullptr, QByteArray(), double(cumulative));
}

QByteArray PrometheusWriter::finish()
{
    if (m_format == Format::OpenMetrics)
        m_out += "# EOF\n";
    return std::move(m_out);
}

} // namespace lockscope
