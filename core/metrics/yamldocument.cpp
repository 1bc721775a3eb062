#include "metrics/yamldocument.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

#include <yaml-cpp/yaml.h>

namespace lockscope
{

namespace
{
struct NotPlain {
    QString what;
};

QJsonValue toJson(const YAML::Node &node)
{
    switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
        return QJsonValue(QJsonValue::Null);
    case YAML::NodeType::Scalar:
        return QString::fromStdString(node.Scalar());
    case YAML::NodeType::Sequence: {
        QJsonArray array;
        for (const YAML::Node &item : node)
            array.append(toJson(item));
        return array;
    }
    case YAML::NodeType::Map: {
        QJsonObject object;
        for (const auto &entry : node) {
            if (!entry.first.IsScalar())
                throw NotPlain{
                    QStringLiteral("a mapping key at line %1 is not a plain value").arg(entry.first.Mark().line + 1)};
            object.insert(QString::fromStdString(entry.first.Scalar()), toJson(entry.second));
        }
        return object;
    }
    }
    return QJsonValue(QJsonValue::Null);
}
} // namespace

QJsonDocument YamlDocument::read(const QString &path, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read it (%1)").arg(f.errorString());
        return {};
    }
    const QByteArray text = f.read(16 * 1024 * 1024);
    try {
        const YAML::Node root = YAML::Load(text.toStdString());
        const QJsonValue value = toJson(root);
        if (value.isArray())
            return QJsonDocument(value.toArray());
        if (value.isObject())
            return QJsonDocument(value.toObject());
        *error = value.isNull() ? QStringLiteral("it is empty")
                                : QStringLiteral("it is a single value, not a list or a mapping");
    } catch (const YAML::Exception &e) {
        *error = QStringLiteral("not YAML (%1 at line %2, column %3)")
                     .arg(QString::fromStdString(e.msg))
                     .arg(e.mark.line + 1)
                     .arg(e.mark.column + 1);
    } catch (const NotPlain &e) {
        *error = e.what;
    }
    return {};
}

} // namespace lockscope
