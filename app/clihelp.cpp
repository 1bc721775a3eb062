#include "clihelp.h"

#include "clicommanddescriptor.h"
#include "clicommandtable.h"
#include "clioptions.h"
#include "connectionoptions.h"

#include <QCommandLineParser>
#include <QRegularExpression>

namespace lockscope
{

namespace
{

/** The words of `text`, a bracketed group ("[--hold-ms N]") kept as one. */
QStringList groups(const QString &text)
{
    QStringList out;
    int depth = 0;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (depth > 0)
            out.last() += QLatin1Char(' ') + word;
        else
            out << word;
        depth += int(word.count(QLatin1Char('['))) - int(word.count(QLatin1Char(']')));
    }
    return out;
}

/** `text` wrapped at `width` columns, the first line after `first`, the others after `rest`. */
QString wrapped(const QString &text, int width, const QString &first, const QString &rest)
{
    QString out = first;
    qsizetype column = first.size();
    bool lineEmpty = true;
    for (const QString &word : groups(text)) {
        if (!lineEmpty && column + 1 + word.size() > width) {
            out += QLatin1Char('\n') + rest;
            column = rest.size();
            lineEmpty = true;
        }
        if (!lineEmpty) {
            out += QLatin1Char(' ');
            ++column;
        }
        out += word;
        column += word.size();
        lineEmpty = false;
    }
    return out;
}

/** The summary and the description, one paragraph. */
QString helpParagraph(const CliCommandDescriptor &d)
{
    return d.description.isEmpty() ? d.summary : d.summary + QLatin1Char(' ') + d.description;
}

/** A short phrase of an option's help for a completion menu: up to its first ". ", "; " or " (". */
QString shortHelp(const QString &help)
{
    qsizetype end = help.size();
    for (const char *stop : {". ", "; ", " ("}) {
        qsizetype at = help.indexOf(QLatin1String(stop));
        while (at > 0 && stop[0] == '.' && help.at(at - 1) == QLatin1Char('.')) // "rediss://... (TLS)"
            at = help.indexOf(QLatin1String(stop), at + 1);
        if (at > 0 && at < end)
            end = at;
    }
    QString s = help.left(end);
    if (s.endsWith(QLatin1Char('.')) && !s.endsWith(QLatin1String("..")))
        s.chop(1);
    return s;
}

/** How a shell completes an option's value, from its value name. */
enum class ValueKind { None, Free, File, Directory, Words };

ValueKind valueKind(const QCommandLineOption &o, QStringList *words)
{
    const QString v = o.valueName();
    if (v.isEmpty())
        return ValueKind::None;
    if (v == QLatin1String("FILE") || v == QLatin1String("PATH"))
        return ValueKind::File;
    if (v == QLatin1String("DIR"))
        return ValueKind::Directory;
    if (v == QLatin1String("URL") || v == QLatin1String("URLS")) {
        *words = {QStringLiteral("redis://"), QStringLiteral("rediss://"), QStringLiteral("unix://"),
                  QStringLiteral("redis-sentinel://")};
        return ValueKind::Words;
    }
    if (o.names().first() == QLatin1String("kind")) {
        *words = CliOptions::kindWords();
        return ValueKind::Words;
    }
    return ValueKind::Free;
}

/** Markdown's links to their text (`[the runbook](x.md)` -> `the runbook`). */
QString withoutLinks(QString text)
{
    static const QRegularExpression link(QStringLiteral("\\[([^\\]]*)\\]\\([^)]*\\)"));
    return text.replace(link, QStringLiteral("\\1"));
}

/** Text for roff: backslashes and dashes escaped, non-ASCII as \[uXXXX], `code` in bold. */
QString roff(const QString &markdown)
{
    QString out;
    for (const QChar c : withoutLinks(markdown)) {
        if (c == QLatin1Char('\\'))
            out += QStringLiteral("\\e");
        else if (c == QLatin1Char('-'))
            out += QStringLiteral("\\-");
        else if (c.unicode() > 126)
            out += QStringLiteral("\\[u%1]").arg(QString::number(c.unicode(), 16).toUpper().rightJustified(4, u'0'));
        else
            out += c;
    }
    static const QRegularExpression code(QStringLiteral("`([^`]*)`"));
    out.replace(code, QStringLiteral("\\fB\\1\\fR"));
    // An option is never hyphenated at the end of a line (\% before it).
    static const QRegularExpression option(QStringLiteral("(^|[ (]|\\\\fB)\\\\-\\\\-"));
    out.replace(option, QStringLiteral("\\1\\%\\-\\-"));
    if (out.startsWith(QLatin1Char('.')) || out.startsWith(QLatin1Char('\'')))
        out.prepend(QStringLiteral("\\&"));
    return out;
}

/** A synopsis in roff: literal words and options in bold, placeholders in italics. */
QString roffSynopsis(const QString &synopsis)
{
    static const QRegularExpression token(
        QStringLiteral("(--[a-z][a-z-]*)|([a-z][a-z-]*)|([A-Z][A-Z0-9_:=,.]*)|([^A-Za-z-]+|-)"));
    QString out;
    for (auto it = token.globalMatch(synopsis); it.hasNext();) {
        const auto m = it.next();
        QString text = m.captured(0);
        text.replace(QLatin1Char('-'), QStringLiteral("\\-"));
        if (m.capturedLength(1) || m.capturedLength(2))
            out += QStringLiteral("\\fB%1\\fR").arg(text);
        else if (m.capturedLength(3))
            out += QStringLiteral("\\fI%1\\fR").arg(text);
        else
            out += text;
    }
    return out;
}

/** Text for a markdown table cell or paragraph: <, > and | escaped. */
QString markdownText(QString text)
{
    return text.replace(QLatin1Char('|'), QStringLiteral("\\|"))
        .replace(QLatin1Char('<'), QStringLiteral("&lt;"))
        .replace(QLatin1Char('>'), QStringLiteral("&gt;"));
}

/** Within single quotes of a POSIX shell (zsh). */
QString shQuoted(QString text)
{
    return text.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
}

/** The heading of a command in docs/reference/cli.md: "list", "redlock show | redlock acquire". */
QString heading(const CliCommandDescriptor &d)
{
    if (d.subcommands.isEmpty())
        return d.name;
    QStringList forms;
    for (const QString &sub : d.subcommands)
        forms << d.name + QLatin1Char(' ') + sub;
    return forms.join(QStringLiteral(" | "));
}

QStringList dashed(const QStringList &names)
{
    QStringList out;
    for (const QString &n : names)
        out << QStringLiteral("--") + n;
    return out;
}

/** The commands whose first operand is a lock name, a file. */
QStringList commandsWithOperand(bool lockName)
{
    QStringList out;
    for (const CliCommandDescriptor &d : CliCommandTable::all()) {
        const QString first = d.operands.value(0);
        if (lockName ? first == QLatin1String(CliCommandDescriptor::kLockName) : first.contains(QLatin1String("file")))
            out << d.name;
    }
    return out;
}

constexpr int kHelpWidth = 100;

} // namespace

