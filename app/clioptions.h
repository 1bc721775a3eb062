#pragma once

#include <QCommandLineOption>
#include <QList>
#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace lockscope
{

/**
 * lockscope-cli's shared option definitions (each option defined once; a command's descriptor
 * names those it takes) and its command-line conventions, so a mistyped command is explained
 * before anything reaches Redis: "did you mean", every number range-checked, Usage with the
 * program name. Parsing itself stays QCommandLineParser's; LockScopeCli dispatches with
 * CliCommandTable and this.
 */
class CliOptions
{
public:
    /** The options of the commands that talk to one server (beside ConnectionOptions'). */
    static QList<QCommandLineOption> commandOptions();
    /** commandOptions() and those of RedLockCommand, WorkshopCommand and ServeCommand. */
    static QList<QCommandLineOption> allOptions();

    /** --kind: the lock kinds acquire offers, its help and its words (the one place of them in app/). */
    static QCommandLineOption kindOption();
    static QStringList kindWords();
    /** "lock, fair, read, write or fenced". */
    static QString kindChoices();

    /** Why a number option is out of range or not a number ("--ttl-ms must be ..."), else empty. */
    static QString rangeError(const QCommandLineParser &parser);

    /** " (did you mean 'list'?)" for the nearest candidate within a few edits, else "". */
    static QString didYouMean(const QString &given, const QStringList &candidates, const QString &prefix);
    /** QCommandLineParser's error, with "did you mean" for an unknown option. */
    static QString parseErrorText(const QCommandLineParser &parser);
    /** QCommandLineParser's help with "Usage: lockscope-cli" instead of the path the program was run by. */
    static QString withProgramName(QString help);
};

} // namespace lockscope
