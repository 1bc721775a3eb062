#pragma once

#include <QJsonDocument>
#include <QString>

namespace lockscope
{

/**
 * Reads a YAML file into the JSON document it describes, through yaml-cpp (Debian
 * libyaml-cpp-dev), so that one reader serves a file given as YAML or as JSON: Prometheus'
 * `file_sd` targets files are either.
 *
 * Mappings become objects, sequences arrays, `~` / `null` / an empty value JSON null, and every
 * other scalar a string, as Prometheus reads label values and targets (an unquoted `6379` or
 * `true` is the string "6379" / "true"). Anchors and aliases are resolved; a mapping key that is
 * not a scalar is an error. Multi-document files: only the first document is read.
 */
class YamlDocument
{
public:
    YamlDocument() = delete;

    /**
     * The document of the YAML file `path` (at most 16 MiB). A null QJsonDocument with `*error`
     * when the file cannot be read, is not YAML (the error names the line and column, counted
     * from 1), is empty, or has a complex key. A top-level scalar is an error too (a targets or
     * password file is a list or a mapping).
     */
    static QJsonDocument read(const QString &path, QString *error);
};

} // namespace lockscope