QList<QCommandLineOption> CliHelp::everyOption()
{
    return ConnectionOptions().options() + CliOptions::allOptions();
}

QStringList CliHelp::generalOptionNames()
{
    QStringList names;
    for (const QCommandLineOption &o : CliOptions::allOptions())
        if (CliCommandTable::commandsTaking(o.names().first()).isEmpty())
            names << o.names().first();
    return names;
}

QString CliHelp::description()
{
    QString text = QStringLiteral("See and act on Redisson locks in Redis.\n\nCommands:\n");
    for (const CliCommandDescriptor &d : CliCommandTable::all()) {
        text += wrapped(d.synopsis, kHelpWidth, QStringLiteral("  "), QStringLiteral("        ")) + QLatin1Char('\n');
        text += wrapped(d.summary, kHelpWidth, QStringLiteral("      "), QStringLiteral("      ")) + QLatin1Char('\n');
    }
    return text + QStringLiteral(
                      "Every write is checked against the state you confirmed and recorded in the audit log.\n"
                      "'lockscope-cli COMMAND --help' shows a command's options. Without --url, LOCKSCOPE_URL names "
                      "the server.\n\n"
                      "Exit codes: 0 ok, 1 usage, 2 connection/server error, 3 refused (read-only, not\n"
                      "confirmed, lock absent, not acquired, lock changed since confirmed, refused by the ACL),\n"
                      "4 doctor found a problem of severity warning or worse.");
}

