// RedisBytes: names and fields as bytes end to end (a lock named with bytes that are
// not UTF-8 must still be listed and acted on), and the displayed form the CLI
// accepts back.
#include "redis/redisbytes.h"
#include "text/displaytext.h"

#include <QtTest>

using namespace lockscope;

class TestRedisBytes : public QObject
{
    Q_OBJECT
private slots:
    void roundTripsEveryByteString_data();
    void roundTripsEveryByteString();
    void validUtf8IsPlainText();
    void displayedFormComesBack();
};

void TestRedisBytes::roundTripsEveryByteString_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("ascii") << QByteArray("lock:42");
    QTest::newRow("utf8") << QByteArray("verrou:été:€:😀");
    // Code points whose low surrogate lies in U+DC80..U+DCFF, the range of escaped bytes.
    QTest::newRow("emoji low half in escape range") << QByteArray("lock:💀💩🂡");
    QTest::newRow("emoji then bad byte") << QByteArray("💩\xff");
    QTest::newRow("ff fe") << QByteArray("lock:\xff\xfe");
    QTest::newRow("lone continuation") << QByteArray("a\x80"
                                                     "b");
    QTest::newRow("truncated sequence") << QByteArray("x\xe2\x82");
    QTest::newRow("overlong") << QByteArray("\xc0\xaf");
    QTest::newRow("encoded surrogate") << QByteArray("\xed\xa0\x80");
    QTest::newRow("mixed") << QByteArray("\xf0\x9f\x98\x80\xff\xc3\xa9\x00z", 9);
    QTest::newRow("newline") << QByteArray("nl\nX");
    QTest::newRow("backslash n") << QByteArray("nl\\nX");
    QTest::newRow("backslash") << QByteArray("C:\\temp\\");
    QByteArray all;
    for (int b = 0; b < 256; ++b)
        all += char(b);
    QTest::newRow("all bytes") << all;
}

void TestRedisBytes::roundTripsEveryByteString()
{
    QFETCH(QByteArray, bytes);
    const QString text = RedisBytes::toText(bytes);
    QCOMPARE(RedisBytes::toBytes(text), bytes);
    QCOMPARE(RedisBytes::hasEscapedBytes(text), !bytes.isValidUtf8());
    // The displayed form is printable and names the same bytes again.
    const QString shown = DisplayText::escaped(text);
    if (bytes.isValidUtf8() && !bytes.contains('\\'))
        QCOMPARE(RedisBytes::displayed(text), text);
    // Every displayed name, backslashes and control characters included, comes back (issue 37).
    QCOMPARE(RedisBytes::toBytes(RedisBytes::fromDisplayed(shown)), bytes);
}

void TestRedisBytes::validUtf8IsPlainText()
{
    const QByteArray utf8("verrou:été");
    QCOMPARE(RedisBytes::toText(utf8), QString::fromUtf8(utf8));
    QCOMPARE(RedisBytes::toBytes(QStringLiteral("verrou:été")), utf8);
    QCOMPARE(RedisBytes::hex(QStringLiteral("a")), QStringLiteral("61"));
    const QString emoji = QString::fromUtf8("lock:💀💩");
    QCOMPARE(DisplayText::escaped(emoji), emoji);
    QCOMPARE(RedisBytes::matchable(emoji), emoji);
}

void TestRedisBytes::displayedFormComesBack()
{
    const QString name = RedisBytes::toText(QByteArray("lock:\xff"));
    QCOMPARE(DisplayText::escaped(name), QStringLiteral("lock:\\xff"));
    QCOMPARE(RedisBytes::fromDisplayed(QStringLiteral("lock:\\xff")), name);
    // Without an escape the typed text is the name, backslashes and all.
    QCOMPARE(RedisBytes::fromDisplayed(QStringLiteral("C:\\Qemp")), QStringLiteral("C:\\Qemp"));
    // \n, \t, \\ alone are escapes too: a name shown as `nl\nX` can be pasted back, and a literal
    // backslash is shown doubled, so the two never look alike (issue 37).
    QCOMPARE(RedisBytes::fromDisplayed(QStringLiteral("nl\\nX")), QStringLiteral("nl\nX"));
    QCOMPARE(DisplayText::escaped(QStringLiteral("nl\nX")), QStringLiteral("nl\\nX"));
    QCOMPARE(DisplayText::escaped(QStringLiteral("bs\\X")), QStringLiteral("bs\\\\X"));
    QCOMPARE(RedisBytes::fromDisplayed(QStringLiteral("bs\\\\X")), QStringLiteral("bs\\X"));
    QCOMPARE(RedisBytes::fromDisplayed(QStringLiteral("C:\\temp")), QStringLiteral("C:\temp"));
    // A backslash doubled by the display comes back single.
    const QString both = RedisBytes::toText(QByteArray("a\\b\xfe"));
    QCOMPARE(RedisBytes::fromDisplayed(DisplayText::escaped(both)), both);
}

QTEST_MAIN(TestRedisBytes)
#include "tst_redisbytes.moc"
