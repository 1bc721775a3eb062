#pragma once

#include <QCommandLineOption>
#include <QList>
#include <QString>
#include <QStringList>

namespace lockscope
{

struct CliCommandDescriptor;

/**
 * Every text about lockscope-cli's commands, made from their descriptors (CliCommandTable) and
 * the shared option definitions (CliOptions, ConnectionOptions), so that none can drift from
 * another: `lockscope-cli --help`, `COMMAND --help`, and, through the hidden
 * `--help-format=FORMAT`, the parts of files kept in the repository (tools/update-cli-docs.py
 * writes them; the ctest docs_check_cli fails when one is stale or when they disagree):
 *
 *   man               the COMMANDS section of packaging/man/lockscope-cli.1
 *   bash, zsh, fish   the command and option completion of packaging/completion/
 *   markdown          the command sections of docs/reference/cli.md
 *   markdown-options  the options table of docs/reference/cli.md
 */
class CliHelp
{
public:
    /** The --help description: every command's synopsis and summary, conventions, exit codes. */
    static QString description();
    /** `lockscope-cli COMMAND --help`: synopsis, summary, the options that apply, examples. */
    static QString commandHelp(const CliCommandDescriptor &command);
    /** The formats of generate(). */
    static QStringList formats();
    /** The text of `format` (see above); empty for an unknown format. */
    static QString generate(const QString &format);

private:
    /** Every option a command line may carry: connection options first, then CliOptions::allOptions(). */
    static QList<QCommandLineOption> everyOption();
    /** The options no descriptor names: they apply to every command (--read-only, --audit-log, ...). */
    static QStringList generalOptionNames();
    static QString man();
    static QString bash();
    static QString zsh();
    static QString fish();
    static QString markdown();
    static QString markdownOptions();
};

} // namespace lockscope