QString CliHelp::commandHelp(const CliCommandDescriptor &d)
{
    QCommandLineParser sub;
    sub.setApplicationDescription(
        helpParagraph(d) +
        QStringLiteral("\n\nConnection options (--url or LOCKSCOPE_URL, --tls-*, --user, --ask-password) and %1: see "
                       "'lockscope-cli --help'.")
            .arg(dashed(generalOptionNames()).join(QStringLiteral(", "))));
    sub.addHelpOption();
    const QList<QCommandLineOption> options = CliOptions::allOptions();
    for (const QString &name : d.options)
        for (const QCommandLineOption &o : options)
            if (o.names().first() == name)
                sub.addOption(o);
    QString text = sub.helpText();
    const qsizetype eol = text.indexOf(QLatin1Char('\n'));
    text = QStringLiteral("Usage: lockscope-cli [options] %1").arg(d.synopsis) + text.mid(eol);
    if (!d.examples.isEmpty()) {
        text += QStringLiteral("\nExamples:\n");
        for (const QString &e : d.examples)
            text += QStringLiteral("  lockscope-cli %1\n").arg(e);
    }
    return text;
}

QStringList CliHelp::formats()
{
    return {QStringLiteral("man"),  QStringLiteral("bash"),     QStringLiteral("zsh"),
            QStringLiteral("fish"), QStringLiteral("markdown"), QStringLiteral("markdown-options")};
}

QString CliHelp::generate(const QString &format)
{
    if (format == QLatin1String("man"))
        return man();
    if (format == QLatin1String("bash"))
        return bash();
    if (format == QLatin1String("zsh"))
        return zsh();
    if (format == QLatin1String("fish"))
        return fish();
    if (format == QLatin1String("markdown"))
        return markdown();
    if (format == QLatin1String("markdown-options"))
        return markdownOptions();
    return QString();
}

QString CliHelp::man()
{
    QString out;
    for (const CliCommandDescriptor &d : CliCommandTable::all()) {
        out += QStringLiteral(".TP\n%1\n%2\n").arg(roffSynopsis(d.synopsis), roff(helpParagraph(d)));
        if (!d.details.isEmpty())
            out += QStringLiteral(".IP\n%1\n").arg(roff(d.details));
        if (!d.options.isEmpty())
            out += QStringLiteral(".IP\nOptions: %1.\n")
                       .arg(roff(QStringLiteral("`") + dashed(d.options).join(QStringLiteral("`, `")) +
                                 QStringLiteral("`")));
        if (!d.examples.isEmpty()) {
            out += QStringLiteral(".IP\n.nf\n");
            for (const QString &e : d.examples)
                out += roff(QStringLiteral("lockscope-cli ") + e) + QLatin1Char('\n');
            out += QStringLiteral(".fi\n");
        }
    }
    return out;
}

QString CliHelp::bash()
{
    QStringList valueOptions, files, directories, free;
    QString words;
    for (const QCommandLineOption &o : everyOption()) {
        QStringList w;
        const QString name = QStringLiteral("--") + o.names().first();
        switch (valueKind(o, &w)) {
        case ValueKind::None:
            continue;
        case ValueKind::Free:
            free << name;
            break;
        case ValueKind::File:
            files << name;
            break;
        case ValueKind::Directory:
            directories << name;
            break;
        case ValueKind::Words:
            words +=
                QStringLiteral("        %1)\n            COMPREPLY=($(compgen -W \"%2\" -- \"$cur\"))%3; return ;;\n")
                    .arg(name, w.join(QLatin1Char(' ')),
                         w.first().endsWith(QLatin1Char('/')) ? QStringLiteral("; compopt -o nospace") : QString());
            break;
        }
        valueOptions << name;
    }
    QString operands;
    operands +=
        QStringLiteral("        %1)\n            if ((arg_index == 0)); then\n                local IFS=$'\\n'\n"
                       "                COMPREPLY=($(compgen -W \"$(_lockscope_cli_lock_names \"$cur\")\" -- "
                       "\"$cur\"))\n            fi ;;\n")
            .arg(commandsWithOperand(true).join(QLatin1Char('|')));
    operands += QStringLiteral("        %1)\n            ((arg_index == 0)) && _filedir ;;\n")
                    .arg(commandsWithOperand(false).join(QLatin1Char('|')));
    for (const CliCommandDescriptor &d : CliCommandTable::all()) {
        if (d.subcommands.isEmpty())
            continue;
        operands += QStringLiteral("        %1)\n            if ((arg_index == 0)); then\n"
                                   "                COMPREPLY=($(compgen -W \"%2\" -- \"$cur\"))\n")
                        .arg(d.name, d.subcommands.join(QLatin1Char(' ')));
        if (!d.operandWordsFrom.isEmpty())
            operands += QStringLiteral("            elif ((arg_index == 1)); then\n"
                                       "                COMPREPLY=($(compgen -W \"$(lockscope-cli %1 2>/dev/null | awk "
                                       "'{print $1}')\" -- \"$cur\"))\n")
                            .arg(d.operandWordsFrom);
        operands += QStringLiteral("            fi ;;\n");
    }
    return QStringLiteral(
               "_lockscope_cli()\n{\n    local cur prev words cword\n    _init_completion || return\n\n"
               "    local commands=\"%1\"\n    local options\n"
               "    options=$(lockscope-cli --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)\n\n"
               "    case $prev in\n%2"
               "        %3)\n            _filedir; return ;;\n"
               "        %4)\n            _filedir -d; return ;;\n"
               "        %5)\n            return ;;\n"
               "    esac\n\n"
               "    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n        "
               "return\n"
               "    fi\n\n"
               "    # The command is the first word that is not an option or an option's value.\n"
               "    local i command=\"\" arg_index=0\n    for ((i = 1; i < cword; i++)); do\n"
               "        case ${words[i]} in\n            %6)\n                ((i++)) ;;\n            -*) ;;\n"
               "            *)\n                if [[ -z $command ]]; then command=${words[i]}; else ((arg_index++)); "
               "fi ;;\n        esac\n    done\n\n"
               "    if [[ -z $command ]]; then\n        COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
               "        return\n    fi\n    case $command in\n%7    esac\n}\n")
        .arg(CliCommandTable::names().join(QLatin1Char(' ')), words, files.join(QLatin1Char('|')),
             directories.join(QLatin1Char('|')), free.join(QLatin1Char('|')), valueOptions.join(QLatin1Char('|')),
             operands);
}

