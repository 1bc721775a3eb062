#pragma once

#include <QString>

#include <functional>
#include <utility>

namespace lockscope
{

/**
 * The hook through which a front end names things in core's sentences: one per `Word` enum
 * (TlsAdviceWords::Word, AdviceWords::Choice). The front end installs a namer once at start-up,
 * before any connection or session exists (not synchronised); without one, name() answers the
 * caller's defaults. Header-only: each enum gets its own hook.
 */
template <typename Word> class FrontEndWords
{
public:
    /** (word, value) -> the front end's text; `value` as the Word's docs say (a path, a kind word). */
    using Namer = std::function<QString(Word word, const QString &value)>;
    using Defaults = QString (*)(Word word, const QString &value);

    /** Replaces the words (an empty function restores the defaults). */
    static void setNamer(Namer namer) { hook() = std::move(namer); }

    /** The installed namer's text for `word`, or `defaults(word, value)` when none is installed. */
    static QString name(Word word, const QString &value, Defaults defaults)
    {
        const Namer &n = hook();
        return n ? n(word, value) : defaults(word, value);
    }

private:
    static Namer &hook()
    {
        static Namer n;
        return n;
    }
};

} // namespace lockscope
