#pragma once

#include <QString>

namespace lockscope
{

/**
 * Durations and TTLs as text, the one formatter of the CLI and the dashboard, so both say a
 * duration alike. Input in
 * milliseconds; tenths of a second are cut, not rounded ("1.09 s" reads "1.0 s"). The styles keep
 * the texts each front end has always shown:
 *
 *   Seconds  "12.3 s" at any length (lockscope-cli: a TTL column stays comparable, `show`, doctor)
 *   Minutes  "12.3 s" below 2 min, then "4 min 05 s" (the dashboard's TTLs and durations)
 *   Hours    "12.3 s" below 1 min, "4 min 05 s" below 1 h, then "2 h 07 min" (the dashboard's
 *            "Held for" column)
 */
class DurationText
{
public:
    enum class Style { Seconds, Minutes, Hours };

    /** A PTTL as Redis gives it: -1 "no expiry", any other negative value (-2: no key) "-",
     *  else duration(). */
    static QString ttl(qint64 pttlMs, Style style = Style::Minutes);
    /** A length of time in ms (not negative). */
    static QString duration(qint64 ms, Style style = Style::Minutes);
};

} // namespace lockscope