QString CliHelp::zsh()
{
    QString out = QStringLiteral("_lockscope_cli() {\n  local -a commands\n  commands=(\n");
    for (const CliCommandDescriptor &d : CliCommandTable::all())
        out += QStringLiteral("    '%1:%2'\n").arg(d.name, shQuoted(shortHelp(d.summary)));
    out += QStringLiteral("  )\n  _arguments -C \\\n");
    for (const QCommandLineOption &o : everyOption()) {
        QStringList w;
        const ValueKind kind = valueKind(o, &w);
        QString help = shortHelp(o.description());
        help.replace(QLatin1Char('['), QStringLiteral("\\[")).replace(QLatin1Char(']'), QStringLiteral("\\]"));
        QString spec = QStringLiteral("--%1[%2]").arg(o.names().first(), help);
        const QString value = o.valueName().toLower();
        switch (kind) {
        case ValueKind::None:
            break;
        case ValueKind::Free:
            spec += QStringLiteral(":%1:").arg(value);
            break;
        case ValueKind::File:
            spec += QStringLiteral(":%1:_files").arg(value);
            break;
        case ValueKind::Directory:
            spec += QStringLiteral(":%1:_files -/").arg(value);
            break;
        case ValueKind::Words:
            spec += QStringLiteral(":%1:(%2)").arg(value, w.join(QLatin1Char(' ')));
            break;
        }
        out += QStringLiteral("    '%1' \\\n").arg(shQuoted(spec));
    }
    out += QStringLiteral("    '(-h --help)'{-h,--help}'[show the options]' \\\n"
                          "    '(-v --version)'{-v,--version}'[show the version]' \\\n"
                          "    '1:command:->command' \\\n    '*::arg:->args' && return\n"
                          "  case $state in\n    command) _describe 'command' commands ;;\n    args)\n"
                          "      case ${line[1]} in\n");
    out += QStringLiteral("        %1)\n          (( CURRENT == 2 )) && _lockscope_cli_lock_names ;;\n")
               .arg(commandsWithOperand(true).join(QLatin1Char('|')));
    out += QStringLiteral("        %1)\n          (( CURRENT == 2 )) && _files ;;\n")
               .arg(commandsWithOperand(false).join(QLatin1Char('|')));
    for (const CliCommandDescriptor &d : CliCommandTable::all()) {
        if (d.subcommands.isEmpty())
            continue;
        out += QStringLiteral("        %1)\n          if (( CURRENT == 2 )); then compadd %2\n")
                   .arg(d.name, d.subcommands.join(QLatin1Char(' ')));
        if (!d.operandWordsFrom.isEmpty())
            out += QStringLiteral("          elif (( CURRENT == 3 )); then compadd ${(f)\"$(lockscope-cli %1 "
                                  "2>/dev/null | awk '{print $1}')\"}\n")
                       .arg(d.operandWordsFrom);
        out += QStringLiteral("          fi ;;\n");
    }
    out += QStringLiteral("      esac ;;\n  esac\n}\n");
    return out;
}

