#include "redis/monitorline.h"

#include <cstring>

namespace lockscope
{

namespace
{

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/** Reads one quoted word at `*pos` (which points at the opening quote); false when malformed. */
bool readQuoted(const QByteArray &line, int *pos, QByteArray *word)
{
    int i = *pos + 1;
    word->clear();
    while (i < line.size()) {
        const char c = line.at(i);
        if (c == '"') {
            *pos = i + 1;
            return true;
        }
        if (c != '\\') {
            word->append(c);
            ++i;
            continue;
        }
        if (i + 1 >= line.size())
            return false;
        const char e = line.at(i + 1);
        // sdscatrepr's escapes: \n \r \t \a \b, \xHH, and \\ and \" for themselves.
        static constexpr char kEscaped[] = "nrtab";
        static constexpr char kMeant[] = "\n\r\t\a\b";
        if (const char *escape = e != '\0' ? std::strchr(kEscaped, e) : nullptr) {
            word->append(kMeant[escape - kEscaped]);
        } else if (e == 'x') {
            if (i + 3 >= line.size())
                return false;
            const int hi = hexValue(line.at(i + 2));
            const int lo = hexValue(line.at(i + 3));
            if (hi < 0 || lo < 0)
                return false;
            word->append(char(hi * 16 + lo));
            i += 4;
            continue;
        } else {
            word->append(e); // \\ and \"
        }
        i += 2;
    }
    return false;
}

} // namespace

bool MonitorLine::mayBeScript(const QByteArray &line)
{
    const int bracket = line.indexOf("] \"");
    if (bracket < 0 || bracket + 4 >= line.size())
        return false;
    const char c = line.at(bracket + 3);
    return c == 'e' || c == 'E' || c == 'f' || c == 'F';
}

bool MonitorLine::parse(const QByteArray &line, MonitorLine *out)
{
    const int open = line.indexOf(" [");
    if (open <= 0)
        return false;
    const int space = line.indexOf(' ', open + 2);
    const int close = line.indexOf("] ", open + 2);
    if (space < 0 || close < 0 || space > close)
        return false;
    out->address = QString::fromUtf8(line.mid(space + 1, close - space - 1));
    out->command.clear();
    out->args.clear();
    int pos = close + 2;
    bool first = true;
    while (pos < line.size()) {
        if (line.at(pos) == ' ') {
            ++pos;
            continue;
        }
        if (line.at(pos) != '"')
            return false;
        QByteArray word;
        if (!readQuoted(line, &pos, &word))
            return false;
        if (first)
            out->command = word.toLower();
        else
            out->args << word;
        first = false;
    }
    return !first;
}

} // namespace lockscope
