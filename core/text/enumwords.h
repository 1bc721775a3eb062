#pragma once

#include <QString>
#include <QStringView>

#include <initializer_list>
#include <optional>
#include <vector>

namespace lockscope
{

/**
 * An enum's words in one table: the word a value is written as (JSON, settings, CLI text) and the
 * value a word is read back as, so a name and its parser cannot drift apart.
 *
 *   static const EnumWords<Theme> kWords{{Theme::Light, "light"}, {Theme::Dark, "dark"}};
 *   kWords.word(Theme::Dark)                     // "dark"
 *   kWords.value(u"light", Theme::System)        // Theme::Light; an unknown word gives the fallback
 *
 * Words are Latin-1 literals and compared exactly (case-sensitive), as the JSON and settings
 * readers always did. A table, not a switch: the compiler does not warn when a value is missing,
 * so word() answers the fallback for it; each user's tests cover its words.
 * Keep a table as a function-local `static const` (built once, thread-safe) next to its users.
 */
template <typename Enum> class EnumWords
{
public:
    struct Entry {
        Enum value;
        const char *word;
    };

    EnumWords(std::initializer_list<Entry> entries) : m_entries(entries) {}

    /** The word of `value`; `fallback` when the table has no entry for it. */
    QString word(Enum value, const char *fallback = "") const
    {
        for (const Entry &e : m_entries) {
            if (e.value == value)
                return QString::fromLatin1(e.word);
        }
        return QString::fromLatin1(fallback);
    }

    /** The value written as `word`, or nullopt for a word the table does not have. */
    std::optional<Enum> find(QStringView word) const
    {
        for (const Entry &e : m_entries) {
            if (word == QLatin1StringView(e.word))
                return e.value;
        }
        return std::nullopt;
    }

    /** The value written as `word`; `fallback` for a word the table does not have. */
    Enum value(QStringView word, Enum fallback) const { return find(word).value_or(fallback); }

private:
    std::vector<Entry> m_entries;
};

} // namespace lockscope
