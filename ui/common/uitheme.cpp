#include "common/uitheme.h"

#include "text/enumwords.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>

namespace lockscope
{

namespace
{

const EnumWords<UiTheme::Theme> kThemeWords{{UiTheme::Theme::Light, "light"}, {UiTheme::Theme::Dark, "dark"}};

} // namespace

namespace
{

const char *kKey = "view/theme";

/** The style and palette the application started with (the desktop's), for "System". */
struct Startup {
    QString style;
    QPalette palette;
    bool known = false;
};

Startup &startup()
{
    static Startup s;
    if (!s.known && qApp) {
        s.style = QApplication::style() ? QApplication::style()->name() : QString();
        s.palette = QApplication::palette();
        s.known = true;
    }
    return s;
}

} // namespace

QPalette UiTheme::palette(Theme theme)
{
    if (theme == Theme::System)
        return startup().palette;
    QPalette p;
    if (theme == Theme::Light) {
        p = QStyleFactory::create(QStringLiteral("Fusion"))->standardPalette();
        // Fusion's selection blue (#308cc6) gives white text 3.7:1; this one 5.3:1 (WCAG AA).
        p.setColor(QPalette::Active, QPalette::Highlight, QColor(0x1f, 0x6f, 0xb2));
        p.setColor(QPalette::Inactive, QPalette::Highlight, QColor(0x1f, 0x6f, 0xb2));
        return p;
    }
    // Dark: the usual Fusion dark palette, with enough contrast for a projector as well.
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor alternate(0x26, 0x28, 0x2b);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x7f, 0x83, 0x88);
    const QColor highlight(0x2f, 0x6f, 0xb7);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x41));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x45, 0x48, 0x4d));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3d, 0x41));
    p.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5e));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb3, 0x94, 0xff));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

void UiTheme::setApplicationPalette(Theme theme)
{
    Startup &s = startup();
    if (theme == Theme::System) {
        if (!s.style.isEmpty())
            QApplication::setStyle(s.style);
    } else {
        QApplication::setStyle(QStringLiteral("Fusion"));
    }
    QApplication::setPalette(palette(theme));
}

void UiTheme::use(Theme theme)
{
    startup();
    setApplicationPalette(theme);
}

void UiTheme::apply(Theme theme)
{
    startup(); // remember the desktop's look before the first change
    setApplicationPalette(theme);
    QSettings().setValue(QLatin1String(kKey), name(theme));
    // Charts and custom delegates read the palette when they paint or rebuild.
    for (QWidget *w : QApplication::allWidgets())
        w->update();
}

UiTheme::Theme UiTheme::saved()
{
    return fromName(QSettings().value(QLatin1String(kKey)).toString());
}

void UiTheme::applySaved()
{
    startup();
    const Theme t = saved();
    if (t != Theme::System)
        setApplicationPalette(t);
}

QString UiTheme::name(Theme theme)
{
    return kThemeWords.word(theme, "system");
}

UiTheme::Theme UiTheme::fromName(const QString &name)
{
    return kThemeWords.value(name, Theme::System);
}

void UiTheme::addMenuActions(QMenu *menu)
{
    auto *group = new QActionGroup(menu);
    group->setExclusive(true);
    const Theme current = saved();
    for (Theme t : {Theme::System, Theme::Light, Theme::Dark}) {
        const QString label = t == Theme::System  ? QObject::tr("&System (the desktop's colours)")
                              : t == Theme::Light ? QObject::tr("&Light")
                                                  : QObject::tr("&Dark");
        QAction *a = menu->addAction(label);
        a->setCheckable(true);
        a->setChecked(t == current);
        a->setObjectName(QStringLiteral("theme_") + name(t));
        group->addAction(a);
        QObject::connect(a, &QAction::triggered, menu, [t] { apply(t); });
    }
}

bool UiTheme::isDark()
{
    const QPalette p = QApplication::palette();
    return p.color(QPalette::Window).lightnessF() < p.color(QPalette::WindowText).lightnessF();
}

} // namespace lockscope