QString CliHelp::fish()
{
    auto quoted = [](QString text) {
        return QLatin1Char('\'') +
               text.replace(QLatin1Char('\\'), QStringLiteral("\\\\"))
                   .replace(QLatin1Char('\''), QStringLiteral("\\'")) +
               QLatin1Char('\'');
    };
    QString out = QStringLiteral("set -l commands %1\ncomplete -c lockscope-cli -f\n")
                      .arg(CliCommandTable::names().join(QLatin1Char(' ')));
    for (const CliCommandDescriptor &d : CliCommandTable::all())
        out +=
            QStringLiteral("complete -c lockscope-cli -n \"not __fish_seen_subcommand_from $commands\" -a %1 -d %2\n")
                .arg(d.name, quoted(shortHelp(d.summary)));
    out += QStringLiteral("complete -c lockscope-cli -n \"__fish_seen_subcommand_from %1\" -a "
                          "'(__lockscope_cli_lock_names)'\n")
               .arg(commandsWithOperand(true).join(QLatin1Char(' ')));
    out += QStringLiteral("complete -c lockscope-cli -n \"__fish_seen_subcommand_from %1\" -F\n")
               .arg(commandsWithOperand(false).join(QLatin1Char(' ')));
    for (const CliCommandDescriptor &d : CliCommandTable::all()) {
        if (d.subcommands.isEmpty())
            continue;
        QString words = d.subcommands.join(QLatin1Char(' '));
        if (!d.operandWordsFrom.isEmpty())
            words += QStringLiteral(" (lockscope-cli %1 2>/dev/null | string replace -r \"\\s.*\" \"\")")
                         .arg(d.operandWordsFrom);
        out += QStringLiteral("complete -c lockscope-cli -n \"__fish_seen_subcommand_from %1\" -a '%2'\n")
                   .arg(d.name, words);
    }
    out += QLatin1Char('\n');
    for (const QCommandLineOption &o : everyOption()) {
        QStringList w;
        QString line = QStringLiteral("complete -c lockscope-cli -l %1").arg(o.names().first());
        switch (valueKind(o, &w)) {
        case ValueKind::None:
            break;
        case ValueKind::Free:
            line += QStringLiteral(" -x");
            break;
        case ValueKind::File:
            line += QStringLiteral(" -r -F");
            break;
        case ValueKind::Directory:
            line += QStringLiteral(" -r -a '(__fish_complete_directories)'");
            break;
        case ValueKind::Words:
            line += QStringLiteral(" -x -a '%1'").arg(w.join(QLatin1Char(' ')));
            break;
        }
        out += line + QStringLiteral(" -d ") + quoted(shortHelp(o.description())) + QLatin1Char('\n');
    }
    out += QStringLiteral("complete -c lockscope-cli -s h -l help -d 'show the options'\n"
                          "complete -c lockscope-cli -s v -l version -d 'show the version'\n");
    return out;
}

QString CliHelp::markdown()
{
    QString out;
    for (const CliCommandDescriptor &d : CliCommandTable::all()) {
        out += QStringLiteral("### `%1`\n\n```\nlockscope-cli [options] %2\n```\n\n%3\n")
                   .arg(heading(d), d.synopsis, markdownText(helpParagraph(d)));
        if (!d.options.isEmpty())
            out += QStringLiteral("\nOptions: `%1`.\n").arg(dashed(d.options).join(QStringLiteral("`, `")));
        if (!d.details.isEmpty())
            out += QStringLiteral("\n%1\n").arg(markdownText(d.details));
        if (!d.examples.isEmpty()) {
            out += QStringLiteral("\n```sh\n");
            for (const QString &e : d.examples)
                out += QStringLiteral("lockscope-cli %1\n").arg(e);
            out += QStringLiteral("```\n");
        }
        out += QLatin1Char('\n');
    }
    out.chop(1);
    return out;
}

QString CliHelp::markdownOptions()
{
    QString out = QStringLiteral("| option | what it does |\n|---|---|\n");
    for (const QCommandLineOption &o : everyOption()) {
        const QString value = o.valueName().isEmpty() ? QString() : QLatin1Char(' ') + o.valueName();
        out += QStringLiteral("| `--%1%2` | %3 |\n").arg(o.names().first(), value, markdownText(o.description()));
    }
    out += QStringLiteral("| `-h`, `--help`, `--help-all` | show the options (`COMMAND --help`: that command's) |\n"
                          "| `-v`, `--version` | show the version |\n");
    return out;
}

} // namespace lockscope
