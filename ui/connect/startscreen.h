#pragma once

#include "connect/connectionprofile.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace lockscope
{

class ConnectionProfileStore;

/**
 * What `lockscope` shows when started without a connection (the desktop entry: starting
 * the demo unasked, or showing nothing at all when redis-server is missing, leaves a menu user
 * with no idea what happened). Lists the saved
 * connections and the recent ones (ConnectionProfileStore), and offers Connect… (the Connect
 * dialog), Try the demo, Open a recording and Workshop. Says nothing to Redis itself: each choice
 * is a signal, the application opens the window. showError() puts a start-up error on it (as
 * well as the dialog the application shows).
 */
class StartScreen : public QWidget
{
    Q_OBJECT
public:
    /** `store` is not owned and must outlive the screen. */
    explicit StartScreen(ConnectionProfileStore *store, QWidget *parent = nullptr);

    /** Re-reads the saved and recent connections. */
    void reload();
    /** A sentence above the lists (red), e.g. why the last connection could not be opened; empty hides it. */
    void showError(const QString &message);
    QString errorText() const;
    /** The saved connections then the recent ones, as listed (tests). */
    QList<ConnectionProfile> listedConnections() const;

signals:
    /** A saved or recent connection was opened (double-click or Enter, or Open). */
    void connectionChosen(const lockscope::ConnectionProfile &profile);
    void connectDialogRequested();
    void demoRequested();
    /** `path`: the recording file the operator picked. */
    void recordingChosen(const QString &path);
    void workshopRequested();

private:
    void openCurrent();
    void chooseRecording();

    ConnectionProfileStore *m_store = nullptr;
    QLabel *m_error = nullptr;
    QListWidget *m_connections = nullptr;
    QPushButton *m_open = nullptr;
    QList<ConnectionProfile> m_listed;
};

} // namespace lockscope
