#pragma once

#include "scenario/scenario.h"

#include <QHash>
#include <QLabel>

namespace lockscope
{

/**
 * The workshop stage's legend of the actors (object name "workshopLegend"): "A = client
 * 62636889…, thread 1 · B = …", every full client id in the tooltip, so the names the lock views
 * show can be traced to the ids on the server.
 */
class ActorLegend : public QLabel
{
    Q_OBJECT
public:
    explicit ActorLegend(QWidget *parent = nullptr);
    /** `ids`: client id -> actor name (empty before the first step: the ids are not made yet). */
    void setActors(const QVector<Scenario::Actor> &actors, const QHash<QString, QString> &ids);
};

} // namespace lockscope
