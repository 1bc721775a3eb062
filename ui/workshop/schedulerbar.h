#pragma once

#include <QStringList>
#include <QWidget>

class QHBoxLayout;

namespace lockscope
{

/**
 * Workshop "You are the scheduler" bar: one button per actor that still has a step to run
 * ("⏱ time passes" for actor-less steps such as pauses); clicking one emits chosen(actor).
 */
class SchedulerBar : public QWidget
{
    Q_OBJECT
public:
    explicit SchedulerBar(QWidget *parent = nullptr);
    /** One button per name of `actors` ("" = the actor-less steps), in that order. */
    void setActors(const QStringList &actors);

signals:
    void chosen(const QString &actor);

private:
    QHBoxLayout *m_buttons = nullptr;
};

} // namespace lockscope
