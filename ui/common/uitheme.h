#pragma once

#include <QObject>
#include <QPalette>
#include <QString>

class QActionGroup;
class QMenu;

namespace lockscope
{

/**
 * View › Theme: the desktop's palette (system, the default), or LockScope's own light or dark
 * palette on the Fusion style, for every window of the application. The choice is kept in
 * QSettings ("view/theme": "system", "light", "dark") and applied at start-up (applySaved()).
 * Charts and delegates take their colours from the palette (PlotTheme, StatusColours), so they
 * follow; a change re-polishes every widget at once.
 */
class UiTheme : public QObject
{
    Q_OBJECT
public:
    enum class Theme { System, Light, Dark };
    Q_ENUM(Theme)

    /** The palette of `theme` (System: the style's standard palette as the application started). */
    static QPalette palette(Theme theme);
    /** Applies `theme` to the application for this run only (lockscope --theme). */
    static void use(Theme theme);
    /** Applies `theme` to the application and keeps it in QSettings. */
    static void apply(Theme theme);
    /** The saved choice (System when none). */
    static Theme saved();
    /** Applies the saved choice (call once, after the QApplication exists). */
    static void applySaved();
    static QString name(Theme theme);
    static Theme fromName(const QString &name);
    /** Adds "System", "Light", "Dark" as exclusive checkable actions to `menu`. */
    static void addMenuActions(QMenu *menu);
    /** Whether the application's palette is dark now (window colour darker than its text). */
    static bool isDark();

private:
    static void setApplicationPalette(Theme theme);
};

} // namespace lockscope
