#include "text/jsonobjectbuilder.h"

#include <algorithm>
#include <vector>

namespace lockscope
{

namespace
{

/** One shape: the key addresses in insert order, and an object of exactly those keys. */
struct Shape {
    QVarLengthArray<const char *, 24> keys;
    QJsonObject object;
};

/** Shapes of this thread (a handful in practice; past kMaxShapes objects are built directly). */
constexpr size_t kMaxShapes = 64;
thread_local std::vector<Shape> t_shapes;

} // namespace

QJsonObject JsonObjectBuilder::take()
{
    auto sameKeys = [this](const Shape &s) {
        if (s.keys.size() != m_pairs.size())
            return false;
        for (qsizetype i = 0; i < m_pairs.size(); ++i)
            if (s.keys[i] != m_pairs[i].first.data())
                return false;
        return true;
    };
    // An undefined value removes its key (QJsonObject::insert): such an object is built as is.
    const bool removes =
        std::any_of(m_pairs.cbegin(), m_pairs.cend(), [](const auto &kv) { return kv.second.isUndefined(); });
    Shape *shape = nullptr;
    if (!removes) {
        const auto it = std::find_if(t_shapes.begin(), t_shapes.end(), sameKeys);
        if (it != t_shapes.end())
            shape = &*it;
    }
    QJsonObject o;
    if (shape) {
        // Every key of the template is one of ours: each value is replaced, none is left over.
        o = shape->object;
        for (auto &kv : m_pairs)
            o[kv.first] = std::move(kv.second);
    } else {
        for (auto &kv : m_pairs)
            o.insert(kv.first, std::move(kv.second));
        if (!removes && t_shapes.size() < kMaxShapes) {
            Shape s;
            for (const auto &kv : m_pairs)
                s.keys.append(kv.first.data());
            s.object = o;
            t_shapes.push_back(std::move(s));
        }
    }
    m_pairs.clear();
    return o;
}

} // namespace lockscope
