#include "models/h5_tree_filter_model.h"

#include <QRegularExpression>

#include "models/h5_tree_model.h"

namespace opscope::gui {

const char* const H5TreeFilterModel::kSyntax =
    QT_TRANSLATE_NOOP("H5TreeFilterModel",
                      "Filter the tree; every term must match (case-insensitive):\n"
                      "  name or path part: embedding, layers/3/attn\n"
                      "  dtype: float32, f32, fp16, bf16, int64, string\n"
                      "  exact shape: [32768, 4096] or [32768,4096]\n"
                      "  one dimension: 32768 (any axis of that size)\n"
                      "Groups stay when something inside them matches.");

TreeQuery TreeQuery::parse(const QString& text) {
    TreeQuery q;
    static const QRegularExpression bracket(QStringLiteral("\\[([^\\]]*)\\]"));
    QString rest = text;
    for (auto it = bracket.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        std::vector<int64_t> shape;
        bool ok = true;
        for (const QString& part : m.captured(1).split(',', Qt::SkipEmptyParts)) {
            shape.push_back(part.trimmed().toLongLong(&ok));
            if (!ok) break;
        }
        if (ok)
            q.shapes.push_back(std::move(shape));
        else
            q.words << m.captured(0).toLower();  // "[x]" is looked for as text
        rest.replace(m.captured(0), QStringLiteral(" "));
    }
    q.words << rest.toLower().split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    return q;
}

namespace {

bool wordMatches(const QString& word, const h5::NodeInfo& n) {
    if (QString::fromStdString(n.path).toLower().contains(word)) return true;
    if (n.kind != h5::ObjectKind::Dataset) return false;
    const h5::DatasetInfo& d = n.dataset;
    if (QString::fromStdString(d.typeName).toLower().contains(word)) return true;
    const DType alias = dtypeFromName(word.toStdString());
    if (alias != DType::Undefined && alias == d.dtype) return true;
    bool isNumber = false;
    const qlonglong dim = word.toLongLong(&isNumber);
    return isNumber && std::find(d.shape.begin(), d.shape.end(), dim) != d.shape.end();
}

}  // namespace

bool TreeQuery::matches(const h5::NodeInfo& n) const {
    for (const QString& w : words)
        if (!wordMatches(w, n)) return false;
    for (const std::vector<int64_t>& s : shapes)
        if (n.kind != h5::ObjectKind::Dataset || n.dataset.shape != s) return false;
    return true;
}

H5TreeFilterModel::H5TreeFilterModel(H5TreeModel* source, QObject* parent)
    : QSortFilterProxyModel(parent), source_(source) {
    setSourceModel(source);
    setRecursiveFilteringEnabled(true);
}

void H5TreeFilterModel::setQuery(const QString& text) {
    query_ = TreeQuery::parse(text);
    if (!query_.empty()) source_->fetchAll(kMaxListedNodes);
    invalidateFilter();
}

bool H5TreeFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (query_.empty()) return true;
    const h5::NodeInfo* n = source_->nodeInfo(source_->index(sourceRow, 0, sourceParent));
    return n && query_.matches(*n);
}

}  // namespace opscope::gui
